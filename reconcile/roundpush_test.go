package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 33: a review round whose answer could not be pushed (a 5xx on the
// work-branch push, found by the soak with git faults; here on every try
// of the run, since a push that fails once is tried again) does not stop
// the entry harness-error, whose resume would run the round again: the
// answer is kept, the pass reports it and waits, and the next pass pushes
// the kept commit and records the round pushed without running its agent
// again.
func TestFailedRoundPushIsPushedByTheNextPass(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	inner := r.agent
	rounds := 0
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := inner(ctx, dir, task)
		if briefValues(task.Brief)["target"] == "round" {
			rounds++
			// The agent has committed; each try of its push meets a
			// 502 (the executor's three tries, pushTries).
			r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/api\.git/git-receive-pack$`, Kind: ghstandin.FaultStatus, Count: 3})
		}
		return err
	}
	r.pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.as("bob").comment(1, "Please also cover the zero case.")
	before := r.head(work)
	rep := r.pass()
	wantSubjects(t, rep, "loop: round 1 acme/api#1")
	if rounds != 1 || len(r.gh.Faults()) != 0 {
		t.Fatalf("%d rounds ran, faults left %+v: the push fault was not met", rounds, r.gh.Faults())
	}
	if !slices.ContainsFunc(problemsOf(rep), func(n Note) bool {
		return strings.Contains(n.Message, "the answer of round 1 of acme/api#1 could not be pushed") && strings.Contains(n.Message, "kept on refs/gallivant/recovery/")
	}) {
		t.Errorf("the failed push is not reported as a problem naming its kept commit: %+v", rep.Notes)
	}
	if got := r.head(work); got != before {
		t.Fatalf("the work branch moved to %s although the push failed", got)
	}

	rep = r.pass()
	got := subjectsOf(rep)
	if len(got) == 0 || got[0] != "loop: pushed round 1 acme/api#1" || has(got, "loop: stop harness-error") {
		t.Fatalf("the next pass's transitions are %v, want the kept answer pushed first\nnotes: %s", got, noteOf(rep))
	}
	if rounds != 1 {
		t.Errorf("the round's agent ran %d times, want once", rounds)
	}
	if r.head(work) == before {
		t.Errorf("the kept answer was not pushed: the work branch is still at %s", before)
	}
}
