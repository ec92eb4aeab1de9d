package e2e

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a process's output, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// waitFor polls cond until it holds; the bound only ends a run that would
// never get there.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A comment posted through the API reaches `gallivant daemon` as the
// sandbox's signed issue_comment webhook (`gallivant sandbox --webhook`,
// issue 30 item 7) and runs a pass long before the hourly schedule would:
// the pass answers the comment with a review round.
func TestCommentWebhookTriggersADaemonPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real, agent := filepath.Join(dir, "agent.sh"), filepath.Join(dir, "round-agent.sh")
	for path, s := range map[string]string{real: agentScript, agent: roundAgent} {
		if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	const secret = "e2e-hook-secret"
	// The webhook secret reaches the sandbox through its environment, as
	// it would for a person.
	sb := startSandboxEnv(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, nil,
		[]string{"--webhook", "http://127.0.0.1:" + port + "/hooks/github", "--webhook-secret-env", "E2E_WEBHOOK_SECRET"},
		[]string{"E2E_WEBHOOK_SECRET=" + secret}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = append(worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "webhook-test"), "AGENT_REAL="+real, "FAIL_ROUND="+filepath.Join(dir, "never"))
	config := strings.Replace(cacheConfig, "env: [PATH, HOME, AGENT,", "env: [PATH, HOME, AGENT, AGENT_REAL, FAIL_ROUND,", 1)
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": config, "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the pull request is not ready: %v", w.performed)
	}

	daemon := exec.Command(bin, "daemon", "--control", w.control, "--listen", port, "--schedule", "@every 1h",
		"--webhook-debounce", "10ms", "--log-format", "json")
	daemon.Env = append(w.env, "GALLIVANT_WEBHOOK_SECRET="+secret)
	var logs lockedBuffer
	daemon.Stderr, daemon.Stdout = &logs, &logs
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		daemon.Process.Signal(syscall.SIGTERM)
		daemon.Wait()
		if strings.Contains(logs.String(), secret) {
			t.Error("the daemon's log holds the webhook secret")
		}
	})
	waitFor(t, "the daemon's first pass", func() bool { return strings.Contains(logs.String(), `"msg":"pass finished"`) })
	if strings.Contains(logs.String(), `"trigger":"webhook"`) {
		t.Fatalf("a webhook pass ran before any comment:\n%s", logs.String())
	}

	bob := &cacheWorld{t: t, sandbox: map[string]string{"GITHUB_API_URL": sb["GITHUB_API_URL"], "GITHUB_TOKEN": sb["GITHUB_TOKEN_BOB"]}}
	var c struct{ ID int64 }
	bob.send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "Please also cover the zero case."}, &c)
	waitFor(t, "a pass the webhook triggered to finish", func() bool {
		l := logs.String()
		i := strings.Index(l, `"trigger":"webhook"`)
		return i >= 0 && strings.Contains(l[i:], `"msg":"pass finished"`)
	})
	l := logs.String()
	if !strings.Contains(l, `"msg":"webhook triggers a pass"`) || !strings.Contains(l, `"event":"issue_comment"`) {
		t.Errorf("the daemon did not log the issue_comment delivery that triggered the pass:\n%s", l)
	}
	gitIn(t, src, "fetch", "--quiet", "origin")
	subjects := gitIn(t, src, "log", "--format=%s", "origin/main")
	for _, want := range []string{"loop: unready acme/api#1", "loop: round 1 acme/api#1"} {
		if !strings.Contains(subjects, want) {
			t.Errorf("after the webhook's pass the control branch has no %q:\n%s\ndaemon:\n%s", want, subjects, l)
		}
	}
}
