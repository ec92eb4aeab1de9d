package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
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
			if p := l.Delivery.PerMember[m]; p != nil && !p.PR.IsZero() && back == "" {
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
		if p := l.Delivery.PerMember[m]; p != nil && !p.PR.IsZero() {
			return m, p.PR.String(), true
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

// sharedHome returns the leg home is delivered with when the spec's own
// repository is also a leg's: they share one work branch, so one pull
// request (the leg's) attests both members' rows.
func sharedHome(sp *specs.Spec) (string, bool) {
	for _, lg := range sp.Legs {
		if strings.EqualFold(lg.Repo, sp.Repo) {
			return lg.Name, true
		}
	}
	return "", false
}

// DeliveringMembers are the members of a coordinated entry that get a pull
// request of their own, in membership order: each member that owns rows,
// except home when it shares a leg's repository (that leg's pull request
// attests home's rows too).
func DeliveringMembers(l *ledger.Ledger, sp *specs.Spec) []string {
	var out []string
	_, shared := sharedHome(sp)
	for _, m := range sp.Members() {
		if len(l.MemberRows(m)) == 0 || (m == specs.HomeMember && shared) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// LegViewFor is member's view of a coordinated entry as its pull request
// is judged: its keys (ledger.LegView), its verification — the leg's
// contract `- verification:` command, the spec's Verify for home, none
// otherwise — and, for the leg home shares a repository with, home's rows.
func LegViewFor(l *ledger.Ledger, sp *specs.Spec, member string) *ledger.Ledger {
	v := l.LegView(member)
	v.Verification = "none"
	for _, c := range LegVerification(sp, member) {
		if v.Verification == "none" {
			v.Verification = c
		} else {
			v.Verification += " && " + c
		}
	}
	if lg, ok := sharedHome(sp); ok && lg == member && len(l.MemberRows(specs.HomeMember)) > 0 {
		v.Also = []string{specs.HomeMember}
	}
	return v
}

// LegVerification are the commands a member's head is verified with.
func LegVerification(sp *specs.Spec, member string) []string {
	if member == specs.HomeMember {
		return sp.Verify
	}
	for _, lg := range sp.Legs {
		if lg.Name == member && lg.Verification != "" {
			return []string{lg.Verification}
		}
	}
	return nil
}

// AllCut reports whether every row a view attests is cut: that member has
// nothing to deliver whatever its work branch holds (another member may
// share the branch).
func AllCut(v *ledger.Ledger) bool {
	for _, r := range v.ViewRows() {
		if r.Status != ledger.Cut {
			return false
		}
	}
	return true
}
