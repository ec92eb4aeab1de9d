package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// awaitHeld waits until the sandbox holds a request (--hold-file exists)
// and returns what it holds; it fails the test if p exits first.
func awaitHeld(t *testing.T, file string, p *exec.Cmd, exited <-chan struct{}, out *bytes.Buffer) string {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(2 * time.Minute)
	for {
		if data, err := os.ReadFile(file); err == nil {
			return strings.TrimSpace(string(data))
		}
		select {
		case <-exited:
			t.Fatalf("the pass ended before the sandbox held its request: %v\n%s", p.ProcessState, out.String())
		case <-deadline:
			t.Fatal("the sandbox held no request within 2 minutes")
		case <-tick.C:
		}
	}
}

// startPass starts one `gallivant reconcile --format json` process of w
// in the background, to be killed: exited closes when it has ended, and
// out collects what it printed.
func (w *cacheWorld) startPass() (*exec.Cmd, <-chan struct{}, *bytes.Buffer) {
	w.t.Helper()
	cmd := exec.Command(bin, "reconcile", "--control", w.control, "--format", "json")
	cmd.Env = w.env
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return cmd, exited, out
}

// requestCommits returns the control branch's commits that name comment
// id in their trailers, as "subject" lines.
func requestCommits(t *testing.T, src, id string) []string {
	t.Helper()
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	out := gitIn(t, src, "log", "--format=%s", "--grep=^Gallivant-Comment-Id: "+id+"$")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// A pull-request command is neither lost nor performed twice when its pass
// is killed with SIGKILL between the control commit and the answer (issue
// 34, docs/requests.md "At most once, crash-safe"): the sandbox holds the
// reaction gallivant leaves just before it answers (`--hold`), the test
// kills the pass while it waits, and the next passes react and answer
// once and commit the request no second time.
func TestCommandAnswerAfterKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held")
	sb := startSandboxWith(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, nil,
		[]string{"--hold", `POST:/issues/comments/[0-9]+/reactions$`, "--hold-file", held}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "command-kill-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig, "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	var pr struct{ State string }
	w.send("PATCH", "repos/acme/api/pulls/1", map[string]string{"state": "closed"}, &pr)
	w.settle()
	if !w.did("specs/feature.md", "loop: stop closed") {
		t.Fatalf("no closed stop: %v", w.performed)
	}
	var c struct{ ID int64 }
	w.as("bob").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "/gallivant resume | closed by mistake"}, &c)
	id := strconv.FormatInt(c.ID, 10)

	// The pass commits the request, pushes it and reacts: the sandbox
	// holds the reaction and the pass is killed while it waits.
	cmd, exited, out := w.startPass()
	if got, want := awaitHeld(t, held, cmd, exited, out), "POST /repos/acme/api/issues/comments/"+id+"/reactions"; got != want {
		t.Fatalf("the sandbox holds %q, want %q", got, want)
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the pass was not killed: %v", cmd.ProcessState)
	}
	if got := requestCommits(t, src, id); len(got) != 1 || got[0] != "loop: request resume from acme/api#1 by @bob" {
		t.Fatalf("commits naming comment %s after the kill: %q, want the one request commit", id, got)
	}
	if got := w.answers(); len(got) != 0 {
		t.Fatalf("answers before the kill's next pass: %q", got)
	}
	// The sandbox drops the held request once its client is gone.
	waitFor(t, "the sandbox to drop the held reaction", func() bool {
		_, err := os.Stat(held)
		return errors.Is(err, os.ErrNotExist)
	})
	var reactions []struct {
		Content string
		User    struct{ Login string }
	}
	w.api("GET", "repos/acme/api/issues/comments/"+id+"/reactions", &reactions)
	if len(reactions) != 0 {
		t.Fatalf("reactions before the next pass: %+v", reactions)
	}

	// The next passes answer once and perform nothing again.
	before := len(w.performed)
	w.settle()
	for _, s := range w.performed[before:] {
		if strings.Contains(s, "loop: request") {
			t.Errorf("the command was performed again: %s", s)
		}
	}
	if !w.did("specs/feature.md", "loop: reopen acme/api#1") {
		t.Errorf("the resumed entry's pull request was not reopened: %v", w.performed[before:])
	}
	if got := requestCommits(t, src, id); len(got) != 1 {
		t.Errorf("commits naming comment %s: %q, want one", id, got)
	}
	if got := w.answers(); len(got) != 1 || !strings.Contains(got[0], "Done: `loop: request resume from acme/api#1 by @bob`") || !strings.Contains(got[0], "command-"+id) {
		t.Errorf("answers %q, want one Done to comment %s", got, id)
	}
	w.api("GET", "repos/acme/api/issues/comments/"+id+"/reactions", &reactions)
	if len(reactions) != 1 || reactions[0].Content != "+1" {
		t.Errorf("reactions to comment %s: %+v, want gallivant's one +1", id, reactions)
	}
	verify := exec.Command(bin, "verify", "--control", w.control)
	verify.Env = w.env
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("gallivant verify: %v\n%s", err, out)
	}
}
