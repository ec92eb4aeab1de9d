package ledger

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Withdraw takes back the outstanding dispatch and nothing else: no row's
// attempts, no decision, the escalation model kept for the dispatch that
// replaces it; the reason survives a format and parse, and the next
// dispatch clears it.
func TestWithdraw(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	base := mustParse(t, "testdata/roundtrip/midloop.md").Clone()
	base.settled()
	if _, _, err := Withdraw(base, "x"); !errors.Is(err, ErrNotPending) {
		t.Fatalf("withdraw with nothing outstanding: %v, want ErrNotPending", err)
	}
	escalated := base.Clone()
	escalated.delivery().Model = "big-model"
	for _, tc := range []struct {
		name, why, wantUnavailable string
		from                       *Ledger
	}{
		{"plain", `the agent could not authenticate: 401 "Invalid API key"`, `the agent could not authenticate: 401 "Invalid API key"`, base},
		{"escalated attempt", "the agent's CLI is not available: claude", "the agent's CLI is not available: claude", escalated},
		{"control characters and a long cause", "a\tb\x1b" + strings.Repeat("x", 500), "a b " + strings.Repeat("x", maxUnavailable-4) + "…", base},
		{"no cause", "", "the agent could not run", base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, _ := Dispatch(tc.from, Action{Target: 2, Member: "home", Model: tc.from.Delivery.Model}, strings.Repeat("a", 40), now)
			d.delivery().Reruns = 1
			n, c, err := Withdraw(d, tc.why)
			if err != nil {
				t.Fatal(err)
			}
			if c.Subject != "loop: withdraw row 2" || !strings.Contains(c.Sentence, "without a new attempt") {
				t.Errorf("commit %q / %q", c.Subject, c.Sentence)
			}
			want := tc.from.Clone()
			want.Iterations = d.Iterations
			want.delivery().Unavailable = "iteration " + strconv.Itoa(d.Iterations) + ": " + tc.wantUnavailable
			if diff := cmp.Diff(string(Format(want)), string(Format(n))); diff != "" {
				t.Errorf("withdrawn ledger (-want +got):\n%s", diff)
			}
			back, ds := Parse("plans/x-ledger.md", Format(n))
			if Fatal(ds) || len(ds) != 0 {
				t.Fatalf("the withdrawn ledger does not parse cleanly: %v", ds)
			}
			again, _ := Dispatch(back, Action{Target: 2, Member: "home"}, strings.Repeat("b", 40), now)
			if got := again.Delivery.Unavailable; got != "" {
				t.Errorf("the next dispatch kept unavailable: %q", got)
			}
		})
	}
}
