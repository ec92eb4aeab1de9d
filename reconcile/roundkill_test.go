package reconcile

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
)

// recoveredRound is the executor of a cache whose reconciler was killed
// with a round's agent: the round's run record is found, nothing of it
// runs, and it pushed nothing — exactly what agent.Recover reports for an
// agent killed with its reconciler, and for one that answered nothing.
type recoveredRound struct{ agent.CommandExecutor }

func (x recoveredRound) Recover(ctx context.Context, t agent.Task) (agent.Recovery, error) {
	if t.Round > 0 {
		return agent.Recovery{Known: true, Outcome: agent.Outcome{Finished: true}}, nil
	}
	return x.CommandExecutor.Recover(ctx, t)
}

// R-21, found by the endurance soak (test/e2e TestEndurance): a review
// round whose reconciler died together with its agent is found by the
// next pass on the same cache through its run record. That record cannot
// tell a killed agent from one that answered nothing, so it is no answer:
// the round runs again with its feedback (never `empty round` past it),
// and no pull request is labelled ready past a comment nobody answered.
func TestKilledRoundRunsAgainWithItsFeedback(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	killed := true
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if killed && briefValues(task.Brief)["target"] == "round" {
			return errors.New("signal: killed")
		}
		return ScriptedAgent(func(string, int, string) Behavior { return Done })(ctx, dir, task)
	}
	r.pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.as("bob").comment(1, "Please also cover the zero case.")
	// The reconciler dies with the round's agent: nothing of the run's
	// outcome survives in the process.
	_, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			if point == "executor:after" {
				return errInjected
			}
			return nil
		}
	}).Pass(context.Background())
	if !errors.Is(err, errInjected) {
		t.Fatalf("the pass with the round did not die: %v", err)
	}
	killed = false
	recovering := func(o *Options) { o.Executor = recoveredRound{o.Executor.(agent.CommandExecutor)} }
	rep := r.pass(recovering)
	got := subjectsOf(rep)
	want := []string{"loop: empty round 1 acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1"}
	if len(got) < len(want) || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Fatalf("the killed round is not run again:\n got %v\nwant %v first\nnotes: %s", got, want, noteOf(rep))
	}
	if has(got, "loop: ready acme/api#1") {
		t.Errorf("labelled ready in the pass that re-ran the round: %v", got)
	}
	if last := r.runs[len(r.runs)-1].Brief; !strings.Contains(last, "Please also cover the zero case.") {
		t.Errorf("the re-run round's brief does not quote the comment:\n%s", last)
	}
	verifyControl(t, r)
}
