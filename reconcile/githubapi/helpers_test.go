package githubapi

import (
	"context"
	"testing"

	"github.com/gallivant/gallivant/internal/scripted"
)

// run runs a command (always git here) in dir as a person would, with no
// global or system configuration, and fails the test on error.
func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	if name != "git" {
		t.Fatalf("run %s: only git is run here", name)
	}
	g := scripted.Git{Dir: dir, Env: []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person",
		"GIT_AUTHOR_EMAIL=person@example.com", "GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com"}}
	out, err := g.Out(context.Background(), args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}
