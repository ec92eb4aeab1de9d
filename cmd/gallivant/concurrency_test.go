package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/ledger"
)

// shellAgent answers dispatches from the brief alone and logs each run.
const shellAgent = `#!/bin/sh
set -eu
get() { sed -n "s/^$1: //p" "$GALLIVANT_TASK" | head -n 1; }
target=$(get target); pending=$(get pending); iteration=$(get iteration); attempts=$(get attempts)
next=$((iteration + 1))
echo "$GALLIVANT_SPEC $pending" >> "$RUNLOG"
if [ "$target" = seed ]; then
  body=""; k=0; first=""
  for n in $(sed -n 's/^- row \([0-9]*\): .*/\1/p' "$GALLIVANT_TASK"); do
    body="$body| $n | open | 0 | test -f row-$n.txt; FAIL: missing |
"
    k=$((k + 1)); [ -n "$first" ] || first="row $n"
  done
  printf 'loop: seed evidence\n\npending: %s\niteration: %s\n\n%s\nrow 0 done | seeded %s rows, closed 0 on baseline | %s\n' "$pending" "$next" "$body" "$k" "$first" | git commit --quiet --allow-empty -F -
else
  echo "$next" > "row-$target.txt"; git add -A
  printf 'loop: row %s done\n\npending: %s\niteration: %s\n\n| %s | done | %s | test -f row-%s.txt; ok |\n\nrow %s done | wrote row-%s.txt in iteration %s | next\n' "$target" "$pending" "$next" "$target" "$((attempts + 1))" "$target" "$target" "$target" "$next" | git commit --quiet -F -
fi
`

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Four real reconciler processes on one control repository, repeatedly:
// history stays linear, each dispatch runs exactly once, nothing is lost.
func TestConcurrentReconcilers(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	agent := filepath.Join(work, "agent.sh")
	os.WriteFile(agent, []byte(shellAgent), 0o755)
	runlog := filepath.Join(work, "runs.log")
	src := filepath.Join(work, "src")
	files := map[string]string{
		"gallivant.yaml": "defaults:\n  repo: acme/api\n  escalate_after: 9\nexecutor:\n  kind: command\n  command: [\"sh\", \"-c\", \"exec sh \\\"$AGENT\\\"\"]\n  timeout: 5m\n" +
			"  env: [PATH, HOME, AGENT, RUNLOG, GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL]\n",
	}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		files["specs/"+name+".md"] = fmt.Sprintf("# %s\n\n## Acceptance criteria\n1. %s one.\n2. %s two.\n3. %s three.\n", name, name, name, name)
	}
	for p, s := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(s), 0o644)
	}
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve specs")
	bare := filepath.Join(work, "control.git")
	gitCmd(t, work, "clone", "--quiet", "--bare", src, bare)

	const procs = 4
	done := func() bool {
		for _, name := range []string{"alpha", "beta", "gamma"} {
			out, err := exec.Command("git", "-C", bare, "show", "main:plans/"+name+"-ledger.md").Output()
			if err != nil {
				return false
			}
			l, ds := ledger.Parse(name, out)
			if ledger.Fatal(ds) || l.Pending != nil {
				return false
			}
			for _, r := range l.Rows {
				if r.Status != ledger.Done {
					return false
				}
			}
		}
		return true
	}
	for round := 0; round < 12 && !done(); round++ {
		var wg sync.WaitGroup
		errs := make([]string, procs)
		for i := 0; i < procs; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				cmd := exec.Command(bin, "reconcile", "--control", "file://"+bare)
				cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+filepath.Join(work, fmt.Sprintf("cache%d", i)), "GITHUB_API_URL="+gh.APIURL(),
					"GITHUB_TOKEN="+gh.MainToken(), "AGENT="+agent, "RUNLOG="+runlog, "GIT_CONFIG_GLOBAL=/dev/null",
					"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@x", "GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@x")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					errs[i] = fmt.Sprintf("process %d: %v\n%s", i, err, stderr.String())
				}
			}(i)
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Errorf("round %d: %s", round, e)
			}
		}
	}
	if !done() {
		t.Fatalf("the entries did not finish; control history:\n%s", gitCmd(t, bare, "log", "--format=%s", "main"))
	}
	if merges := gitCmd(t, bare, "rev-list", "--merges", "--count", "main"); merges != "0" {
		t.Errorf("history has %s merges, want 0 (linear)", merges)
	}
	runs, _ := os.ReadFile(runlog)
	seen := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSpace(string(runs)), "\n") {
		if seen[p] {
			t.Errorf("dispatch %s ran twice", p)
		}
		seen[p] = true
	}
	subjects := strings.Split(gitCmd(t, bare, "log", "--format=%s", "main"), "\n")
	count := map[string]int{}
	for _, s := range subjects {
		count[s]++
	}
	// Three specs of three rows: one seed ledger, one seed dispatch and
	// record each, three row dispatches and records each.
	if count["loop: seed ledger"] != 3 || count["loop: dispatch seed"] != 3 || count["loop: dispatch row 1"] != 3 || count["loop: record home row 3"] != 3 {
		t.Errorf("transitions lost or doubled: %v; want 3 each of loop: seed ledger, loop: dispatch seed, loop: dispatch row 1 and loop: record home row 3", count)
	}
	if len(seen) != 12 {
		t.Errorf("%d agent runs, want 12 (3 seeds and 9 rows)", len(seen))
	}
}

// The daemon runs a pass at start and ends cleanly on SIGTERM.
func TestDaemonProcess(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	src := filepath.Join(work, "ctl")
	os.MkdirAll(filepath.Join(src, "specs"), 0o755)
	os.WriteFile(filepath.Join(src, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\nexecutor:\n  kind: none\nschedule: \"@every 1h\"\n"), 0o644)
	os.WriteFile(filepath.Join(src, "specs", "a.md"), []byte("# A\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve")
	cmd := exec.Command(bin, "daemon", "--control", src)
	cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+filepath.Join(work, "cache"), "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken())
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "pass finished") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("daemon exit: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "pass finished") {
		t.Fatalf("no pass ran:\n%s", stderr.String())
	}
	if log := gitCmd(t, src, "log", "--format=%s"); !strings.Contains(log, "loop: dispatch seed") {
		t.Errorf("the daemon's pass left no transitions:\n%s", log)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
