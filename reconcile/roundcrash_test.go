package reconcile

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// Issue 26: a review round whose agent failed keeps the feedback it was to
// answer. The entry stops harness-error; `resume` re-runs the round once
// the dispatch is over, and the pull request is never labelled ready while
// the comment is unanswered.
func TestCrashedRoundKeepsItsFeedback(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	crash := true
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if crash && briefValues(task.Brief)["target"] == "round" {
			return errors.New("the agent's process was killed")
		}
		return ScriptedAgent(func(string, int, string) Behavior { return Done })(ctx, dir, task)
	}
	r.pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.as("bob").comment(1, "Please also cover the zero case.")
	wantSubjects(t, r.pass(), "loop: round 1 acme/api#1", "loop: stop harness-error")
	crash = false
	r.request(ledgerPath, "resume | the agent's machine was rebooted")
	rep := r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: resume" || has(got, "loop: ready acme/api#1") {
		t.Fatalf("after the resume: %v", got)
	}
	r.clock.Advance(time.Hour) // past executor.timeout and grace: the failed dispatch is over
	rep = r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: empty round 1 acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1"}
	if len(got) < len(want) || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Fatalf("the round is not re-run after resume:\n got %v\nwant %v first\nnotes: %s", got, want, noteOf(rep))
	}
	if has(got, "loop: ready acme/api#1") {
		t.Errorf("labelled ready in the pass that re-ran the round: %v", got)
	}
	last := r.runs[len(r.runs)-1].Brief
	if !strings.Contains(last, "Please also cover the zero case.") {
		t.Errorf("the re-run round's brief does not quote the comment:\n%s", last)
	}
	if l := r.ledger(ledgerPath); l.Delivery.Round != 1 {
		t.Errorf("round %d, want 1", l.Delivery.Round)
	}
}
