package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// A control repository on this machine (file://) whose branches are where
// the cache's last fetch left them is not fetched again: the pass reads its
// references and runs no git. Any move, new branch or deleted branch is a
// fetch, which then brings the new head and prunes what is gone.
func TestLocalRemoteUnchangedIsNotFetched(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	git := func(args ...string) {
		testserver.Git(t, src, append([]string{"-c", "user.name=p", "-c", "user.email=p@example.com"}, args...)...)
	}
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(src, "f.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "--quiet", "-m", content)
	}
	git("init", "--quiet", "-b", "main")
	write("one\n")
	remote := filepath.Join(t.TempDir(), "control.git")
	git("clone", "--quiet", "--bare", src, remote)
	git("remote", "add", "origin", remote)
	ctx := context.Background()
	st, err := Open(ctx, Options{Control: "file://" + remote, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		if err := st.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		got, _, err := st.ReadFile(ctx, st.Head(), "f.md")
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	steps := []struct {
		name    string
		change  func()
		current bool // before the Sync
		want    string
	}{
		{"nothing moved", func() {}, true, "one\n"},
		{"the control branch moved", func() { write("two\n"); git("push", "--quiet", "origin", "main") }, false, "two\n"},
		{"a branch was added", func() { git("push", "--quiet", "origin", "main:lessons") }, false, "two\n"},
		{"a branch was deleted", func() { git("push", "--quiet", "origin", ":lessons") }, false, "two\n"},
		{"nothing moved again", func() {}, true, "two\n"},
	}
	for _, s := range steps {
		s.change()
		if got := st.localRemoteCurrent(); got != s.current {
			t.Errorf("%s: the clone current = %v, want %v", s.name, got, s.current)
		}
		if got := read(); got != s.want {
			t.Errorf("%s: the control branch reads %q, want %q", s.name, got, s.want)
		}
		if !st.localRemoteCurrent() {
			t.Errorf("%s: after the Sync the clone is not current", s.name)
		}
	}
	if _, err := st.repo.Reference("refs/remotes/origin/lessons", true); err == nil {
		t.Errorf("the deleted branch was not pruned from the clone")
	}
}
