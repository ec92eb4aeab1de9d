package reconcile

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
)

// Issue 33: the `interrupted` stops the soak's person answered. A pass
// ran a row's agent, which failed, and committed `loop: stop
// harness-error`; its push lost the race to another writer of the control
// branch, and the re-planned attempt had dropped the run's outcome (the
// executor had removed its run record when the run ended): it waited for
// a return that could never come, and a pass after the timeout stopped
// the entry `interrupted`, which no run record's owner could clear. The
// re-planned attempt settles the run from the outcome the lost attempt
// consumed: the same harness-error stop, naming the agent's error.
func TestReplanKeepsTheOutcomeItsLostAttemptSettled(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, ""), "notes.md": "notes\n"})
	inner := r.agent
	raced := false
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Pending.Target != 2 {
			return inner(ctx, dir, task)
		}
		if !raced {
			// While the agent runs, another writer moves the control
			// branch: the pass's next push is rejected.
			raced = true
			r.edit("notes.md", func(s string) string { return s + "more\n" })
		}
		return errors.New("the agent's model refused the task")
	}
	rep := r.pass()
	if !raced {
		t.Fatalf("row 2 never ran: %v", subjectsOf(rep))
	}
	if rep.Retries == 0 {
		t.Fatalf("the pass never re-planned: the test proves nothing; transitions %v", subjectsOf(rep))
	}
	got := subjectsOf(rep)
	if !slices.Contains(got, "loop: stop harness-error") {
		t.Fatalf("the re-planned pass's transitions are %v, want row 2's run settled `loop: stop harness-error`\nnotes: %s", got, noteOf(rep))
	}
	l := r.ledger(ledgerPath)
	reason, detail, stopped := l.Stop()
	if !stopped || reason != "harness-error" || !strings.Contains(detail, "the agent's model refused the task") {
		t.Errorf("the entry is stopped=%v %s: %s, want harness-error naming the agent's error", stopped, reason, detail)
	}
	rows := 0
	for _, task := range r.runs {
		if task.Pending.Target == 2 {
			rows++
		}
	}
	if rows != 1 {
		t.Errorf("row 2's agent ran %d times, want once", rows)
	}
	verifyControl(t, r)
}
