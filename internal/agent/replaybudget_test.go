package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// The evidence replay of one Verify is bounded by executor.replay_budget:
// a command that outlasts it is stopped, and the result names it and every
// command after it as not run — never a pass, never a silent skip. The
// Verify commands before the replay do not count against it.
func TestVerifyReplayBudget(t *testing.T) {
	t.Parallel()
	remote := goModuleRemote(t)
	task := Task{Spec: "specs/calc.md", Repo: "acme/calc", CloneURL: remote, Branch: "gallivant/feature", Base: "main", DefaultBranch: "main"}
	tests := []struct {
		name       string
		budget     time.Duration
		replay     []string
		passed     bool
		overBudget bool
		runs       []string // the commands recorded as run
		notRun     []string
	}{
		{"a command outlasts the budget", 300 * time.Millisecond,
			[]string{"sleep 60", "test -f go.mod"}, false, true, nil, []string{"sleep 60", "test -f go.mod"}},
		{"the budget stops the run after a quick command", 3 * time.Second,
			[]string{"test -f go.mod", "sleep 60", "test -f calc/calc.go"}, false, true, []string{"test -f go.mod"}, []string{"sleep 60", "test -f calc/calc.go"}},
		{"within the budget", time.Hour,
			[]string{"test -f go.mod", "test -f calc/calc.go"}, true, false, []string{"test -f go.mod", "test -f calc/calc.go"}, nil},
		{"no budget", 0,
			[]string{"test -f go.mod"}, true, false, []string{"test -f go.mod"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := CommandExecutor{Timeout: 5 * time.Minute, ReplayBudget: tt.budget, WorkDir: t.TempDir(), Env: specs.DefaultAgentEnv}
			res, err := e.Verify(context.Background(), task, []string{"test -f go.mod"}, tt.replay)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.passed || res.OverBudget != tt.overBudget {
				t.Errorf("passed %v, over budget %v; want %v, %v\n%s", res.Passed, res.OverBudget, tt.passed, tt.overBudget, res.Tail)
			}
			var runs []string
			for _, r := range res.Runs {
				runs = append(runs, r.Command)
			}
			if diff := cmp.Diff(tt.runs, runs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.notRun, res.NotRun); diff != "" {
				t.Errorf("not run (-want +got):\n%s", diff)
			}
			if !tt.overBudget {
				return
			}
			if res.Command != tt.notRun[0] {
				t.Errorf("command %q, want %q", res.Command, tt.notRun[0])
			}
			if !strings.Contains(res.Tail, "executor.replay_budget, "+tt.budget.String()+", was spent") {
				t.Errorf("tail does not name the budget:\n%s", res.Tail)
			}
			log, err := os.ReadFile(filepath.Join(e.WorkDir, "logs", "calc-verify.log"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "executor.replay_budget ("+tt.budget.String()+") spent; not run:") {
				t.Errorf("the log does not record the spent budget:\n%s", log)
			}
		})
	}
}
