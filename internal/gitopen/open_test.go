package gitopen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/google/go-cmp/cmp"
)

// packedRepo makes a repository of n commits, each commit's objects in a
// pack of their own, and returns its path.
func packedRepo(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "--quiet", "--initial-branch=main")
	for i := range n {
		for j := range 40 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", j)), []byte(strings.Repeat("line\n", i+j+1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "--quiet", "-m", "commit")
		git("repack", "-q", "-d") // the loose objects into a new pack
	}
	return dir
}

// countingFS counts the Read calls made on the files it opens whose name
// ends in .idx.
type countingFS struct {
	billy.Filesystem
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingFS) Open(name string) (billy.File, error) {
	f, err := c.Filesystem.Open(name)
	if err != nil || !strings.HasSuffix(name, ".idx") {
		return f, err
	}
	return countingFile{f, name, c}, nil
}

// countingFile counts its Read calls.
type countingFile struct {
	billy.File
	name string
	c    *countingFS
}

func (f countingFile) Read(p []byte) (int, error) {
	f.c.mu.Lock()
	f.c.reads[f.name]++
	f.c.mu.Unlock()
	return f.File.Read(p)
}

func commits(t *testing.T, repo *git.Repository) []string {
	t.Helper()
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	iter, err := repo.Log(&git.LogOptions{From: head.Hash()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = iter.ForEach(func(c *object.Commit) error {
		tree, err := c.Tree()
		if err != nil {
			return err
		}
		// Walk the tree too: its objects are in the packs as well.
		if err := tree.Files().ForEach(func(*object.File) error { return nil }); err != nil {
			return err
		}
		out = append(out, c.Hash.String()+" "+tree.Hash.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Through Storage, each pack index is read with a read call or two, not
// one per fan-out entry, and the repository reads the same as go-git's
// own storage reads it.
func TestStorageReadsEachIndexInFewCalls(t *testing.T) {
	t.Parallel()
	dir := packedRepo(t, 3)
	dot := filepath.Join(dir, ".git")
	plain, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := commits(t, plain)

	c := &countingFS{Filesystem: osfs.New(dot), reads: map[string]int{}}
	repo, err := git.Open(filesystem.NewStorageWithOptions(idxBuffered{c}, cache.NewObjectLRUDefault(), filesystem.Options{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, commits(t, repo)); diff != "" {
		t.Errorf("commits read through Storage (-go-git's own +Storage's):\n%s", diff)
	}
	if len(c.reads) != 3 {
		t.Fatalf("read %d pack indexes, want the 3 packs': %v", len(c.reads), c.reads)
	}
	for name, n := range c.reads {
		if n > 3 {
			t.Errorf("%s: %d read calls, want at most 3 (an index of this size fits the buffer)", name, n)
		}
	}
}

// PlainOpen opens a work tree's repository and a bare one, with their
// work tree (or none) and the objects go-git's own PlainOpen reads.
func TestPlainOpenIsGoGitsPlainOpen(t *testing.T) {
	t.Parallel()
	dir := packedRepo(t, 2)
	bare := filepath.Join(t.TempDir(), "bare.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	for _, path := range []string{dir, bare} {
		want, err := git.PlainOpen(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := PlainOpen(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(commits(t, want), commits(t, got)); diff != "" {
			t.Errorf("%s: commits (-go-git +PlainOpen):\n%s", path, diff)
		}
		_, werr := want.Worktree()
		_, gerr := got.Worktree()
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: work tree error %v, want %v", path, gerr, werr)
		}
		if _, ok := got.Storer.(*filesystem.Storage); !ok {
			t.Errorf("%s: storage %T, want *filesystem.Storage (the store and the stand-in reindex it)", path, got.Storer)
		}
	}
	if _, err := PlainOpen(t.TempDir(), nil); err != git.ErrRepositoryNotExists {
		t.Errorf("PlainOpen of an empty directory: %v, want %v", err, git.ErrRepositoryNotExists)
	}
}
