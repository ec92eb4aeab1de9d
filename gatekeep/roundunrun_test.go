package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// Issues 27 and 33, R-21: a round whose agent failed for its environment
// answered nothing. It settles as RoundInterrupted does, and the
// checks-head its RoundStarted moved to the round's head goes back, so
// red checks or a conflict there are new again (no checks-red or
// conflict stop for a round that never ran); a checks-head of an earlier
// head stays.
func TestRoundNotRun(t *testing.T) {
	t.Parallel()
	started := func(checksHead string) *ledger.Ledger {
		l := reviewLedger(t).Clone()
		l.Delivery.Round = 2
		l.Delivery.Head = head
		l.Delivery.ChecksHead = checksHead
		l.Delivery.DispatchedAt = ledger.Stamp(now1)
		l.Delivery.RoundSince = mustCursor(t, "2026-11-30T11:59:00Z 7")
		return l
	}
	tests := []struct {
		name string
		l    *ledger.Ledger
		want map[string]string
	}{
		{"a round on red checks", started(head),
			map[string]string{"round": "1", "dispatched-at": "", "since": "2026-11-30T10:00:00Z", "round-since": "", "head": head, "checks-head": ""}},
		{"checks answered on an earlier head", started(old),
			map[string]string{"round": "1", "dispatched-at": "", "since": "2026-11-30T10:00:00Z", "round-since": "", "head": head, "checks-head": old}},
		{"no checks ever answered", started(""),
			map[string]string{"round": "1", "dispatched-at": "", "since": "2026-11-30T10:00:00Z", "round-since": "", "head": head, "checks-head": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.l.Delivery.ChecksHead
			n, c := RoundNotRun(tt.l, pr1)
			if want := "loop: empty round 2 acme/api#1"; c.Subject != want {
				t.Errorf("subject %q, want %q", c.Subject, want)
			}
			got := delivery(n)
			for k := range tt.want {
				if _, ok := got[k]; !ok {
					got[k] = ""
				}
			}
			sub := map[string]string{}
			for k := range tt.want {
				sub[k] = got[k]
			}
			if diff := cmp.Diff(tt.want, sub); diff != "" {
				t.Errorf("delivery (-want +got):\n%s", diff)
			}
			if tt.l.Delivery.Round != 2 || tt.l.Delivery.ChecksHead != before {
				t.Errorf("the input ledger changed: %+v", tt.l.Delivery)
			}
		})
	}
}
