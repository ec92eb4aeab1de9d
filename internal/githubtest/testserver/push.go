package testserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/githubtest"
	"github.com/gallivant/gallivant/internal/scripted"
)

// PushBranch pushes branch to repo on s as a person would: from main, one
// commit per file (each file holding its own name), with the real git
// binary. It returns the branch's new head.
func PushBranch(tb testing.TB, s *githubtest.Server, repo, branch string, files ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	g := scripted.Git{Dir: dir, Env: []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person",
		"GIT_AUTHOR_EMAIL=person@example.com", "GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com"}}
	git := func(args ...string) string {
		tb.Helper()
		out, err := g.Out(context.Background(), args...)
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	git("clone", "--quiet", s.GitURL(repo), "w")
	g.Dir = filepath.Join(dir, "w")
	git("checkout", "--quiet", "-B", branch)
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(g.Dir, f), []byte(f+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		git("add", "-A")
		git("commit", "--quiet", "-m", "add "+f+"\n\nbody line")
	}
	git("push", "--quiet", "origin", branch)
	return git("rev-parse", "HEAD")
}
