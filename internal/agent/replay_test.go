package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/evidence"
	"github.com/gallivant/gallivant/specs"
)

// goModuleRemote is a bare repository whose gallivant/feature branch holds
// a real Go module with one passing test, TestAdd.
func goModuleRemote(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/calc\n\ngo 1.22\n",
		"calc/calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"Add(2, 2) != 4\")\n\t}\n}\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, src, "init", "--quiet", "--initial-branch=main")
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "init")
	gitIn(t, src, "branch", "gallivant/feature")
	bare := filepath.Join(t.TempDir(), "calc.git")
	gitIn(t, src, "clone", "--quiet", "--bare", src, bare)
	return bare
}

// Evidence replay runs each command in the verify checkout and reads what
// its runner selected: a filter that selects no test fails the run like a
// failing command, with the exit status, the selection and the output's
// tail; a plain assertion is judged by its exit status.
func TestVerifyReplaysEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH")
	}
	remote := goModuleRemote(t)
	e := CommandExecutor{Timeout: 5 * time.Minute, WorkDir: t.TempDir(), Env: append([]string{"GOCACHE", "GOPATH", "GOMODCACHE", "GOROOT", "GOFLAGS"}, specs.DefaultAgentEnv...)}
	task := Task{Spec: "specs/calc.md", Repo: "acme/calc", CloneURL: remote, Branch: "gallivant/feature", Base: "main", DefaultBranch: "main"}
	tests := []struct {
		name       string
		replay     []string
		passed     bool
		runs       int
		selections []evidence.Selection
		tail       []string
	}{
		{"a filter that selects the test", []string{"go test ./calc -run 'TestAdd$'", "test -f calc/calc.go"}, true, 2,
			[]evidence.Selection{{Runner: evidence.GoTest, Tests: 1, AtLeast: true}, {}}, nil},
		{"a filter that selects no test", []string{"go test ./calc -run TestDoesNotExist", "test -f calc/calc.go"}, false, 1,
			[]evidence.Selection{{Runner: evidence.GoTest}}, []string{"exit status 0, 0 tests", "[no tests to run]", "for example go test ./calc -run 'TestAdd$'"}},
		{"an assertion that fails", []string{"grep -q Subtract calc/calc.go"}, false, 1,
			[]evidence.Selection{{}}, []string{"exit status 1, assertion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Verify(context.Background(), task, []string{"test -f go.mod"}, tt.replay)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.passed || len(res.Runs) != tt.runs {
				t.Fatalf("passed %v with %d runs, want %v with %d: %+v\n%s", res.Passed, len(res.Runs), tt.passed, tt.runs, res.Runs, res.Tail)
			}
			for i, want := range tt.selections {
				if got := res.Runs[i].Selection; got != want {
					t.Errorf("run %d (%s) selected %+v, want %+v", i, res.Runs[i].Command, got, want)
				}
			}
			if !tt.passed && res.Command != tt.replay[0] {
				t.Errorf("failing command %q, want %q", res.Command, tt.replay[0])
			}
			for _, want := range tt.tail {
				if !strings.Contains(res.Tail, want) {
					t.Errorf("tail lacks %q:\n%s", want, res.Tail)
				}
			}
		})
	}
}
