package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5/plumbing"
)

// pushWorld is a bare remote with main, and a work repository (standing in
// for the mirror) that cloned it.
type pushWorld struct {
	t          *testing.T
	bare, work string
	base       string // main's commit
	tick       int
}

func newPushWorld(t *testing.T) *pushWorld {
	t.Helper()
	w := &pushWorld{t: t, bare: filepath.Join(t.TempDir(), "api.git"), work: t.TempDir()}
	w.git(t.TempDir(), "init", "--quiet", "--bare", "--initial-branch=main", w.bare)
	w.git(w.work, "init", "--quiet", "--initial-branch=main")
	w.write("README", "hi\n")
	w.write("internal/deep/pkg/a.go", "package pkg\n")
	w.commit("base")
	w.base = w.head()
	w.git(w.work, "push", "--quiet", w.bare, "main")
	return w
}

func (w *pushWorld) git(dir string, args ...string) string {
	w.t.Helper()
	w.tick++
	// Each commit a second later, so that committer dates order them.
	date := fmt.Sprintf("@%d +0000", 1_800_000_000+w.tick)
	return strings.TrimSpace(gitEnvIn(w.t, dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, args...))
}

func gitEnvIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := rigGit(dir, args...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (w *pushWorld) write(p, s string) {
	w.t.Helper()
	full := filepath.Join(w.work, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *pushWorld) commit(msg string) {
	w.t.Helper()
	w.git(w.work, "add", "-A")
	w.git(w.work, "commit", "--quiet", "--allow-empty", "-m", msg)
}

func (w *pushWorld) head() string { return w.git(w.work, "rev-parse", "HEAD") }

// remote is the remote's value of branch, "" when it lacks it.
func (w *pushWorld) remote(branch string) string {
	out, err := rigGit(w.bare, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (w *pushWorld) push(head, branch string) error {
	w.t.Helper()
	repo, err := gitopen.PlainOpen(w.work, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return workPush{repo: repo, url: "file://" + w.bare, branch: branch, head: plumbing.NewHash(head),
		wait: func(context.Context, time.Duration) error { return nil }}.run(context.Background())
}

// A work branch's push sends what the remote lacks and never overwrites:
// each case ends with the remote's branch where git push without --force
// would leave it, and the remote's objects connected (git fsck).
func TestWorkPush(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// build makes the work (and may move the remote); it returns the
		// head to push.
		build   func(w *pushWorld) string
		stale   bool
		objects int // what sendable lists against the remote's branches and before; -1 to skip
	}{
		{name: "new branch, one file changed deep", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("internal/deep/pkg/a.go", "package pkg\n\nconst A = 1\n")
			w.commit("row 1")
			return w.head()
		}, objects: 1 + 4 + 1}, // the commit, four trees, the blob
		{name: "branch at before", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.git(w.work, "push", "--quiet", w.bare, "gallivant/feature")
			w.write("b.txt", "b\n")
			w.commit("row 1")
			w.write("c.txt", "c\n")
			w.commit("row 2")
			return w.head()
		}, objects: 2 + 2 + 2},
		{name: "already there", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("b.txt", "b\n")
			w.commit("row 1")
			w.git(w.work, "push", "--quiet", w.bare, "gallivant/feature")
			return w.head()
		}, objects: 0},
		{name: "new branch at a commit the remote has", build: func(w *pushWorld) string {
			return w.base
		}, objects: 0}, // an empty pack: receive-pack takes the update alone
		{name: "a change reverted after another", build: func(w *pushWorld) string {
			// The revert's tree is the first commit's: the trees that
			// commit added must be sent although a later commit's walk
			// sees them first.
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("internal/deep/pkg/a.go", "package pkg\n\nconst A = 2\n")
			w.commit("deep")
			w.write("README", "changed\n")
			w.commit("readme")
			w.git(w.work, "revert", "--no-edit", "HEAD")
			return w.head()
		}, objects: 3 + 5 + 2}, // the three commits; the first's four trees and blob, the second's tree and blob; the revert's tree is the first's
		{name: "a remote emptied and collected", build: func(w *pushWorld) string {
			// Where the work started is gone from the remote: the push
			// must carry the whole history.
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("b.txt", "b\n")
			w.commit("row 1")
			w.git(w.bare, "update-ref", "-d", "refs/heads/main")
			w.git(w.bare, "gc", "--quiet", "--prune=now")
			return w.head()
		}, objects: -1},
		{name: "a commit of the work already on another branch", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.git(w.work, "push", "--quiet", w.bare, "gallivant/feature")
			w.write("b.txt", "b\n")
			w.commit("row 1")
			w.git(w.work, "push", "--quiet", w.bare, "HEAD:refs/heads/elsewhere")
			w.write("c.txt", "c\n")
			w.commit("row 2")
			return w.head()
		}, objects: 3}, // row 2 alone: the remote advertises row 1 on elsewhere
		{name: "branch moved by someone else", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("theirs.txt", "theirs\n")
			w.commit("theirs")
			w.git(w.work, "push", "--quiet", w.bare, "gallivant/feature")
			w.git(w.work, "reset", "--quiet", "--hard", w.base)
			w.write("ours.txt", "ours\n")
			w.commit("ours")
			return w.head()
		}, stale: true, objects: -1},
		{name: "main merged in after it moved on", build: func(w *pushWorld) string {
			for i := range 5 {
				w.write(fmt.Sprintf("main-%d.txt", i), "main\n")
				w.commit(fmt.Sprintf("main %d", i))
			}
			w.git(w.work, "push", "--quiet", w.bare, "main")
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature", w.base)
			w.write("ours.txt", "ours\n")
			w.commit("ours")
			w.git(w.work, "merge", "--quiet", "--no-edit", "main")
			return w.head()
		}, objects: 3 + 2}, // ours (commit, tree, blob), the merge commit and its tree: none of main's five commits
		{name: "a file put back as it was", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.write("README", "changed\n")
			w.commit("change")
			w.write("README", "hi\n")
			w.commit("put back")
			return w.head()
		}, objects: -1},
		{name: "a file removed and a directory moved", build: func(w *pushWorld) string {
			w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
			w.git(w.work, "mv", "internal/deep", "internal/shallow")
			w.git(w.work, "rm", "--quiet", "README")
			w.commit("move")
			return w.head()
		}, objects: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newPushWorld(t)
			head := tt.build(w)
			was := w.remote("gallivant/feature")
			if tt.objects >= 0 {
				repo, err := gitopen.PlainOpen(w.work, nil)
				if err != nil {
					t.Fatal(err)
				}
				// What the remote advertises, as the push sees it.
				tips := []plumbing.Hash{plumbing.NewHash(w.remote("main"))}
				if was != "" {
					tips = append(tips, plumbing.NewHash(was))
				}
				if e := w.remote("elsewhere"); e != "" {
					tips = append(tips, plumbing.NewHash(e))
				}
				objs, err := sendable(repo, plumbing.NewHash(head), tips)
				if err != nil {
					t.Fatal(err)
				}
				if len(objs) != tt.objects {
					t.Errorf("sendable listed %d objects, want %d", len(objs), tt.objects)
				}
			}
			err := w.push(head, "gallivant/feature")
			switch {
			case tt.stale:
				if !errors.Is(err, gitpack.ErrStale) {
					t.Fatalf("push = %v, want ErrStale", err)
				}
				if got := w.remote("gallivant/feature"); got != was {
					t.Errorf("the refused push moved the branch from %s to %s", was, got)
				}
				return
			case err != nil:
				t.Fatalf("push: %v", err)
			}
			if got := w.remote("gallivant/feature"); got != head {
				t.Errorf("remote branch at %q, want %s", got, head)
			}
			gitEnvIn(t, w.bare, nil, "fsck", "--connectivity-only", "--no-dangling")
		})
	}
}

// The walk's answer does not depend on committer dates being in order: a
// commit dated before its parent is still found new, and an old commit
// the remote has is not.
func TestNewCommitsWithSkewedDates(t *testing.T) {
	t.Parallel()
	w := newPushWorld(t)
	w.git(w.work, "checkout", "--quiet", "-b", "gallivant/feature")
	w.write("a.txt", "a\n")
	w.commit("first")
	first := w.head()
	w.write("b.txt", "b\n")
	// Dated a day before the base.
	gitEnvIn(t, w.work, nil, "add", "-A")
	gitEnvIn(t, w.work, []string{"GIT_AUTHOR_DATE=@1799900000 +0000", "GIT_COMMITTER_DATE=@1799900000 +0000"}, "commit", "--quiet", "-m", "skewed")
	head := w.head()
	repo, err := gitopen.PlainOpen(w.work, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := newCommits(repo, plumbing.NewHash(head), []plumbing.Hash{plumbing.NewHash(w.base)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Hash.String())
	}
	if want := []string{head, first}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("newCommits = %v, want %v", names, want)
	}
	if err := w.push(head, "gallivant/feature"); err != nil {
		t.Fatal(err)
	}
	gitEnvIn(t, w.bare, nil, "fsck", "--connectivity-only", "--no-dangling")
}

// A push GitHub fails on its side is tried pushTries times; one it refuses
// for good (a repository not found, credentials refused) only once.
func TestWorkPushRetriesOnlyTransientFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		tries  int64
	}{{http.StatusServiceUnavailable, pushTries}, {http.StatusBadGateway, pushTries}, {http.StatusNotFound, 1}, {http.StatusUnauthorized, 1}} {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			var asked atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				rw.WriteHeader(tt.status)
			}))
			defer srv.Close()
			w := newPushWorld(t)
			repo, err := gitopen.PlainOpen(w.work, nil)
			if err != nil {
				t.Fatal(err)
			}
			var waited []time.Duration
			err = workPush{repo: repo, url: srv.URL + "/acme/api.git", auth: gitpack.TokenAuth("ghs_secret"), branch: "gallivant/feature", head: plumbing.NewHash(w.base),
				wait: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }}.run(context.Background())
			if err == nil {
				t.Fatal("the push succeeded")
			}
			if got := asked.Load(); got != tt.tries {
				t.Errorf("asked %d times, want %d (%v)", got, tt.tries, err)
			}
			if tt.tries == pushTries && fmt.Sprint(waited) != "[250ms 1s]" {
				t.Errorf("waited %v between tries, want [250ms 1s]", waited)
			}
			if want := fmt.Sprintf("the remote answered HTTP %d %s", tt.status, http.StatusText(tt.status)); tt.tries == pushTries && !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q: %v", want, err)
			}
			if tt.tries == pushTries && !strings.Contains(err.Error(), fmt.Sprintf("(try %d of %d)", pushTries, pushTries)) {
				t.Errorf("the last failure does not say it was the last try: %v", err)
			}
			if strings.Contains(err.Error(), "ghs_secret") {
				t.Errorf("the error holds the token: %v", err)
			}
		})
	}
}

// rigGit is git in dir with no user or system configuration and a fixed
// person as author and committer.
func rigGit(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	return cmd
}
