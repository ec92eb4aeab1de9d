package ledger

import (
	"fmt"
	"strings"
)

// StopText renders what a stop says to a person (L-74): a header, the
// problem quoted verbatim from the ledger, every open or failed row as
// `row <n>: <attempts> of <effective allowance>`, the sentence
// `Preserve every row's attempts.`, and a recommendation naming the request
// that clears the stop.
func StopText(l *Ledger, reason, detail string, target int) string {
	var b strings.Builder
	switch {
	case target > 0 && rowStop(reason):
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
	} else if detail != "" && rowStop(reason) {
		fmt.Fprintf(&b, "Problem: %s\n", detail)
	}
	for _, r := range l.Rows {
		if r.Status.Unresolved() {
			fmt.Fprintf(&b, "row %d: %d of %d\n", r.N, r.Attempts, l.EffectiveAllowance(r.N))
		}
	}
	b.WriteString("Preserve every row's attempts.\n")
	if target > 0 && l.Escalated(target) && l.Delivery.Get(KeyModel) == "" {
		b.WriteString("escalated round spent\n")
	}
	b.WriteString("Recommendation: " + Recommendation(l, reason, target) + "\n")
	return b.String()
}

func rowStop(reason string) bool {
	switch reason {
	case "allowance", "stagnation", "misses", "no-escalation-model", "needs":
		return true
	}
	return false
}

// ClearingRequests names the request forms that clear a stop.
func ClearingRequests(reason string) []string {
	switch reason {
	case "allowance", "stagnation", "misses", "needs":
		return []string{"retry <row> | <hint>", "rows +N"}
	case "no-escalation-model":
		return []string{"resume | <why> (after setting executor.escalation_model)", "retry <row> | <hint>", "rows +N"}
	case "interrupted", "boundary", "seed-refused", "harness-error",
		"closed", "conflict", "iterations", "checks-red", "reviewer-silent":
		return []string{"resume | <why>"}
	case "spec-changed":
		return []string{"resnapshot | <why>"}
	case "stuck", "merge-unknown":
		return []string{"recheck"}
	}
	return nil
}

// Recommendation says which request clears a stop and why, or `none - why`.
func Recommendation(l *Ledger, reason string, target int) string {
	switch reason {
	case "allowance":
		return fmt.Sprintf("retry %d | <hint> - one more attempt for row %d with guidance; rows +N raises every row's allowance instead", target, target)
	case "stagnation":
		return fmt.Sprintf("retry %d | <hint> - the agent is not changing anything without new guidance", target)
	case "misses":
		return fmt.Sprintf("retry %d | <hint> - the agent broke the return contract twice; a hint opens a new window", max(target, l.Target()))
	case "needs":
		return fmt.Sprintf("retry %d | <hint> - supply what the row needs, then say so in the hint", target)
	case "no-escalation-model":
		return "none - set executor.escalation_model in gallivant.yaml, then add resume | <why>"
	case "interrupted":
		return "resume | <why> - runs the same dispatch again without a new count"
	case "boundary":
		return "resume | <why> - accepts the work branch as it is, keeping every commit"
	case "seed-refused":
		return "resume | <why> - dispatches the seed again from the work branch as it is"
	case "spec-changed":
		return "resnapshot | <why> - accepts the edited spec; or revert the edit"
	case "stuck":
		return "recheck - after fixing what GitHub refused"
	case "merge-unknown":
		return "recheck - asks GitHub for the pull request's mergeability again"
	case "closed":
		return "resume | <why> - after reopening the pull request; the loop watches it again"
	case "conflict":
		return "resume | <why> - after merging the base into the work branch; the loop also resumes by itself once GitHub reports no conflict"
	case "iterations":
		return "resume | <why> - after raising defaults.max_rounds in gallivant.yaml; the round count is kept"
	case "checks-red":
		return "resume | <why> - after a person fixed or re-ran the checks; a new push is followed without a request"
	case "reviewer-silent":
		return "resume | <why> - restarts the reviewer clock; or set another reviewer in gallivant.yaml"
	case "spec-illegal":
		return "none - fix the spec's errors (gallivant check)"
	case "spec-gone":
		return "none - restore the spec, or delete the ledger to abandon the entry"
	}
	return "none - a person must look at this entry"
}
