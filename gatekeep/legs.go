package gatekeep

import (
	"fmt"

	"github.com/gallivant/gallivant/ledger"
)

// A coordinated spec delivers one pull request per member (each leg, and
// home when it owns rows). Each member's pull request goes through the
// transitions of loop.go on its own view of the ledger (ledger.LegView);
// the rules here judge the members together: the entry is ready only when
// every member's pull request passes its gate, and done only when every one
// is merged.

// ReadyTogether reports whether the members whose pull requests passed
// their gate this pass (passed) may be labelled ready: every member not yet
// done is either ready already or passed. A member with no pull request
// yet, or one still in review without passing, holds every label back.
func ReadyTogether(l *ledger.Ledger, members []string, passed map[string]bool) bool {
	any := false
	for _, m := range members {
		switch l.LegPhase(m) {
		case ledger.PhaseDone, ledger.PhaseReady:
			continue
		}
		if !passed[m] {
			return false
		}
		any = true
	}
	return any
}

// UnreadyTogether returns the members labelled ready that must lose the
// label because another member is back in review (a new head, new
// feedback): a coordinated entry is ready as a whole or not at all.
func UnreadyTogether(l *ledger.Ledger, members []string) []string {
	var ready []string
	back := ""
	for _, m := range members {
		switch l.LegPhase(m) {
		case ledger.PhaseReady:
			ready = append(ready, m)
		case ledger.PhaseDone:
		default:
			if l.Delivery.Get(ledger.LegKey(ledger.KeyPR, m)) != "" && back == "" {
				back = m
			}
		}
	}
	if back == "" {
		return nil
	}
	return ready
}

// MergedMember returns a member, other than except, whose pull request is
// merged (phase done with a pull request), in members order.
func MergedMember(l *ledger.Ledger, members []string, except string) (member, pr string, ok bool) {
	for _, m := range members {
		if m == except || l.LegPhase(m) != ledger.PhaseDone {
			continue
		}
		if pr := l.Delivery.Get(ledger.LegKey(ledger.KeyPR, m)); pr != "" {
			return m, pr, true
		}
	}
	return "", "", false
}

// LegClosed is the stop of a coordinated entry one of whose members' pull
// requests was closed unmerged while another's is merged: the work is half
// delivered, and only a person can say whether the closed leg is reopened
// or replaced. The detail names both legs and what to do.
func LegClosed(l *ledger.Ledger, closed string, pr PR, merged, mergedPR string) (*ledger.Ledger, ledger.Commit) {
	return ledger.Stop(l, ledger.StopLegClosed, fmt.Sprintf("leg %s's pull request %s was closed without merging while leg %s's %s is merged; reopen %s (the entry resumes by itself), or write resume | <why> to reopen it or open a new one for leg %s",
		closed, pr, merged, mergedPR, pr, closed), 0)
}
