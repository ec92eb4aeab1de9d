package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// roundAgent runs agentScript for the rows; a review round commits a fix,
// except that it fails at once while the file $FAIL_ROUND exists, as an
// agent whose process is killed.
const roundAgent = `#!/bin/sh
set -eu
target=$(sed -n "s/^target: //p" "$GALLIVANT_TASK" | head -n 1)
if [ "$target" = round ]; then
  if [ -e "$FAIL_ROUND" ]; then
    echo "the agent's process was killed" >&2
    exit 3
  fi
  echo "zero" > zero-case.txt
  git add -A
  git commit --quiet -m "Cover the zero case"
  exit 0
fi
exec sh "$AGENT_REAL"
`

// A review round whose agent fails stops the entry harness-error and keeps
// the comment it was to answer: `resume` re-runs the round once the failed
// dispatch is over, and the pull request is never labelled ready while
// the comment is unanswered.
func TestCrashedRoundIsRerunAfterResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real, agent, fail := filepath.Join(dir, "agent.sh"), filepath.Join(dir, "round-agent.sh"), filepath.Join(dir, "fail-round")
	for path, s := range map[string]string{real: agentScript, agent: roundAgent, fail: ""} {
		if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb := startSandboxUsers(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = append(worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "round-test"), "AGENT_REAL="+real, "FAIL_ROUND="+fail)
	// A short timeout, so that the failed dispatch is over within seconds.
	config := strings.NewReplacer("timeout: 30s", "timeout: 2s\n  grace: 1s", "env: [PATH, HOME, AGENT,", "env: [PATH, HOME, AGENT, AGENT_REAL, FAIL_ROUND,").Replace(cacheConfig)
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, w.sandbox["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": config, "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the pull request is not ready: %v", w.performed)
	}
	// bob, who has write access, asks for a change.
	bob := &cacheWorld{t: t, sandbox: map[string]string{"GITHUB_API_URL": sb["GITHUB_API_URL"], "GITHUB_TOKEN": sb["GITHUB_TOKEN_BOB"]}}
	var c struct{ ID int64 }
	bob.send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "Please also cover the zero case."}, &c)
	w.settle()
	for _, s := range []string{"loop: unready acme/api#1", "loop: round 1 acme/api#1", "loop: stop harness-error"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q after the comment: %v", s, w.performed)
		}
	}
	if err := os.Remove(fail); err != nil {
		t.Fatal(err)
	}
	controlEdit(t, src, map[string]string{"plans/feature-ledger.md": ledgerWithRequest(t, src, "resume | the agent's machine was rebooted")})
	// Passes until the round ran again; the failed dispatch is over after
	// executor.timeout and grace (3s).
	// The bound is real time, not a number of passes: an idle pass takes
	// milliseconds on a quiet machine, so sixty of them can all fall
	// inside the 3s the failed dispatch needs to be over.
	rerun := false
	for deadline := time.Now().Add(60 * time.Second); !rerun && time.Now().Before(deadline); {
		w.pass()
		if slices.Contains(w.performed, "specs/feature.md loop: ready acme/api#2") {
			break
		}
		rerun = w.did("specs/feature.md", "loop: pushed round 1 acme/api#1")
		if !rerun && slices.Contains(w.labels("acme/api", 1), "ready-for-human") {
			t.Fatalf("acme/api#1 is labelled ready while bob's comment is unanswered: %v", w.performed)
		}
	}
	if !rerun {
		gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
		stop, _ := os.ReadFile(filepath.Join(src, "plans", "feature-ledger.md"))
		logs, _ := filepath.Glob(filepath.Join(w.cache, "work", "logs", "*round*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("the round was not run again after the resume: %v\n%s", w.performed, stop)
	}
	if n := strings.Count(strings.Join(w.performed, "\n"), "specs/feature.md loop: stop harness-error"); n != 1 {
		t.Errorf("%d harness-error stops, want 1: %v", n, w.performed)
	}
	// Once the round answered the comment, the pull request may be ready
	// again (no reviewer is configured and acme/api runs no CI), but only
	// after that push.
	w.settle()
	pushed, ready := slices.Index(w.performed, "specs/feature.md loop: pushed round 1 acme/api#1"), -1
	for i, s := range w.performed {
		if s == "specs/feature.md loop: ready acme/api#1" {
			ready = i
		}
	}
	if ready < pushed {
		t.Errorf("the last ready label (%d) is not after the round's push (%d): %v", ready, pushed, w.performed)
	}
	// The history replays: verify knows the interrupted round.
	verify := exec.Command(bin, "verify", "--control", w.control)
	verify.Env = w.env
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("gallivant verify: %v\n%s", err, out)
	}
}

// ledgerWithRequest returns the control branch's ledger of specs/feature.md
// with line added to its ## Requests section, as a person would write it.
func ledgerWithRequest(t *testing.T, src, line string) string {
	t.Helper()
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	b, err := os.ReadFile(filepath.Join(src, "plans", "feature-ledger.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "## Requests") {
		s = strings.TrimRight(s, "\n") + "\n\n## Requests\n\n"
	}
	return strings.TrimRight(s, "\n") + "\n" + line + "\n"
}
