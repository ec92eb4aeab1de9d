package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// `loop: withdraw` is legal exactly when it takes back the outstanding
// dispatch of the target it names and changes nothing else.
func TestWithdrawReplay(t *testing.T) {
	t.Parallel()
	running := fixture(t, "running.md")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	dispatched, _ := ledger.Dispatch(mustParse(t, running), ledger.Action{Target: 2, Member: "home"}, strings.Repeat("a", 40), now)
	withdrawn, c, err := ledger.Withdraw(dispatched, `the agent could not authenticate: 401 "Invalid API key"`)
	if err != nil {
		t.Fatal(err)
	}
	before, after := ledger.Format(dispatched), ledger.Format(withdrawn)
	iteration := fmt.Sprintf("unavailable: iteration %d: ", dispatched.Iterations)
	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		want          []found
	}{
		{name: "withdraw", msg: c.Message(), before: before, after: after},
		{name: "withdraw of another row", msg: message("loop: withdraw row 1"), before: before, after: after, want: []found{{SectionSubject, lp}}},
		{name: "withdraw with nothing outstanding", msg: c.Message(), before: running, after: after, want: []found{{SectionHeader, lp}}},
		{name: "withdraw that also marks the row done", msg: c.Message(), before: before,
			after: edit(t, after, "| 2 | open | 0 |", "| 2 | done | 0 |"), want: []found{{SectionRows, lp}}},
		{name: "withdraw naming another iteration", msg: c.Message(), before: before,
			after: edit(t, after, iteration, "unavailable: iteration 99: "), want: []found{{SectionDelivery, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "withdraw" {
				t.Errorf("kind = %q, want withdraw", r.Kind)
			}
		})
	}
}
