package reconcile

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// ledgerAt is a ledger in phase ph with the given delivery values.
func ledgerAt(ph ledger.Phase, kv ...string) *ledger.Ledger {
	var lines []string
	for i := 0; i+1 < len(kv); i += 2 {
		lines = append(lines, kv[i]+": "+kv[i+1])
	}
	d, err := ledger.ParseDeliveryLines(lines...)
	if err != nil {
		panic(err)
	}
	d.Phase = ph
	return &ledger.Ledger{Delivery: d}
}

// The chain rule as a table (R-46, R-47; issue 26: a cancelled chain stops
// its future milestones only).
func TestChainHold(t *testing.T) {
	t.Parallel()
	chain := func(st specs.Status) *specs.Chain {
		return &specs.Chain{Path: "chains/launch.md", Status: st, Milestones: []specs.Milestone{{Path: "specs/one.md"}, {Path: "specs/two.md"}}}
	}
	at := func(st specs.Status, k int) specs.ChainPos { return specs.ChainPos{Chain: chain(st), K: k} }
	one := &specs.Spec{Path: "specs/one.md", Status: specs.StatusActive}
	done := ledgerAt(ledger.PhaseDone, ledger.KeyPR, "acme/api#1")
	type want struct {
		Held  bool
		Why   string
		Merge bool
	}
	tests := []struct {
		name string
		f    chainFacts
		want want
	}{
		{"not chained", chainFacts{}, want{}},
		{"first milestone of a paused chain", chainFacts{Pos: at(specs.StatusPaused, 1)}, want{}},
		{"active, predecessor done: ask GitHub", chainFacts{Pos: at(specs.StatusActive, 2), Seeded: true, Prev: one, PrevLedger: done}, want{Merge: true}},
		{"active, future milestone, predecessor done", chainFacts{Pos: at(specs.StatusActive, 2), Prev: one, PrevLedger: done}, want{Merge: true}},
		{"paused holds a seeded milestone", chainFacts{Pos: at(specs.StatusPaused, 2), Seeded: true, Prev: one, PrevLedger: done},
			want{Held: true, Why: "chain chains/launch.md is paused"}},
		{"cancelled holds a future milestone", chainFacts{Pos: at(specs.StatusCancelled, 2), Prev: one, PrevLedger: done},
			want{Held: true, Why: "chain chains/launch.md is cancelled"}},
		{"cancelled lets the milestone under way finish", chainFacts{Pos: at(specs.StatusCancelled, 2), Seeded: true, Prev: one, PrevLedger: done}, want{Merge: true}},
		{"cancelled still holds the milestone under way behind an unmerged predecessor",
			chainFacts{Pos: at(specs.StatusCancelled, 2), Seeded: true, Prev: one, PrevLedger: ledgerAt(ledger.PhaseReady, ledger.KeyPR, "acme/api#1")},
			want{Held: true, Why: "waits for milestone 1 of chains/launch.md (specs/one.md, acme/api#1) to be merged"}},
		{"reordered", chainFacts{Pos: at(specs.StatusActive, 2), Seeded: true, Changed: "specs/one.md moved", Prev: one, PrevLedger: done},
			want{Held: true, Why: "refused: specs/one.md moved"}},
		{"predecessor cancelled", chainFacts{Pos: at(specs.StatusActive, 2), Prev: &specs.Spec{Path: "specs/one.md", Status: specs.StatusCancelled}},
			want{Held: true, Why: "chain chains/launch.md is stopped: milestone 1 (specs/one.md) is cancelled"}},
		{"predecessor not seeded", chainFacts{Pos: at(specs.StatusActive, 2), Prev: one},
			want{Held: true, Why: "waits for milestone 1 of chains/launch.md (specs/one.md) to be seeded and merged"}},
		{"predecessor stopped", chainFacts{Pos: at(specs.StatusActive, 2), Prev: one, PrevLedger: ledgerAt(ledger.PhaseReview, ledger.KeyStop, "closed | acme/api#1 was closed")},
			want{Held: true, Why: "chain chains/launch.md is stopped: milestone 1 (specs/one.md) stopped closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got want
			got.Held, got.Why, got.Merge = chainHold(tt.f)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chainHold (-want +got):\n%s", diff)
			}
		})
	}
}
