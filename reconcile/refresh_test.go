package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 33: when a quiet mark expires (quietRefresh), the pull request is
// read in full again, and every read of it is conditional: with nothing
// changed on GitHub the full read is answered 304 throughout and costs no
// rate limit, whether the base's protection is readable (a 304) or
// answers 404 (remembered, not asked: required.go); the mark it leaves
// holds for the next pass.
func TestQuietRefreshCostsNothing(t *testing.T) {
	t.Parallel()
	for _, protected := range []bool{true, false} {
		name := "protected"
		if !protected {
			name = "unprotected"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(2, ""),
				"gallivant.yaml": rigConfig + "reviewer:\n  login: alice\n  rereview_minutes: 60\n  stall_hours: 48\n"})
			if protected {
				r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
			}
			pass := daemonPasses(t, r.reconciler())
			pass()
			r.as("ci-bot").status(r.head(work), "ci", "success")
			r.clock.Advance(time.Minute)
			pass()
			r.clock.Advance(5 * time.Minute)
			if rep := pass(); !strings.Contains(noteOf(rep), "unchanged since") {
				t.Fatalf("no quiet mark before the refresh: %s", noteOf(rep))
			}
			// One refresh: the reviewer's nudge (rereview_minutes: 60)
			// falls due at the next.
			r.clock.Advance(quietRefresh)
			r.gh.ResetLog()
			rep := pass()
			wantSubjects(t, rep)
			if strings.Contains(noteOf(rep), "unchanged since") {
				t.Fatalf("the pass after the mark expired skipped the full read: %s", noteOf(rep))
			}
			if d := detailReads(r); len(d) == 0 {
				t.Error("the refresh read no detail")
			}
			c := r.gh.Counts()
			if c.Counted != 0 || c.NotModified != c.Total {
				var got []string
				for _, q := range r.gh.Requests() {
					if !q.NotModified {
						got = append(got, q.Method+" "+q.Path+" "+q.Query)
					}
				}
				t.Errorf("the refresh made %d requests, %d answered 304, %d charged; want all 304: %q", c.Total, c.NotModified, c.Counted, got)
			}
			r.clock.Advance(time.Minute)
			if rep := pass(); !strings.Contains(noteOf(rep), "unchanged since") {
				t.Errorf("the refresh left no mark: %s", noteOf(rep))
			}
		})
	}
}
