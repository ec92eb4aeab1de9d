package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// A live head the loop did not record (R-32, issue 10): the first look
// tells gallivant's own update-branch merge from a person's push by its
// parents and subject, not by its subject alone.
func TestDecideLiveHeadMoved(t *testing.T) {
	t.Parallel()
	const (
		recorded = "1111111111111111111111111111111111111111"
		merge    = "2222222222222222222222222222222222222222"
		baseHead = "3333333333333333333333333333333333333333"
		other    = "4444444444444444444444444444444444444444"
	)
	ours := HeadMove{Contains: true, Parents: []string{recorded, baseHead}, Subject: "Merge branch 'main' into gallivant/feature", BaseHead: baseHead}
	moved := func(phase ledger.Phase, m HeadMove) LiveFacts {
		return LiveFacts{PR: pr1, Phase: phase, BaseRef: "main", SpecBase: "main", HeadRef: "gallivant/feature", Head: merge, LedgerHead: recorded, Move: m}
	}
	change := func(change func(*HeadMove)) HeadMove {
		m := ours
		m.Parents = append([]string(nil), ours.Parents...)
		change(&m)
		return m
	}
	tests := []struct {
		name string
		f    LiveFacts
		want Action
	}{
		{"gallivant's update-branch merge is a base merge", moved(ledger.PhaseReview, ours), Action{Step: StepBaseMerged}},
		{"a look-alike whose second parent is not the base head is followed",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.Parents[1] = other })), Action{Step: StepFollow}},
		{"a look-alike whose first parent is not the recorded head is followed",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.Parents[0] = other })), Action{Step: StepFollow}},
		{"a merge of another branch is followed",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.Subject = "Merge branch 'dev' into gallivant/feature" })), Action{Step: StepFollow}},
		{"a base head that could not be read is no base merge",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.BaseHead = "" })), Action{Step: StepFollow}},
		{"an octopus merge is followed",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.Parents = append(m.Parents, other) })), Action{Step: StepFollow}},
		{"a plain commit is followed",
			moved(ledger.PhaseReview, HeadMove{Contains: true, Parents: []string{recorded}, Subject: "A person's change"}), Action{Step: StepFollow}},
		{"a head that does not contain the recorded one is rewritten",
			moved(ledger.PhaseReview, change(func(m *HeadMove) { m.Contains = false })), Action{Step: StepRewritten}},
		{"ready: a rewrite takes the label off and keeps the recorded head",
			moved(ledger.PhaseReady, HeadMove{}), Action{Step: StepUnready, Head: recorded, Detail: "its head was rewritten to 2222222"}},
		{"ready: a push takes the label off and records the new head",
			moved(ledger.PhaseReady, ours), Action{Step: StepUnready, Head: merge, Detail: "its head moved to 2222222"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DecideLive(tt.f)); diff != "" {
				t.Errorf("DecideLive (-want +got):\n%s", diff)
			}
		})
	}
}
