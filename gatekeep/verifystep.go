package gatekeep

import "github.com/gallivant/gallivant/ledger"

// VerifyStep is what exit verification does next with a head (L-104,
// L-105).
type VerifyStep int

// Verify steps.
const (
	// VerifyNothing: the head has nothing left to run; the pull request
	// may open.
	VerifyNothing VerifyStep = iota
	// VerifyRun: run the Verify commands (when Commands) and replay the
	// plan's checks on the head.
	VerifyRun
	// VerifyRepair: the head failed its verification; dispatch the one
	// repair.
	VerifyRepair
	// VerifyRepairFailed: the repair answered nothing, the same head still
	// fails; wait for a repair in flight, else stop verify-failed.
	VerifyRepairFailed
)

// String names the step.
func (s VerifyStep) String() string {
	switch s {
	case VerifyNothing:
		return "nothing to verify"
	case VerifyRun:
		return "run"
	case VerifyRepair:
		return "repair"
	case VerifyRepairFailed:
		return "repair failed"
	}
	return "unknown verify step"
}

// VerifyDecision is DecideVerify's answer.
type VerifyDecision struct {
	Step VerifyStep
	// Commands is set with VerifyRun when the Verify commands run too,
	// not only the replay: the head has not passed them yet.
	Commands bool
	// Last is the recorded verification the decision read.
	Last Verification
}

// HasVerify reports whether the ledger has Verify commands of its own.
func HasVerify(l *ledger.Ledger) bool { return l.Verification != "" && l.Verification != "none" }

// DecideVerify is exit verification's decision for head, given the replay
// plan of its done rows' evidence: nothing to run when the head passed (or
// there are no Verify commands) and nothing is to be replayed or carried; a
// repair after the head's first failure; a failed repair when the repair
// dispatched for this head left it failing; else a run.
func DecideVerify(l *ledger.Ledger, head string, plan ReplayPlan) VerifyDecision {
	last, done := VerifiedAt(l)
	here := done && last.Head == head
	passedHere := here && last.Passed
	switch {
	case (passedHere || !HasVerify(l)) && len(plan.Checks) == 0 && len(plan.Carried) == 0:
		return VerifyDecision{Step: VerifyNothing, Last: last}
	case here && !last.Passed && l.Delivery.VerifyRepair == head:
		return VerifyDecision{Step: VerifyRepairFailed, Last: last}
	case here && !last.Passed:
		return VerifyDecision{Step: VerifyRepair, Last: last}
	}
	return VerifyDecision{Step: VerifyRun, Commands: !passedHere, Last: last}
}
