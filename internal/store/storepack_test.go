package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// TestPassPackIsWhatGitWouldWrite commits through the store's in-memory
// trees and packs (storepack.go) and checks the result with the real git:
// the trees are canonical (git fsck --strict), every file reads back, on
// the remote and in the cache clone, across more tree deltas than one
// chain holds, a read in the middle of a pass (a second pack), new nested
// directories and names that sort differently as a directory.
func TestPassPackIsWhatGitWouldWrite(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testserver.Git(t, src, "init", "--quiet", "--initial-branch=main")
	want := map[string]string{"gallivant.yaml": "defaults:\n  repo: acme/api\n", "plans.md": "a file beside the directory\n", "plans-x/a.md": "x\n"}
	for i := 0; i < 30; i++ {
		want[fmt.Sprintf("plans/s%03d-ledger.md", i)] = fmt.Sprintf("ledger %d\n", i)
	}
	for p, s := range want {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testserver.Git(t, src, "add", "-A")
	testserver.Git(t, src, "commit", "--quiet", "-m", "start")
	remote := filepath.Join(t.TempDir(), "control.git")
	testserver.Git(t, src, "clone", "--quiet", "--bare", src, remote)
	st, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	commit := func(p, s string) string {
		t.Helper()
		sha, err := st.Commit(context.Background(), p, []byte(s), "loop: record "+p, when)
		if err != nil {
			t.Fatal(err)
		}
		want[p] = s
		return sha
	}
	for i := 0; i < 2*maxDeltaDepth+7; i++ {
		commit(fmt.Sprintf("plans/s%03d-ledger.md", (i*7)%40), fmt.Sprintf("revision %d\n", i))
	}
	mid := commit("plans/deep/er/new-ledger.md", "nested\n")
	// A read of a commit still in memory writes the pass's objects first.
	if data, ok, err := st.ReadFile(context.Background(), mid, "plans/deep/er/new-ledger.md"); err != nil || !ok || string(data) != "nested\n" {
		t.Fatalf("read in the middle of the pass: %q %v %v", data, ok, err)
	}
	for i := 0; i < 20; i++ {
		commit(fmt.Sprintf("plans/s%03d-ledger.md", i), fmt.Sprintf("after the read %d\n", i))
	}
	commit("plans-x/b.md", "y\n")
	commit("a/b/c.md", "new directories\n")
	// A directory becomes a file, which sorts elsewhere.
	commit("plans-x", "a file now\n")
	delete(want, "plans-x/a.md")
	delete(want, "plans-x/b.md")
	if _, err := st.Commit(context.Background(), "plans-x/c.md", []byte("x"), "loop: record", when); err == nil || !strings.Contains(err.Error(), "plans-x is a file") {
		t.Errorf("a file under a file: %v", err)
	}
	if err := st.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{remote, st.Dir()} {
		testserver.Git(t, dir, "fsck", "--strict", "--no-dangling")
		if got := testserver.Git(t, dir, "rev-parse", "main"); got != st.Tip() {
			t.Errorf("%s: main is %s, want %s", dir, got, st.Tip())
		}
		got := map[string]string{}
		for _, p := range strings.Split(testserver.Git(t, dir, "ls-tree", "-r", "--name-only", "main"), "\n") {
			got[p] = testserver.Git(t, dir, "show", "main:"+p) + "\n"
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: files at main (-want +got):\n%s", dir, diff)
		}
	}
	// go-git reads its own packs back, through the delta chains.
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, ok, err := st.ReadFile(context.Background(), st.Tip(), p)
		if err != nil || !ok || string(data) != want[p] {
			t.Errorf("ReadFile(%s) = %q %v %v, want %q", p, data, ok, err, want[p])
		}
	}
	// The next pass (a new process) starts from the pushed head.
	again, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if again.Head() != st.Tip() {
		t.Errorf("a new store plans from %s, want %s", again.Head(), st.Tip())
	}
}

// TestUnpushedPassLeavesNothing: commits a pass never pushed are nowhere on
// disk, so a process killed between commit and push leaves nothing for the
// next pass to trip on; a pass that did write its pack (a read in the
// middle of it) leaves only whole packs, which git checks clean.
func TestUnpushedPassLeavesNothing(t *testing.T) {
	t.Parallel()
	ctl := historyRepo(t, 1, 20)
	st, err := Open(context.Background(), Options{Control: ctl})
	if err != nil {
		t.Fatal(err)
	}
	objects := func() []string {
		var out []string
		filepath.Walk(filepath.Join(ctl, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				out = append(out, strings.TrimPrefix(p, ctl))
			}
			return nil
		})
		sort.Strings(out)
		return out
	}
	before := objects()
	when := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	sha, err := st.Commit(context.Background(), "plans/s001-ledger.md", []byte("changed\n"), "loop: record", when)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, objects()); diff != "" {
		t.Errorf("a commit wrote to disk before the push (-before +after):\n%s", diff)
	}
	if st.Landed(context.Background(), sha) {
		t.Errorf("an unpushed commit counts as landed")
	}
	if _, _, err := st.ReadFile(context.Background(), sha, "plans/s001-ledger.md"); err != nil {
		t.Fatal(err)
	}
	for _, p := range objects() {
		if strings.Contains(p, "tmp_") {
			t.Errorf("a temporary file stayed behind: %s", p)
		}
	}
	testserver.Git(t, ctl, "fsck", "--strict")
	if got := testserver.Git(t, ctl, "cat-file", "-p", sha+":plans/s001-ledger.md"); got != "changed" {
		t.Errorf("git reads %q from the pass's pack", got)
	}
}

// oneLedgerStore is a store on a bare control remote whose one commit
// holds plans/a-ledger.md with content; it returns the remote's path too.
func oneLedgerStore(t *testing.T, content string) (*Store, string) {
	t.Helper()
	src := t.TempDir()
	testserver.Git(t, src, "init", "--quiet", "--initial-branch=main")
	if err := os.MkdirAll(filepath.Join(src, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "plans", "a-ledger.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, src, "add", "-A")
	testserver.Git(t, src, "commit", "--quiet", "-m", "start")
	remote := filepath.Join(t.TempDir(), "control.git")
	testserver.Git(t, src, "clone", "--quiet", "--bare", src, remote)
	st, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return st, remote
}

// Files, Log and History start at the tip, which may be a commit the pass
// made and has not pushed: they read it like any other.
func TestReadsSeeThePassCommits(t *testing.T) {
	t.Parallel()
	st, _ := oneLedgerStore(t, "one\n")
	sha, err := st.Commit(context.Background(), "plans/a-ledger.md", []byte("two\n"), "loop: record", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := st.Files(context.Background(), []string{"plans"})
	if err != nil || len(files) != 1 || string(files[0].Data) != "two\n" {
		t.Fatalf("Files before the push: %v %+v", err, files)
	}
	entries, err := st.Log(context.Background(), "plans/a-ledger.md", 0)
	if err != nil || len(entries) != 2 || entries[0].SHA != sha {
		t.Fatalf("Log before the push: %v %+v", err, entries)
	}
	n := 0
	if err := st.History(context.Background(), "", nil, func(c audit.Commit) error { n++; return nil }); err != nil || n == 0 {
		t.Fatalf("History before the push: %v, %d commits", err, n)
	}
}
