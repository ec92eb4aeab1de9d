package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lostRun tells an environment loss (a full disk, a removed checkout) by
// the error's type and the checkout's existence, never by its text; an
// agent that broke its own .git is not one (it stays the entry's
// harness-error), and neither is a checkout that was never prepared.
func TestLostRun(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	present := filepath.Join(base, "present")
	if err := os.Mkdir(present, 0o755); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(base, "gone")
	written := filepath.Join(present, "notes.txt")
	enospc := fmt.Errorf("copy: %w", &os.PathError{Op: "write", Path: written, Err: syscall.ENOSPC})
	other := errors.New("the checkout's .git is no longer a directory")
	type want struct {
		Lost bool
		Kind LossKind
		Path string
	}
	tests := []struct {
		name     string
		dir      string
		err      error
		prepared bool
		want     want
	}{
		{"no error", gone, nil, true, want{}},
		{"ENOSPC names the file whose write failed", present, enospc, true, want{true, LossDiskFull, written}},
		{"ENOSPC before the checkout exists", gone, enospc, false, want{true, LossDiskFull, written}},
		{"ENOSPC without a path names the checkout", present, fmt.Errorf("sync: %w", syscall.ENOSPC), true, want{true, LossDiskFull, present}},
		{"removed checkout", gone, other, true, want{true, LossCheckoutRemoved, gone}},
		{"checkout never prepared", gone, other, false, want{}},
		{"checkout present: the entry's own failure", present, other, true, want{}},
		{"already lost", present, &LostError{Kind: LossCheckoutRemoved, Path: gone, Err: other}, true, want{true, LossCheckoutRemoved, gone}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := lostRun(tc.dir, tc.err, tc.prepared)
			var w want
			if l, ok := AsLost(got); ok {
				w = want{true, l.Kind, l.Path}
				if !errors.Is(got, tc.err) {
					t.Errorf("%v does not wrap %v", got, tc.err)
				}
			} else if got != tc.err {
				t.Errorf("got %v, want the error unchanged: %v", got, tc.err)
			}
			if diff := cmp.Diff(tc.want, w); diff != "" {
				t.Errorf("lostRun (-want +got):\n%s", diff)
			}
		})
	}
}

// A lost run's half-done tree is not judged dirty (it is no return), and
// the outcome's error names the cause; an unpushed outcome is left to the
// recovery of its commits.
func TestSettleLost(t *testing.T) {
	t.Parallel()
	gone := filepath.Join(t.TempDir(), "gone")
	err := errors.New("read the agent's commits: the checkout's .git is no longer a directory")
	tests := []struct {
		name string
		out  Outcome
		want bool
		msg  string
	}{
		{"removed checkout", Outcome{Err: err, Dirty: true, DirtyPaths: []string{"?? a"}}, true,
			"checkout removed: " + gone + " no longer exists (" + err.Error() + ")"},
		{"unpushed commits", Outcome{Err: err, Unpushed: true}, false, err.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := tc.out
			if got := settleLost(gone, &out); got != tc.want {
				t.Errorf("settleLost = %v, want %v", got, tc.want)
			}
			if out.Err.Error() != tc.msg {
				t.Errorf("error %q, want %q", out.Err, tc.msg)
			}
			if tc.want && (out.Dirty || out.DirtyPaths != nil) {
				t.Errorf("a lost run left Dirty %v %v", out.Dirty, out.DirtyPaths)
			}
		})
	}
}

// A failure while the run's file system is full is a full disk whatever
// its words: git says ENOSPC only in its messages, and an agent that
// failed on a full disk did not fail the entry. The kernel is asked, not
// the text: the same failure on a file system with room is the entry's.
// Not parallel: it replaces diskFull.
func TestLostRunOnAFullFileSystem(t *testing.T) {
	dir := t.TempDir()
	gitErr := errors.New("git commit: exit status 128: error: unable to write file rows/row-1.txt\nfatal: unable to write new index file")
	agentErr := errors.New("exit status 1")
	real := diskFull
	t.Cleanup(func() { diskFull = real })
	for _, tc := range []struct {
		name string
		full bool
		err  error
		want bool
	}{
		{"git on a full disk", true, gitErr, true},
		{"the agent on a full disk", true, agentErr, true},
		{"git with room", false, gitErr, false},
		{"words of a full disk with room", false, errors.New("error: No space left on device"), false},
	} {
		diskFull = func(p string) (string, bool) { return "/var/cache", tc.full }
		got := lostRun(dir, tc.err, true)
		l, ok := AsLost(got)
		if ok != tc.want {
			t.Errorf("%s: lost %v (%v), want %v", tc.name, ok, got, tc.want)
			continue
		}
		if ok && (l.Kind != LossDiskFull || l.Path != "/var/cache" || !errors.Is(got, tc.err)) {
			t.Errorf("%s: %+v, want disk-full at /var/cache wrapping the error", tc.name, l)
		}
	}
	// The real check: this test's own directory is on a file system with
	// room, and a missing path is judged by its nearest parent.
	diskFull = real
	if at, full := diskFull(filepath.Join(dir, "gone", "deeper")); full || at != dir {
		t.Errorf("fileSystemFull(missing under %s) = %q, %v; want the parent, not full", dir, at, full)
	}
}
