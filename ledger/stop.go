package ledger

import (
	"fmt"
	"strings"
)

// StopReason is why an entry waits for a person. The set is closed: a
// ledger whose `stop:` names anything else is malformed (ledger/delivery).
type StopReason string

// Stop reasons. docs/ledger.md documents each with the request that clears
// it; every reason has a row in stopTable.
const (
	StopAllowance         StopReason = "allowance"
	StopStagnation        StopReason = "stagnation"
	StopMisses            StopReason = "misses"
	StopNoEscalationModel StopReason = "no-escalation-model"
	StopNeeds             StopReason = "needs"
	StopInterrupted       StopReason = "interrupted"
	StopBoundary          StopReason = "boundary"
	StopSeedRefused       StopReason = "seed-refused"
	StopSpecChanged       StopReason = "spec-changed"
	StopSpecIllegal       StopReason = "spec-illegal"
	StopSpecGone          StopReason = "spec-gone"
	StopClosed            StopReason = "closed"
	StopConflict          StopReason = "conflict"
	StopMergeUnknown      StopReason = "merge-unknown"
	StopIterations        StopReason = "iterations"
	StopChecksRed         StopReason = "checks-red"
	StopChecksSilent      StopReason = "checks-silent"
	StopReviewerSilent    StopReason = "reviewer-silent"
	StopRetargeted        StopReason = "retargeted"
	StopForeignPR         StopReason = "foreign-pr"
	StopVerifyFailed      StopReason = "verify-failed"
	StopStuck             StopReason = "stuck"
	StopHarnessError      StopReason = "harness-error"
	StopNoCredential      StopReason = "no-credential"
	StopLedgerMalformed   StopReason = "ledger-malformed"
	StopChain             StopReason = "chain"
	// StopLegClosed: a coordinated entry's leg was closed unmerged while
	// another leg's pull request is merged; the detail names both.
	StopLegClosed StopReason = "leg-closed"
	StopTampered  StopReason = "tampered"
	// StopBudget stops an entry whose agents have spent its budget.
	StopBudget StopReason = "budget"
	// StopNotPushable stops an entry whose spec adopts a pull request
	// gallivant may not push to (or that is not open); the detail says why.
	StopNotPushable StopReason = "not-pushable"
)

// stopInfo is what the rules know of one stop reason: whether it is a row
// stop, which request kinds clear it, and what to recommend.
type stopInfo struct {
	row bool
	// clears lists the request forms that clear the stop, as a person
	// writes them; empty when only an edit of a document does.
	clears []string
	// recommend renders the recommendation; target is the stopped row.
	recommend func(l *Ledger, target int) string
}

func fixed(s string) func(*Ledger, int) string { return func(*Ledger, int) string { return s } }

var (
	rowClears = []string{"retry <row> | <hint>", "rows +N"}
	// Raising the allowance opens no new stagnation or miss window and
	// supplies nothing a row needs (L-40): only a retry clears those.
	retryClears  = []string{"retry <row> | <hint>"}
	resumeClears = []string{"resume | <why>"}
)

// stopTable is the single source of every stop's clearing requests and
// recommendation, so that what a stop says and what clears it cannot drift
// apart (a test pastes each recommendation as a request and applies it).
var stopTable = map[StopReason]stopInfo{
	StopAllowance: {row: true, clears: rowClears, recommend: func(l *Ledger, t int) string {
		if w, ok := l.waveStopped(); ok {
			return fmt.Sprintf("rows +1 | <why> - wave %d cannot finish (%s); raising the allowance every task and row shares runs the wave again", w.Wave, w.Detail)
		}
		return fmt.Sprintf("retry %d | <hint> - one more attempt for row %d with guidance; rows +N raises every row's allowance instead", t, t)
	}},
	StopStagnation: {row: true, clears: retryClears, recommend: func(l *Ledger, t int) string {
		return fmt.Sprintf("retry %d | <hint> - the agent is not changing anything without new guidance", rowOr(l, t))
	}},
	StopMisses: {row: true, clears: retryClears, recommend: func(l *Ledger, t int) string {
		return fmt.Sprintf("retry %d | <hint> - the agent broke the return contract twice; a hint opens a new window", rowOr(l, t))
	}},
	StopNeeds: {row: true, clears: retryClears, recommend: func(l *Ledger, t int) string {
		return fmt.Sprintf("retry %d | <hint> - supply what the row needs, then say so in the hint", rowOr(l, t))
	}},
	StopNoEscalationModel: {row: true, clears: []string{"resume | <why> (after setting executor.escalation_model)", "retry <row> | <hint>", "rows +N"},
		recommend: fixed("resume | <why> - after setting executor.escalation_model in gallivant.yaml")},
	StopInterrupted: {clears: resumeClears, recommend: fixed("resume | <why> - admits a return already on the work branch, else runs the same dispatch again without a new count")},
	StopBoundary:    {clears: resumeClears, recommend: fixed("resume | <why> - accepts the work branch as it is, keeping every commit")},
	StopSeedRefused: {clears: resumeClears, recommend: fixed("resume | <why> - dispatches the seed again from the work branch as it is")},
	StopHarnessError: {clears: resumeClears,
		recommend: fixed("resume | <why> - after fixing the executor (see its log); runs the same dispatch again without a new count")},
	StopClosed: {clears: resumeClears,
		recommend: fixed("resume | <why> - reopens the pull request (or opens a new one when GitHub refuses) and watches it again")},
	StopLegClosed: {clears: resumeClears,
		recommend: fixed("resume | <why> - reopens the closed leg's pull request (or opens a new one for that leg when GitHub refuses); reopening it by hand resumes the entry by itself")},
	StopConflict: {clears: resumeClears,
		recommend: fixed("resume | <why> - after merging the base into the work branch; the loop also resumes by itself once GitHub reports no conflict")},
	StopIterations: {clears: resumeClears,
		recommend: fixed("resume | <why> - after raising defaults.max_rounds in gallivant.yaml; the round count is kept")},
	StopChecksRed: {clears: resumeClears,
		recommend: fixed("resume | <why> - after a person fixed or re-ran the checks; a new push is followed without a request")},
	StopChecksSilent: {clears: resumeClears,
		recommend: fixed("resume | <why> - after making CI run on the work branch (or setting checks: none for a target without CI); the wait starts again")},
	StopReviewerSilent: {clears: resumeClears,
		recommend: fixed("resume | <why> - restarts the reviewer clock; or set another reviewer in gallivant.yaml")},
	StopRetargeted: {clears: resumeClears,
		recommend: fixed("resume | <why> - after pointing the pull request back at the spec's base; or change the spec's base and resnapshot")},
	StopNotPushable: {clears: resumeClears,
		recommend: fixed("resume | <why> - after letting maintainers edit the pull request (or reopening it, or pushing its branch to the spec's repository); the pull request is read again")},
	StopForeignPR: {clears: resumeClears,
		recommend: fixed("resume | <why> - after closing the pull request gallivant did not open (or renaming its branch); the loop then opens its own")},
	StopVerifyFailed: {clears: resumeClears,
		recommend: fixed("resume | <why> - after fixing what the verification reports (or the Verify command in the spec); it runs again on the work branch's head")},
	StopSpecChanged: {clears: []string{"resnapshot | <why>"}, recommend: fixed("resnapshot | <why> - accepts the edited spec; or revert the edit")},
	StopStuck:       {clears: []string{"recheck"}, recommend: fixed("recheck - after fixing what GitHub refused")},
	StopMergeUnknown: {clears: []string{"recheck"},
		recommend: fixed("recheck - asks GitHub for the pull request's mergeability again")},
	StopSpecIllegal:     {recommend: fixed("none - fix the spec's errors (gallivant check); the entry resumes by itself")},
	StopSpecGone:        {recommend: fixed("none - restore the spec (the entry resumes by itself), or delete the ledger to abandon the entry")},
	StopNoCredential:    {recommend: fixed("none - give gallivant a token (github.token_env) that can write the target repository")},
	StopLedgerMalformed: {recommend: fixed("none - repair the ledger (gallivant check names the line)")},
	StopChain:           {recommend: fixed("none - restore the chain's order, or start a new chain")},
	StopBudget: {clears: []string{"budget +<amount> | <why>"},
		recommend: fixed("budget +100000 tokens | <why> - raises the budget by that amount (<n> tokens or $<dollars>); the entry goes on")},
	StopTampered: {clears: []string{"accept | <why>"},
		recommend: fixed("accept | <why> - accepts a person's edit of the ledger's reconciler-owned sections as the entry's state (gallivant verify shows it); to undo the edit instead, restore those sections in the same commit")},
}

// rowOr returns target, or the row the loop would dispatch next when the
// stop names no row.
func rowOr(l *Ledger, target int) int {
	if target > 0 {
		return target
	}
	if t := l.Target(); t > 0 {
		return t
	}
	return 1
}

// Known reports whether r is one of the stop reasons.
func (r StopReason) Known() bool {
	_, ok := stopTable[r]
	return ok
}

// StopReasons returns every stop reason, sorted.
func StopReasons() []StopReason {
	out := make([]StopReason, 0, len(stopTable))
	for r := range stopTable {
		out = append(out, r)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// StopText renders what a stop says to a person (L-74): a header, the
// problem quoted verbatim from the ledger, every open or failed row as
// `row <n>: <attempts> of <effective allowance>`, the sentence
// `Preserve every row's attempts.`, and a recommendation naming the request
// that clears the stop.
func StopText(l *Ledger, reason StopReason, detail string, target int) string {
	var b strings.Builder
	row := stopTable[reason].row
	switch {
	case target > 0 && row:
		fmt.Fprintf(&b, "Stopped on row %d (%s)\n", target, reason)
	default:
		fmt.Fprintf(&b, "Stopped: %s\n", detail)
	}
	if r, ok := l.Row(target); ok && target > 0 {
		last := "none"
		if ds := l.RowDecisions(target); len(ds) > 0 {
			last = ds[len(ds)-1].Line
		}
		fmt.Fprintf(&b, "Problem: evidence %q; last decision %q\n", r.Evidence, last)
	} else if detail != "" && row {
		fmt.Fprintf(&b, "Problem: %s\n", detail)
	}
	for _, r := range l.Rows {
		if r.Status.Unresolved() {
			fmt.Fprintf(&b, "row %d: %d of %d\n", r.N, r.Attempts, l.EffectiveAllowance(r.N))
		}
	}
	b.WriteString("Preserve every row's attempts.\n")
	if target > 0 && l.Escalated(target) && l.Delivery.Model == "" {
		b.WriteString("escalated round spent\n")
	}
	b.WriteString("Recommendation: " + Recommendation(l, reason, target) + "\n")
	return b.String()
}

// ClearingRequests names the request forms that clear a stop; nil when
// only an edit of a document clears it.
func ClearingRequests(reason StopReason) []string {
	return stopTable[reason].clears
}

// Recommendation says which request clears a stop and why, or `none -
// why`. The part before ` - ` is a request that parses and that
// ApplyRequest accepts at this stop (once a hint replaces `<hint>`).
func Recommendation(l *Ledger, reason StopReason, target int) string {
	if info, ok := stopTable[reason]; ok {
		return info.recommend(l, target)
	}
	return "none - a person must look at this entry"
}
