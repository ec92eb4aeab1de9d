package agent

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func owner(t *testing.T, p string) int {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}

// Issue 29, finding 1 (ownership): a process of the agent's swaps a
// directory of the checkout for a symlink to gallivant's files while the
// checkout is handed over, and symlinks and a hard link point outside.
// Nothing outside the checkout changes owner; the swapped directory's own
// entries, already open, are handed over.
func TestChownTreeFollowsNoPathTheAgentChanges(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs the tests to run as root")
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	root := filepath.Join(base, "checkout")
	for _, d := range []string{outside, filepath.Join(root, "a", "b"), filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(outside, "git"), filepath.Join(outside, "b"), filepath.Join(root, "a", "b", "f"), filepath.Join(root, "a", "x")} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "git"), filepath.Join(root, "git-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".git", "dir-link")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(base, "moved")
	openedHook = func(dir string) {
		if dir == filepath.Join(root, "a") {
			// The walk holds a's descriptor; the agent moves a away and
			// puts a symlink to gallivant's files in its place.
			if err := os.Rename(dir, moved); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(outside, dir); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { openedHook = nil }()
	const uid, gid = 65534, 65534
	if err := chownTree(root, uid, gid); err != nil {
		t.Fatalf("chownTree: %v", err)
	}
	for _, p := range []string{outside, filepath.Join(outside, "git"), filepath.Join(outside, "b")} {
		if got := owner(t, p); got != 0 {
			t.Errorf("%s outside the checkout now belongs to uid %d", p, got)
		}
	}
	for _, p := range []string{root, filepath.Join(root, "git-link"), filepath.Join(moved, "b", "f"), filepath.Join(moved, "x")} {
		if got := owner(t, p); got != uid {
			t.Errorf("%s belongs to uid %d, want %d", p, got, uid)
		}
	}

	// A file with a second name, which may be outside, is refused.
	hard := filepath.Join(base, "hard")
	if err := os.MkdirAll(hard, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "git"), filepath.Join(hard, "git")); err != nil {
		t.Fatal(err)
	}
	if err := chownTree(hard, uid, gid); err == nil {
		t.Errorf("chownTree handed over a hard link to a file outside the checkout")
	}
	if got := owner(t, filepath.Join(outside, "git")); got != 0 {
		t.Errorf("the hard-linked file now belongs to uid %d", got)
	}
}
