package gatekeep

// RoundEnd is how a review round's agent run ended when its work branch
// shows no push: the facts settling the round reads.
type RoundEnd struct {
	// Seen: this process ran the round's agent, or this cache's run
	// record proves how it ended.
	Seen bool
	// Finished: the seen run is over.
	Finished bool
	// Overdue: the round was dispatched longer ago than the executor's
	// timeout and grace.
	Overdue bool
	// Failed: the seen run failed (harness error).
	Failed bool
	// Dirty: the seen run left uncommitted changes and pushed nothing.
	Dirty bool
	// Recovered: the run was found through this cache's run record after
	// the reconciler that started it died, and nothing of it runs: nobody
	// saw how it ended (an agent killed with its reconciler leaves the
	// same record as one that answered nothing), so it is not an answer.
	Recovered bool
}

// RoundStep is what settling a review round does when its branch shows no
// push.
type RoundStep int

// Round steps.
const (
	// RoundWait: the round's agent is still at work.
	RoundWait RoundStep = iota
	// RoundFailed: the agent failed: the round is due again when the
	// machine failed it, else the entry stops harness-error.
	RoundFailed
	// RoundDirty: the agent left uncommitted changes: stop boundary.
	RoundDirty
	// RoundUnanswered: no answer from the agent: the feedback stays new
	// and the round runs again (RoundInterrupted).
	RoundUnanswered
	// RoundNothing: the agent ended cleanly and pushed nothing
	// (RoundEmpty).
	RoundNothing
)

// String names the step.
func (s RoundStep) String() string {
	switch s {
	case RoundWait:
		return "wait"
	case RoundFailed:
		return "failed"
	case RoundDirty:
		return "dirty"
	case RoundUnanswered:
		return "unanswered"
	case RoundNothing:
		return "empty"
	}
	return "unknown round step"
}

// DecideRoundEnd is the step of a round whose branch shows no push: a run
// recovered after its reconciler died is unanswered (R-21: its feedback is
// answered by the next round, never dropped); wait while the run is
// neither seen over nor overdue; then a failure, then a dirty checkout; a
// run not seen to finish is unanswered, never empty.
func DecideRoundEnd(end RoundEnd) RoundStep {
	switch {
	case end.Recovered:
		return RoundUnanswered
	case !(end.Seen && end.Finished) && !end.Overdue:
		return RoundWait
	case end.Seen && end.Failed:
		return RoundFailed
	case end.Seen && end.Dirty:
		return RoundDirty
	case !end.Seen || !end.Finished:
		return RoundUnanswered
	}
	return RoundNothing
}
