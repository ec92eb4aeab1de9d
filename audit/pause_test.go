package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// `loop: request pause` and `loop: request unpause` (docs/requests.md)
// verify as any command does: the paused: line is exactly who paused from
// where, and an unpause needs a paused parent.
func TestPauseReplay(t *testing.T) {
	t.Parallel()
	before := edit(t, fixture(t, "running.md"), "phase: implement\n", "phase: review\npr: acme/shop#9\n")
	from := ledger.CommandOrigin{PR: ledger.PullRef{Repo: "acme/shop", Number: 9}, Login: "bob", CommentID: 4242, URL: "https://github.com/acme/shop/pull/9#issuecomment-4242"}
	perform := func(l *ledger.Ledger, line string) (*ledger.Ledger, string) {
		t.Helper()
		r, err := ledger.ParseRequest(line)
		if err != nil {
			t.Fatal(err)
		}
		n, c, err := ledger.ApplyCommand(l, r, from, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return n, c.Message() + "\nGallivant-Spec: specs/checkout.md\n"
	}
	pausedL, pauseMsg := perform(mustParse(t, before), "pause | the API freeze")
	paused := ledger.Format(pausedL)
	unpausedL, unpauseMsg := perform(pausedL, "unpause")
	unpaused := ledger.Format(unpausedL)
	if !strings.Contains(string(paused), "paused: @bob acme/shop#9\n") {
		t.Fatalf("the paused ledger has no paused: line:\n%s", paused)
	}
	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		want          []found
	}{
		{"the pause as performed", pauseMsg, before, paused, nil},
		{"the unpause as performed", unpauseMsg, paused, unpaused, nil},
		{"a pause naming someone else", pauseMsg, before, edit(t, paused, "paused: @bob", "paused: @carol"), []found{{SectionDelivery, lp}}},
		{"a pause that does more", pauseMsg, before, edit(t, paused, "phase: review\n", "phase: ready\n"), []found{{SectionDelivery, lp}}},
		{"an unpause of an entry not paused", unpauseMsg, before, unpaused, []found{{SectionRequests, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(res.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, res.Violations)
			}
		})
	}
}
