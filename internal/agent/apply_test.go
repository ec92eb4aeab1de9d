package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// applyRemote is a bare repository with a work branch at base (a.go, b.go)
// and a task branch holding one commit on base; git runs in its clone.
type applyRemote struct {
	t          *testing.T
	bare, wt   string
	base, task string
}

func newApplyRemote(t *testing.T, taskFile, taskText string) *applyRemote {
	t.Helper()
	r := &applyRemote{t: t, bare: filepath.Join(t.TempDir(), "api.git"), wt: t.TempDir()}
	r.git(t.TempDir(), "init", "--quiet", "--bare", r.bare)
	r.git(r.wt, "init", "--quiet", "--initial-branch=gallivant/feature")
	r.write("a.go", "package a\n\nconst A = 1\n")
	r.write("b.go", "package a\n\nconst B = 1\n")
	r.git(r.wt, "add", "-A")
	r.git(r.wt, "commit", "--quiet", "-m", "base")
	r.base = r.git(r.wt, "rev-parse", "HEAD")
	r.git(r.wt, "checkout", "--quiet", "-b", "gallivant/feature--task-2-1")
	r.write(taskFile, taskText)
	r.git(r.wt, "commit", "--quiet", "-am", "loop: task 2 done\n\ntask: 2 | attempt 1 | "+r.base+"\n\nChanged it.")
	r.task = r.git(r.wt, "rev-parse", "HEAD")
	r.git(r.wt, "push", "--quiet", r.bare, "gallivant/feature--task-2-1")
	r.git(r.wt, "checkout", "--quiet", "gallivant/feature")
	r.git(r.wt, "push", "--quiet", r.bare, "gallivant/feature")
	return r
}

func (r *applyRemote) write(p, s string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.wt, p), []byte(s), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *applyRemote) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// moveWork commits a change of p on the work branch and pushes it.
func (r *applyRemote) moveWork(p, s string) string {
	r.t.Helper()
	r.write(p, s)
	r.git(r.wt, "commit", "--quiet", "-am", "another task")
	r.git(r.wt, "push", "--quiet", r.bare, "gallivant/feature")
	return r.git(r.wt, "rev-parse", "HEAD")
}

// TestApplyCommit: a task's admitted commit is cherry-picked onto the work
// branch's head, keeping its message and author, and pushed; one that
// conflicts with what the branch changed since the task started names the
// files, and a branch that moved since the head was read is not pushed to.
func TestApplyCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := CommandExecutor{WorkDir: t.TempDir()}
	in := func(r *applyRemote, head string) ApplyInput {
		return ApplyInput{Repo: "acme/api", CloneURL: r.bare, Branch: "gallivant/feature", Head: head, From: "gallivant/feature--task-2-1", Commit: r.task}
	}

	t.Run("onto a head another task moved", func(t *testing.T) {
		t.Parallel()
		r := newApplyRemote(t, "b.go", "package a\n\nconst B = 2\n")
		head := r.moveWork("a.go", "package a\n\nconst A = 2\n")
		got, err := e.ApplyCommit(ctx, in(r, head))
		if err != nil {
			t.Fatal(err)
		}
		if remote := r.git(r.bare, "rev-parse", "refs/heads/gallivant/feature"); remote != got {
			t.Errorf("the work branch is at %s, ApplyCommit returned %s", remote, got)
		}
		if parent := r.git(r.bare, "rev-parse", got+"^"); parent != head {
			t.Errorf("the applied commit's parent is %s, want the head %s", parent, head)
		}
		msg := r.git(r.bare, "log", "-1", "--format=%an|%B", got)
		if want := "agent|loop: task 2 done\n\ntask: 2 | attempt 1 | " + r.base + "\n\nChanged it."; msg != want {
			t.Errorf("applied commit (-want +got):\n%s", cmp.Diff(want, msg))
		}
		if tree := r.git(r.bare, "show", got+":a.go") + "|" + r.git(r.bare, "show", got+":b.go"); tree != "package a\n\nconst A = 2|package a\n\nconst B = 2" {
			t.Errorf("the applied tree holds %q", tree)
		}
	})

	t.Run("a conflict names the files", func(t *testing.T) {
		t.Parallel()
		r := newApplyRemote(t, "a.go", "package a\n\nconst A = 3\n")
		head := r.moveWork("a.go", "package a\n\nconst A = 2\n")
		_, err := e.ApplyCommit(ctx, in(r, head))
		var c *ApplyConflict
		if !errors.As(err, &c) {
			t.Fatalf("err = %v, want an *ApplyConflict", err)
		}
		if diff := cmp.Diff(&ApplyConflict{Commit: r.task, Onto: head, Paths: []string{"a.go"}}, c); diff != "" {
			t.Errorf("conflict (-want +got):\n%s", diff)
		}
		if want := `conflicts in "a.go"`; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
		if remote := r.git(r.bare, "rev-parse", "refs/heads/gallivant/feature"); remote != head {
			t.Errorf("a conflict moved the work branch to %s", remote)
		}
	})

	t.Run("a moved branch is not pushed to", func(t *testing.T) {
		t.Parallel()
		r := newApplyRemote(t, "b.go", "package a\n\nconst B = 2\n")
		r.moveWork("a.go", "package a\n\nconst A = 2\n")
		_, err := e.ApplyCommit(ctx, in(r, r.base))
		if !errors.Is(err, ErrBranchMoved) {
			t.Fatalf("err = %v, want ErrBranchMoved", err)
		}
	})
}
