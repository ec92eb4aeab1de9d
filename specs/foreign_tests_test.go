package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A spec-kit or Kiro task may carry the commands that prove it on a
// `Tests:` detail line; they become the task's test commands as a
// gallivant task's **Tests:** bullets do, and their paths are not files the
// task writes.
func TestForeignTaskTestsLine(t *testing.T) {
	t.Parallel()
	type got struct {
		ID    string
		Files []string
		Tests []string
	}
	view := func(p *Plan) []got {
		var out []got
		for _, tk := range p.Tasks() {
			g := got{ID: tk.ID}
			for _, f := range tk.Files {
				g.Files = append(g.Files, f.Path)
			}
			for _, x := range tk.Tests {
				g.Tests = append(g.Tests, x.Kind+" "+x.Text)
			}
			out = append(out, g)
		}
		return out
	}
	tests := []struct {
		name   string
		format Format
		src    string
		want   []got
		errs   []string
	}{
		{"spec-kit", FormatSpecKit,
			"## Phase 1: Story\n\n- [ ] T001 [P] [US1] Count in ratelimit/window.go\n  - Tests: `go test ./ratelimit -run TestWindow`\n- [ ] T002 [P] [US1] Answer in ratelimit/respond.go\n  - _Tests:_ `pytest tests/test_respond.py::test_429`, `go vet ./ratelimit`\n",
			[]got{
				{ID: "T001", Files: []string{"ratelimit/window.go"}, Tests: []string{"command go test ./ratelimit -run TestWindow"}},
				{ID: "T002", Files: []string{"ratelimit/respond.go"}, Tests: []string{"command pytest tests/test_respond.py::test_429", "command go vet ./ratelimit"}},
			}, nil},
		{"kiro", FormatKiro,
			"# Implementation Plan\n\n- [ ] 1. Write export/csv.go\n  - **Tests:** `go test ./export -run TestCSV`\n  - _Requirements: 1.1_\n",
			[]got{{ID: "1", Files: []string{"export/csv.go"}, Tests: []string{"command go test ./export -run TestCSV"}}}, nil},
		{"no tests line", FormatKiro,
			"- [ ] 1. Write export/csv.go\n  - _Requirements: 1.1_\n",
			[]got{{ID: "1", Files: []string{"export/csv.go"}}}, nil},
		{"a tests line without a command", FormatSpecKit,
			"## Phase 1: Story\n\n- [ ] T001 [US1] Count in ratelimit/window.go\n  - Tests: run the window tests\n",
			[]got{{ID: "T001", Files: []string{"ratelimit/window.go"}}},
			[]string{"f/tasks.md:4:5 plan/tests-block"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, ds := ParseTasksFile(tt.format, File{Path: "f/tasks.md", Data: []byte(tt.src)})
			if diff := cmp.Diff(tt.errs, errorsOf(ds), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, view(p), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
		})
	}
}

// The commands are linted as a plan's are: no shell wrappers, and no `;`,
// which would cut the command gallivant replays after the last wave.
func TestForeignTaskTestsLint(t *testing.T) {
	t.Parallel()
	sp := &Spec{Path: "f/spec.md", ACs: []AC{{N: 1, ID: "US1.1"}}}
	tests := []struct{ line, want string }{
		{"`go test ./ratelimit -run TestWindow`", ""},
		{"`bash -c 'go test ./...'`", "f/tasks.md:4:12 plan/tests-block"},
		{"`go test ./a; go test ./b`", "f/tasks.md:4:12 plan/tests-block"},
	}
	for _, tt := range tests {
		src := "## Phase 1: Story\n\n- [ ] T001 [US1] Count in ratelimit/window.go\n  - Tests: " + tt.line + "\n"
		p, ds := ParseTasksFile(FormatSpecKit, File{Path: "f/tasks.md", Data: []byte(src)})
		if ds.HasErrors() {
			t.Fatalf("%s: parse: %v", tt.line, ds)
		}
		var want []string
		if tt.want != "" {
			want = []string{tt.want}
		}
		if diff := cmp.Diff(want, errorsOf(CheckPlan(p, PlanContext{Spec: sp})), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: diagnostics (-want +got):\n%s", tt.line, diff)
		}
	}
}

// Which executors run a plan's tasks: one rule for the pass and for why.
func TestRunsTasks(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]bool{"": true, ExecutorCommand: true, ExecutorClaudeCode: true, ExecutorCodex: true, ExecutorAider: true, ExecutorWorkflow: false, ExecutorNone: false} {
		if got := RunsTasks(kind); got != want {
			t.Errorf("RunsTasks(%q) = %v, want %v", kind, got, want)
		}
	}
}
