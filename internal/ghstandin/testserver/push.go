package testserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/scripted"
)

// personEnv is git's environment for a person at the keyboard: no global
// or system configuration, a fixed name.
var personEnv = []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person",
	"GIT_AUTHOR_EMAIL=person@example.com", "GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com"}

// Git runs the real git binary in dir as a person would (personEnv) and
// returns its trimmed standard output; a failure fails the test.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := scripted.Git{Dir: dir, Env: personEnv}.Out(context.Background(), args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// PushBranch pushes branch to repo on s as a person would: from main, one
// commit per file (each file holding its own name), with the real git
// binary. It returns the branch's new head.
func PushBranch(tb testing.TB, s *ghstandin.Server, repo, branch string, files ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	Git(tb, dir, "clone", "--quiet", s.GitURLWithToken(repo, s.MainToken()), "w")
	w := filepath.Join(dir, "w")
	Git(tb, w, "checkout", "--quiet", "-B", branch)
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(w, f), []byte(f+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		Git(tb, w, "add", "-A")
		Git(tb, w, "commit", "--quiet", "-m", "add "+f+"\n\nbody line")
	}
	Git(tb, w, "push", "--quiet", "origin", branch)
	return Git(tb, w, "rev-parse", "HEAD")
}
