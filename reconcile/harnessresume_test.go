package reconcile

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// A person's resume of a harness-error stop runs the same dispatch again
// with its dispatched-at restarted: a reconciler on another cache that
// passes while the rerun's agent works cannot see that run, and used to
// find the crashed dispatch's old time overdue and stop the entry
// `interrupted` under it (found by the endurance work of issue 33).
func TestHarnessErrorResumeIsNotOverdueElsewhere(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	scripted := r.agent
	crashed := false
	var other []string
	otherRan := false
	otherCache := t.TempDir()
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Pending.Target == 1 && !crashed {
			crashed = true
			return errors.New("exit status 139") // the executor's own failure
		}
		if task.Pending.Target == 1 && !otherRan {
			otherRan = true
			other = subjectsOf(r.pass(elsewhere(r, otherCache)))
		}
		return scripted(ctx, dir, task)
	}
	if got := subjectsOf(r.pass()); len(got) == 0 || got[len(got)-1] != "loop: stop harness-error" {
		t.Fatalf("the first pass: %v; want it to end in a harness-error stop", got)
	}
	r.clock.Advance(2 * time.Hour) // far past executor.timeout + grace of the crashed dispatch
	r.request(ledgerPath, "resume | the executor is fixed")
	got := subjectsOf(r.pass())
	if !otherRan {
		t.Fatalf("the resumed dispatch did not run again: %v", got)
	}
	if len(other) != 0 {
		t.Errorf("a reconciler on another cache, passing during the rerun, wrote %v; want nothing (the rerun is in flight)", other)
	}
	if !slices.Contains(got, "loop: record home row 1") || slices.Contains(got, "loop: stop interrupted") {
		t.Errorf("the resuming pass: %v; want the rerun's return recorded and no interrupted stop", got)
	}
	if n := len(r.runs); n != 3 {
		t.Errorf("%d agent runs (seed, the crashed row, its rerun); want 3", n)
	}
	verifyControl(t, r)
}
