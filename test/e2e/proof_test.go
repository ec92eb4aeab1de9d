package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goAgent builds a real Go module in the target: its row commit writes
// go.mod and package calc with one test, TestAdd, and claims as evidence
// `go test ./calc -run $RUN`, where RUN is TestAdd for specs/honest.md and
// TestDoesNotExist (which selects no test) for specs/empty.md. A repair
// dispatch of row 1 answers with the same claim (an empty commit when
// nothing changed); any other dispatch answers nothing.
const goAgent = `#!/bin/sh
set -eu
get() { sed -n "s/^$1: //p" "$GALLIVANT_TASK" | head -n 1; }
target=$(get target); pending=$(get pending); iteration=$(get iteration); attempts=$(get attempts)
next=$((iteration + 1))
case "$GALLIVANT_SPEC" in *empty*) run=TestDoesNotExist ;; *) run=TestAdd ;; esac
if [ "$target" = seed ]; then
  printf 'loop: seed evidence\n\npending: %s\niteration: %s\n\n| 1 | open | 0 | go test ./calc -run %s; FAIL: missing |\n\nrow 0 done | seeded 1 rows, closed 0 on baseline | row 1\n' "$pending" "$next" "$run" | git commit --quiet --allow-empty -F -
elif [ "$target" = 1 ]; then
  mkdir -p calc
  printf 'module example.com/calc\n\ngo 1.21\n' > go.mod
  printf 'package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n' > calc/calc.go
  printf 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf("Add(2, 3) = %%d, want 5", got)\n\t}\n}\n' > calc/calc_test.go
  git add -A
  printf 'loop: row 1 done\n\npending: %s\niteration: %s\n\n| 1 | done | %s | go test ./calc -run %s; ok |\n\nrow 1 done | wrote package calc on attempt %s | next\n' "$pending" "$next" "$((attempts + 1))" "$run" "$((attempts + 1))" | git commit --quiet --allow-empty -F -
fi
`

// Evidence replay on a real Go module, black-box: gallivant runs the
// evidence command each row claims. A claim that selects no test
// (`go test ./calc -run TestDoesNotExist` prints `[no tests to run]` and
// exits 0) never gets a pull request: each replay is a miss against row 1
// (`loop: repair row 1`), and when the row's allowance is spent the entry
// stops allowance, the row's evidence naming the command. Honest evidence
// is replayed, selects tests, and its pull request is labelled ready with
// a receipt whose proof line says so.
func TestReplayedGoEvidence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(goAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandbox(t, filepath.Join(dir, "sandbox"), 1000000, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = append(worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "proof-test"), "GOFLAGS=", "GOTOOLCHAIN=local")
	config := strings.Replace(cacheConfig, "env: [PATH, HOME,", "env: [PATH, HOME, GOCACHE, GOPATH, GOFLAGS, GOTOOLCHAIN,", 1)
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{
		"gallivant.yaml":  config,
		"specs/honest.md": "# Honest\n\n## Acceptance criteria\n1. Add adds.\n",
		"specs/empty.md":  "# Empty\n\n## Acceptance criteria\n1. Add adds.\n",
	})
	w.settle()

	for _, s := range []string{"loop: verify", "loop: repair row 1", "loop: stop allowance"} {
		if !w.did("specs/empty.md", s) {
			t.Errorf("specs/empty.md did not %q: %v", s, w.performed)
		}
	}
	if w.did("specs/empty.md", "loop: repair verification") || w.did("specs/empty.md", "loop: open pr acme/api#1") || w.did("specs/empty.md", "loop: open pr acme/api#2") {
		t.Errorf("specs/empty.md took the verification repair or opened a pull request on evidence that selects no test: %v", w.performed)
	}
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	empty, err := os.ReadFile(filepath.Join(src, "plans", "empty-ledger.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| exit 0 | 0 tests | ", "go test ./calc -run TestDoesNotExist exited 0 but selected no test", "stop: allowance"} {
		if !strings.Contains(string(empty), s) {
			t.Errorf("the ledger of specs/empty.md lacks %q:\n%s", s, empty)
		}
	}

	var ready int
	for _, s := range w.performed {
		if n, ok := strings.CutPrefix(s, "specs/honest.md loop: ready acme/api#"); ok {
			ready, _ = atoiOK(n)
		}
	}
	if ready == 0 {
		t.Fatalf("specs/honest.md was not labelled ready: %v", w.performed)
	}
	if labels := w.labels("acme/api", ready); !slices.Contains(labels, "ready-for-human") {
		t.Errorf("acme/api#%d labels %v, want ready-for-human", ready, labels)
	}
	var pr struct{ Body string }
	w.api("GET", "repos/acme/api/pulls/"+itoa(ready), &pr)
	if want := "| proof | passed | row 1: `go test ./calc -run TestAdd` on "; !strings.Contains(pr.Body, want) || !strings.Contains(pr.Body, ", exit 0, 1+ tests |") {
		t.Errorf("the receipt lacks a passed proof line with tests selected (%q … exit 0, 1+ tests):\n%s", want, pr.Body)
	}
}

// atoiOK parses a pull request number.
func atoiOK(s string) (int, bool) {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, s != ""
}
