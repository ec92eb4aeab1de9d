package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 33, found by the endurance soak (seed 1796173468559773313, a
// review round ran to its end twice and its first answer never reached
// main): a round's answer whose work-branch push met one 503 was kept on
// its own cache for that cache's next pass. A reconciler on another cache,
// which cannot see that run record, found the round overdue past
// executor.timeout and the grace period, wrote `loop: empty round 1` and
// ran the round again. A push that fails on the network or on GitHub's
// side is now tried again in the run: the answer is on the work branch
// before the run ends, and the other cache's pass finds nothing to run
// again. The same holds for a row's return, which the other cache would
// have stopped `interrupted`.
func TestPushFailingOnceIsNotRunAgainByAnotherCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target string // the brief's target whose push meets the 503
		// prepare brings the entry to the dispatch whose push fails.
		prepare func(r *rig)
		// want is what the dispatch's own pass records from the
		// dispatch on.
		want []string
	}{
		{"round", "round", func(r *rig) {
			r.pass()
			r.as("ci-bot").status(r.head(work), "ci", "success")
			r.as("bob").comment(1, "Please also cover the zero case.")
		}, []string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1"}},
		{"row", "1", func(r *rig) {}, []string{"loop: dispatch row 1", "loop: record home row 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newDelivery(t, rigConfig)
			inner := r.agent
			runs, armed := 0, false
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				err := inner(ctx, dir, task)
				if briefValues(task.Brief)["target"] == tt.target {
					runs++
					if !armed {
						// The agent has committed; its push meets a 503.
						armed = true
						r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/api\.git/git-receive-pack$`, Kind: ghstandin.FaultStatus, Status: 503, Count: 1})
					}
				}
				return err
			}
			tt.prepare(r)
			rep := r.pass()
			if !armed || len(r.gh.Faults()) != 0 {
				t.Fatalf("the push fault was not met (armed %v, left %+v)", armed, r.gh.Faults())
			}
			got := subjectsOf(rep)
			if i := slices.Index(got, tt.want[0]); i < 0 || len(got[i:]) < len(tt.want) || !slices.Equal(got[i:i+len(tt.want)], tt.want) {
				t.Errorf("the dispatch's pass recorded %v, want %v in it: the failed push was not tried again\nnotes: %s", got, tt.want, noteOf(rep))
			}
			if slices.ContainsFunc(problemsOf(rep), func(n Note) bool { return strings.Contains(n.Message, "could not be pushed") }) {
				t.Errorf("a push that succeeded on its second try is reported as not made: %s", noteOf(rep))
			}

			// Long past executor.timeout and the grace period, a
			// reconciler on another cache passes.
			r.clock.Advance(2 * time.Hour)
			rep = r.pass(elsewhere(r, t.TempDir()))
			for _, s := range subjectsOf(rep) {
				if strings.HasPrefix(s, "loop: empty round") || strings.HasPrefix(s, "loop: stop interrupted") || strings.HasPrefix(s, "loop: rerun") {
					t.Errorf("the other cache's pass recorded %q: it took the pushed answer for none", s)
				}
			}
			if runs != 1 {
				t.Errorf("the %s's agent ran %d times, want once", tt.name, runs)
			}
		})
	}
}

// A work-branch push GitHub refuses for good (here a ruleset that wants
// changes through a pull request, set after the agent started) is noted
// with what GitHub said, so the person reading the pass learns why
// without the log.
func TestRefusedWorkPushQuotesGitHub(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	inner := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := inner(ctx, dir, task)
		if briefValues(task.Brief)["target"] == "1" {
			r.gh.Protect("acme/api", work, ghstandin.Protection{Ruleset: true, RequiredReviews: 1})
		}
		return err
	}
	rep := r.pass()
	note := noteOf(rep)
	for _, want := range []string{"could not be pushed", "GH013: Repository rule violations found for refs/heads/" + work, "Changes must be made through a pull request"} {
		if !strings.Contains(note, want) {
			t.Errorf("the pass's note lacks %q:\n%s", want, note)
		}
	}
}
