package reconcile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
)

const wavesSpec = "# Feature\n\n**Engine:** waves\n\n## Acceptance criteria\n1. Criterion 1 holds.\n\n## Verify\n- `test -d rows`\n"

const wavesPlan = "# Plan\n\n**Spec:** `specs/feature.md`\n**Verification:** `go test ./...`\n\n## Wave 1 — All of it\n\nSolo: lone remaining task\n\n### Task 1: Make it hold\n\n**Spec:** § \"Acceptance criteria\" L6\n\n**Files:**\n- Create: `feature.go`\n- Test: `feature_test.go`\n\n**Tests:**\n- `go test feature_test.go feature.go`\n\n## Spec coverage\n\n| anchor | requirement (short) | owner |\n|---|---|---|\n| § \"Acceptance criteria\" L6 | criterion 1 | Task 1 |\n"

// A waves spec is seeded only with a passing plan, and its agent is told
// where the plan is.
func TestWavesSpecNeedsAPassingPlan(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": wavesSpec})
	rep := r.pass()
	if len(rep.Transitions) != 0 || !strings.Contains(noteOf(rep), "a waves spec needs a plan (plans/feature-plan.md") {
		t.Fatalf("a waves spec without a plan moved: %v %s", subjectsOf(rep), noteOf(rep))
	}
	r.edit("plans/feature-plan.md", func(string) string { return strings.Replace(wavesPlan, "Solo: lone remaining task\n\n", "", 1) })
	rep = r.pass()
	if len(rep.Transitions) != 0 || !strings.Contains(noteOf(rep), "the plan plans/feature-plan.md has errors") {
		t.Fatalf("a failing plan let the spec start: %v %s", subjectsOf(rep), noteOf(rep))
	}
	r.edit("plans/feature-plan.md", func(string) string { return wavesPlan })
	rep = r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: seed ledger" {
		t.Fatalf("a passing plan did not start the spec: %v %s %v", got, noteOf(rep), rep.Diagnostics)
	}
	if brief := r.runs[len(r.runs)-1].Brief; !strings.Contains(brief, "plan: plans/feature-plan.md") {
		t.Errorf("the brief does not name the plan:\n%s", brief)
	}
}

// A waves spec's seed lists its plan's tasks in the ledger's ## Tasks
// section, every one open in its wave, and `gallivant verify` replays the
// seed that wrote them. (An executor that only records dispatches runs no
// task, so the seed is what the ledger holds.)
func TestWavesSpecSeedsItsTasks(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": wavesSpec, "plans/feature-plan.md": wavesPlan})
	rep := r.pass(func(o *Options) { o.Executor = agent.NoneExecutor{} })
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: seed ledger" {
		t.Fatalf("the waves spec was not seeded: %v %s %v", got, noteOf(rep), rep.Diagnostics)
	}
	want := []ledger.Task{{ID: "1", Wave: 1, Status: ledger.TaskOpen}}
	if diff := cmp.Diff(want, r.ledger("plans/feature-ledger.md").Tasks); diff != "" {
		t.Errorf("seeded tasks (-want +got):\n%s", diff)
	}
	seed := run(t, r.control, "git", "log", "--reverse", "--format=%B", "-1", "--grep=^loop: seed ledger$", "main")
	if !strings.Contains(seed, "and 1 task in 1 wave of plans/feature-plan.md") {
		t.Errorf("the seed commit does not name the tasks it seeded:\n%s", seed)
	}
	verifyControl(t, r)
}
