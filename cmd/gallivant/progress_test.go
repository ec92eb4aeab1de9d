package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// progressControl is a bare control repository whose one spec's agent
// prints a line and then waits until the test creates a file.
func progressControl(t *testing.T) (bare, gate string, env []string) {
	t.Helper()
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	gate = filepath.Join(work, "release")
	src := filepath.Join(work, "src")
	files := map[string]string{
		"gallivant.yaml": "defaults:\n  repo: acme/api\nexecutor:\n  kind: command\n" +
			"  command: [\"sh\", \"-c\", \"echo 'step one: reading the code'; while [ ! -e \\\"$RELEASE\\\" ]; do sleep 0.05; done; echo finished\"]\n  timeout: 5m\n  env: [PATH, HOME, RELEASE]\n",
		"specs/alpha.md": "# Alpha\n\n## Acceptance criteria\n1. Alpha works.\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755)
		if err := os.WriteFile(filepath.Join(src, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve specs")
	bare = filepath.Join(work, "control.git")
	gitCmd(t, work, "clone", "--quiet", "--bare", src, bare)
	env = append(os.Environ(), "GALLIVANT_CACHE="+filepath.Join(work, "cache"), "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken(),
		"RELEASE="+gate, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x", "TERM=xterm")
	return bare, gate, env
}

// release lets the agent finish: it waits for the file to exist.
func release(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// At a terminal, a running agent has a live line — spec, row, elapsed,
// its last output line — while it runs, cleared when it ends.
func TestProgressLiveAtTerminal(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	bare, gate, env := progressControl(t)
	// The pass seeds the ledger and dispatches row 1.
	cmd := exec.Command(bin, "reconcile", "--control", "file://"+bare)
	cmd.Env = env
	// The pass stays in the test's session: a child of this process in a
	// session of its own is what an in-process reconciler of a parallel
	// test takes for an orphan its ended agent left (reap_linux.go) and
	// kills. The terminal need not be the controlling one; the progress
	// line asks only whether its output is a terminal, and its size.
	tty, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: 24, Cols: 120}, &syscall.SysProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 4096)
			n, err := tty.Read(b)
			if n > 0 {
				chunks <- b[:n]
			}
			if err != nil {
				return // EIO once the process has closed the terminal
			}
		}
	}()
	var screen bytes.Buffer
	live := "⏵ specs/alpha.md seed  "
	deadline := time.After(2 * time.Minute) // a bound on a hung test, not a timing assertion
	for !strings.Contains(screen.String(), "step one: reading the code") || !strings.Contains(screen.String(), live) {
		select {
		case b, ok := <-chunks:
			if !ok {
				// Say how the pass ended: the terminal's last bytes may
				// not hold its reason.
				werr := cmd.Wait()
				t.Fatalf("the pass ended (%v) before a live line showed:\n%q", werr, screen.String())
			}
			screen.Write(b)
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no live line with the agent's output:\n%q", screen.String())
		}
	}
	release(t, gate)
	for b := range chunks {
		screen.Write(b)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("reconcile: %v\n%q", err, screen.String())
	}
	s := screen.String()
	i := strings.LastIndex(s, live)
	line := s[i:]
	line = line[:strings.IndexAny(line, "\r\n")]
	if !strings.HasSuffix(line, "step one: reading the code") {
		t.Errorf("the live line %q does not end with the agent's last output", line)
	}
	if !strings.Contains(s[i:], "\x1b[1F\x1b[J") {
		t.Errorf("the live line is never cleared:\n%q", s[i:])
	}
	if !strings.Contains(s, "transitions performed") {
		t.Errorf("no summary after the run:\n%q", s)
	}
}

// Elsewhere (a pipe) the run's start and end are plain lines; --quiet
// prints neither.
func TestProgressPlainWhenNotATerminal(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	for _, quiet := range []bool{false, true} {
		bare, gate, env := progressControl(t)
		args := []string{"reconcile", "--control", "file://" + bare}
		if quiet {
			args = append(args, "--quiet")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		release(t, gate)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("reconcile: %v\n%s", err, stderr.String())
		}
		for _, want := range []string{"specs/alpha.md seed: agent started\n", "specs/alpha.md seed: agent finished after "} {
			if got := strings.Contains(stderr.String(), want); got == quiet {
				t.Errorf("quiet=%v: stderr has %q: %v, want %v\n%s", quiet, want, got, !quiet, stderr.String())
			}
		}
		if strings.Contains(stderr.String(), "\x1b[") {
			t.Errorf("quiet=%v: escape sequences on a pipe:\n%q", quiet, stderr.String())
		}
	}
}

// The board on a hand clock: plain lines every plainEvery with the last
// output; at a terminal, a block redrawn in place and cut to the width.
func TestProgressBoard(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var plain []string
	b := newProgressBoard(io.Discard, false, nil, now, func(_ slog.Level, text, _ string, _ ...any) { plain = append(plain, text) })
	r := agent.Run{Spec: "specs/a.md", Task: "row 2", Started: clock}
	b.Started(r)
	b.Output(r, "compiling \x1b[31mred\x1b[0m")
	clock = clock.Add(29 * time.Second)
	b.tick()
	clock = clock.Add(time.Second)
	b.tick()
	b.tick()
	clock = clock.Add(35 * time.Second)
	b.Finished(r)
	want := []string{"specs/a.md row 2: agent started",
		"specs/a.md row 2: agent running for 30s; last output: compiling  [31mred [0m",
		"specs/a.md row 2: agent finished after 1m05s"}
	if diff := cmp.Diff(want, plain); diff != "" {
		t.Errorf("plain lines (-want +got):\n%s", diff)
	}

	var screen bytes.Buffer
	clock = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tb := newProgressBoard(&screen, true, func() int { return 40 }, now, nil)
	r1 := agent.Run{Spec: "specs/a.md", Task: "row 1", Started: clock}
	r2 := agent.Run{Spec: "specs/b.md", Task: "round 2", Started: clock}
	tb.Started(r1)
	tb.Started(r2)
	clock = clock.Add(65 * time.Second)
	tb.Output(r2, "a very long line of output that does not fit the terminal")
	tb.tick()
	tb.Finished(r1)
	tb.close()
	got := screen.String()
	wantScreen := "⏵ specs/a.md row 1  0s\n" +
		"\x1b[1F\x1b[J⏵ specs/a.md row 1  0s\n⏵ specs/b.md round 2  0s\n" +
		"\x1b[2F\x1b[J⏵ specs/a.md row 1  1m05s\n⏵ specs/b.md round 2  1m05s  a very lo…\n" +
		"\x1b[2F\x1b[J⏵ specs/b.md round 2  1m05s  a very lo…\n" +
		"\x1b[1F\x1b[J"
	if diff := cmp.Diff(wantScreen, got); diff != "" {
		t.Errorf("terminal (-want +got):\n%s", diff)
	}
}
