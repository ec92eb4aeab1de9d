package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
)

const closeSpec = "# Feature\n\n**Engine:** waves\n\n## Acceptance criteria\n1. Criterion 1 holds.\n2. Criterion 2 holds.\n\n## Verify\n- `test -d .`\n"

// closePlan's two tasks each write a check script and cite one criterion;
// the script is the task's test command.
const closePlan = "# Plan\n\n**Spec:** `specs/feature.md`\n**Verification:** `test -d .`\n\n## Wave 1 — Both\n\n" +
	"### Task 1: Make one hold\n\n**Spec:** § \"Acceptance criteria\" L6\n\n**Files:**\n- Test: `one.sh`\n\n**Tests:**\n- `sh one.sh`\n\n" +
	"### Task 2: Make two hold\n\n**Spec:** § \"Acceptance criteria\" L7\n\n**Files:**\n- Test: `two.sh`\n\n**Tests:**\n- `sh two.sh`\n\n" +
	"## Spec coverage\n\n| anchor | requirement (short) | owner |\n|---|---|---|\n| § \"Acceptance criteria\" L6 | criterion 1 | Task 1 |\n| § \"Acceptance criteria\" L7 | criterion 2 | Task 2 |\n"

// After the last wave each row is replayed on the head by the tests of the
// tasks that cite it: row 1's passes with a test selected and closes
// without an agent (loop: close rows by replay, its proof recorded); row
// 2's fails and goes to the row loop. Every transition replays.
func TestWavesCloseRowsByReplay(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": closeSpec, "plans/feature-plan.md": closePlan})
	scripts := map[string]struct{ file, body string }{
		// A script that reports as go test does: one test run and passed.
		"1": {"one.sh", "echo '=== RUN   TestOne'\necho '--- PASS: TestOne (0.00s)'\nprintf 'ok  \\texample.com/one\\t0.01s\\n'\n"},
		"2": {"two.sh", "echo 'criterion 2 does not hold' >&2\nexit 1\n"},
	}
	rows := r.agent
	r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
		if tk.PlanTask == "" {
			return rows(ctx, dir, tk)
		}
		s := scripts[tk.PlanTask]
		if err := answerTask(ctx, dir, tk, s.file); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, s.file), []byte(s.body), 0o644); err != nil {
			return err
		}
		_, err := gitIn(ctx, dir, "commit", "--quiet", "--amend", "--no-edit", "-a")
		return err
	}
	rep := r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: seed ledger", "loop: dispatch task 1", "loop: dispatch task 2", "loop: record task 1 done", "loop: record task 2 done", "loop: close rows by replay"}
	if len(got) < len(want) || !cmp.Equal(want, got[:len(want)]) {
		t.Fatalf("transitions (-want +got):\n%s\nnotes: %s\n%s", cmp.Diff(want, got), noteOf(rep), sentencesOf(rep))
	}
	if i := slices.IndexFunc(got, func(s string) bool { return s == "loop: dispatch row 1" }); i >= 0 {
		t.Errorf("row 1, closed by replay, was dispatched to an agent: %v", got)
	}
	if !slices.Contains(got, "loop: dispatch row 2") {
		t.Errorf("row 2, whose replay failed, was not dispatched to the row loop: %v\nnotes: %s\n%s", got, noteOf(rep), sentencesOf(rep))
	}
	head := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--format=%H", "-1", "--grep=^loop: task 2 done$", "gallivant/feature")
	closeMsg := run(t, r.control, "git", "log", "--format=%B", "-1", "--grep=^loop: close rows by replay$", "main")
	for _, s := range []string{
		"row 1 closed; row 2 left to the row loop",
		fmt.Sprintf("Gallivant-Proof: row 1 | %s | exit 0 | 1 test |", head),
		fmt.Sprintf("Gallivant-Proof: row 2 | %s | exit 1 |", head),
	} {
		if !strings.Contains(closeMsg, s) {
			t.Errorf("the close commit does not say %q:\n%s", s, closeMsg)
		}
	}
	l := r.ledger("plans/feature-ledger.md")
	row1, _ := l.Row(1)
	if row1.Status != ledger.Done || row1.Attempts != 0 || ledger.EvidenceCommand(row1.Evidence) != "sh one.sh" {
		t.Errorf("row 1 = %+v; want done by replay of `sh one.sh`, never dispatched", *row1)
	}
	if p, ok := l.ProofOf(1); !ok || !p.Proved() || p.Command != "sh one.sh" {
		t.Errorf("row 1's proof = %+v, %v; want the passing replay of `sh one.sh`", p, ok)
	}
	verifyControl(t, r)
}
