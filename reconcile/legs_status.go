package reconcile

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// LegStatus is one member's pull request of a coordinated entry, as
// `gallivant status` shows it.
type LegStatus struct {
	Leg   string `json:"leg"`
	Repo  string `json:"repo,omitempty"`
	Phase string `json:"phase"`
	PR    string `json:"pr,omitempty"`
	Head  string `json:"head,omitempty"`
	Round int    `json:"round,omitempty"`
	// Lessons is the member's learn task once its pull request is merged
	// (docs/learning.md "Coordinated entries"); nil before one.
	Lessons *LessonsStatus `json:"lessons,omitempty"`
}

// legStatuses lists the members of a coordinated entry that own rows, in
// membership order, each with its own phase and pull request; nil for a
// single-repository entry.
func legStatuses(l *ledger.Ledger, sp *specs.Spec) []LegStatus {
	if sp == nil || !sp.Coordinated() {
		return nil
	}
	var out []LegStatus
	for _, m := range gatekeep.DeliveringMembers(l, sp) {
		v := l.LegView(m)
		repo, _ := sp.MemberRepo(m)
		out = append(out, LegStatus{Leg: m, Repo: repo, Phase: string(v.Phase()), PR: v.Delivery.PRText(),
			Head: v.Delivery.Head, Round: v.Delivery.Round, Lessons: lessonsStatus(v)})
	}
	return out
}

// String is the leg's status line.
func (ls LegStatus) String() string {
	s := fmt.Sprintf("leg %s (%s): %s", ls.Leg, ls.Repo, ls.Phase)
	if ls.PR != "" {
		s += fmt.Sprintf("  %s at %s, round %d", ls.PR, short(ls.Head), ls.Round)
	}
	if ls.Lessons != nil {
		s += "; lessons: " + ls.Lessons.Words
	}
	return s
}

// explainLegs is explainDelivery for a coordinated entry: each member's
// pull request on its own lines, then what the legs wait for together.
func (s *Snapshot) explainLegs(l *ledger.Ledger, sp *specs.Spec) []string {
	out := []string{"coordinated: one pull request per leg, labelled ready together, done when every leg is merged"}
	for _, ls := range legStatuses(l, sp) {
		out = append(out, ls.String())
		v := l.LegView(ls.Leg)
		for _, line := range append(s.deliveryFacts(v), s.recordedNext(v)) {
			out = append(out, "  "+strings.Replace(line, "next: open a pull request", "next: open its pull request", 1))
		}
	}
	return out
}
