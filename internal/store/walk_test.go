package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/ledger"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// History's raw tree diff lists, for every commit, the paths go-git's
// DiffTree lists against the first parent, in its order: nested
// directories, a.md beside a/, a mode change with the same content, a
// file that becomes a directory and back, deletions, and a merge.
func TestHistoryChangesLikeDiffTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testserver.Git(t, dir, "init", "--quiet", "-b", "main")
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) {
		t.Helper()
		testserver.Git(t, dir, "add", "-A")
		testserver.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", msg)
	}
	led := ledger.Discriminant + "\n"
	write("gallivant.yaml", "defaults:\n  repo: acme/api\n")
	write("plans/a.md", led+"one\n")
	write("plans/a/b.md", led+"nested\n")
	write("plans/a-b.txt", "not a ledger\n")
	write("x/y/z.txt", "deep\n")
	commit("start")
	write("plans/a.md", led+"two\n")
	write("plans/a/b.md", led+"nested two\n")
	write("x/y/z.txt", "deeper\n")
	commit("loop: record")
	testserver.Git(t, dir, "update-index", "--chmod=+x", "plans/a-b.txt")
	testserver.Git(t, dir, "commit", "--quiet", "-m", "mode only")
	os.RemoveAll(filepath.Join(dir, "x", "y"))
	write("x/y", "a file now\n")
	commit("dir to file")
	os.Remove(filepath.Join(dir, "x", "y"))
	write("x/y/w.md", led+"a dir again\n")
	commit("file to dir")
	testserver.Git(t, dir, "checkout", "--quiet", "-b", "side", "main~2")
	write("plans/side.md", led+"side\n")
	commit("side")
	testserver.Git(t, dir, "checkout", "--quiet", "main")
	testserver.Git(t, dir, "merge", "--quiet", "--no-edit", "side")
	os.RemoveAll(filepath.Join(dir, "plans", "a"))
	commit("drop a/")

	st, err := Open(context.Background(), Options{Control: dir})
	if err != nil {
		t.Fatal(err)
	}
	type changes struct{ Ledgers, Others []string }
	var got []changes
	err = st.History(context.Background(), "", nil, func(c audit.Commit) error {
		var ch changes
		for _, l := range c.Ledgers {
			ch.Ledgers = append(ch.Ledgers, l.Path)
		}
		ch.Others = c.Others
		got = append(got, ch)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// go-git's DiffTree along the same first-parent line, oldest first.
	var want []changes
	c, err := st.repo.CommitObject(st.tip)
	if err != nil {
		t.Fatal(err)
	}
	for {
		tree, _ := c.Tree()
		var ptree *object.Tree
		var parent *object.Commit
		if c.NumParents() > 0 {
			parent, _ = c.Parent(0)
			ptree, _ = parent.Tree()
		}
		diff, err := object.DiffTree(ptree, tree)
		if err != nil {
			t.Fatal(err)
		}
		var ch changes
		for _, d := range diff {
			name := d.To.Name
			if name == "" {
				name = d.From.Name
			}
			if filepath.Ext(name) == ".md" {
				ch.Ledgers = append(ch.Ledgers, name)
			} else {
				ch.Others = append(ch.Others, name)
			}
		}
		want = append([]changes{ch}, want...)
		if parent == nil {
			break
		}
		c = parent
	}
	if len(want) != 7 {
		t.Fatalf("%d first-parent commits, want 7", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History's changes (-DiffTree +got):\n%s", diff)
	}
}
