package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// A verification that names the head it verifies (Task.Head) checks it
// out from the mirror the run that returned it pushed from, without asking
// the remote: with the remote gone it still verifies that head. A head the
// mirror lacks, or none, fetches as before (and here fails, the remote
// being gone), so a commit gallivant never saw is never taken on trust.
func TestVerifyHeadFromMirrorSkipsFetch(t *testing.T) {
	t.Parallel()
	remote, base := remoteRepo(t)
	e := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir(), Agent: func(_ context.Context, dir string, _ Task) error {
		if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n"), 0o644); err != nil {
			return err
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "--quiet", "-m", "row 1")
		return nil
	}}
	task := Task{Spec: "specs/calc.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/calc", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "# Task\n"}
	out, err := e.Run(context.Background(), task)
	if err != nil || out.Err != nil || out.Commits != 1 {
		t.Fatalf("run: %v, %+v", err, out)
	}
	pushed := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/calc")
	// Every fetch from now on fails.
	if err := os.Rename(remote, remote+".gone"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, head string
		wantErr    bool
	}{
		{"the head the run pushed", pushed, false},
		{"no head", "", true},
		{"a head the mirror lacks", strings.Repeat("ab", 20), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vt := task
			vt.Pending, vt.Head = ledger.Pending{}, tc.head
			res, err := e.Verify(context.Background(), vt, []string{"test -f calc.go"}, nil)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("verified %s with the remote gone: %+v", res.Head, res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Head != pushed || !res.Passed {
				t.Errorf("verified %s (passed %v), want %s passed:\n%s", res.Head, res.Passed, pushed, res.Tail)
			}
		})
	}
}

// A dispatch whose head the mirror holds (Task.Head: the head the pass read
// and dispatched from, which the run before pushed from the mirror) starts
// its checkout there without fetching: where the branch moved on the remote
// after the pass read it, the agent still builds on the head the pass read,
// and its return is not forced over the branch: the push is refused and the
// commits kept, as for a branch moved while the agent works. Without a Head
// the run fetches and starts at the new tip.
func TestRunHeadFromMirrorSkipsFetch(t *testing.T) {
	t.Parallel()
	remote, base := remoteRepo(t)
	var started []string
	e := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir(), Agent: func(_ context.Context, dir string, task Task) error {
		started = append(started, gitIn(t, dir, "rev-parse", "HEAD"))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("row-%d.txt", task.Iteration)), []byte("done\n"), 0o644); err != nil {
			return err
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "--quiet", "-m", fmt.Sprintf("row %d", task.Iteration))
		return nil
	}}
	task := Task{Spec: "specs/calc.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/calc", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "# Task\n"}
	if out, err := e.Run(context.Background(), task); err != nil || out.Err != nil {
		t.Fatalf("first run: %v, %+v", err, out)
	}
	first := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/calc")

	next := task
	next.Iteration, next.Head = 2, first
	out, err := e.Run(context.Background(), next)
	if err != nil || out.Err != nil || out.Commits != 1 {
		t.Fatalf("run from the held head: %v, %+v", err, out)
	}
	if started[1] != first {
		t.Errorf("second run started at %s, want the held head %s", started[1], first)
	}
	second := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/calc")

	// The branch moves on the remote (a person's push) after the pass read
	// it at second: the run from second is refused, the branch kept.
	moved := t.TempDir()
	gitIn(t, moved, "clone", "--quiet", "--branch", "gallivant/calc", remote, ".")
	gitIn(t, moved, "commit", "--quiet", "--allow-empty", "-m", "a person's commit")
	gitIn(t, moved, "push", "--quiet", "origin", "gallivant/calc")
	personal := gitIn(t, moved, "rev-parse", "HEAD")
	next.Iteration, next.Head = 3, second
	out, err = e.Run(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if started[2] != second || out.Err == nil || !out.Unpushed || out.Kept == "" {
		t.Errorf("a run from a head the branch moved past started at %s (want %s) with %+v; want its push refused and its commit kept", started[2], second, out)
	}
	if got := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/calc"); got != personal {
		t.Errorf("the branch is at %s, want the person's %s", got, personal)
	}

	// Without a head the run fetches and starts at the branch's tip.
	next.Iteration, next.Head = 4, ""
	if out, err := e.Run(context.Background(), next); err != nil || out.Err != nil {
		t.Fatalf("run without a head: %v, %+v", err, out)
	}
	if started[3] != personal {
		t.Errorf("a run without a head started at %s, want the branch's tip %s", started[3], personal)
	}
}
