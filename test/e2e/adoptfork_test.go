package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A fork's pull request that allows maintainer edits, named by a spec's
// `pr:` (issue 34, docs/delivery.md "Adopting a pull request"), against
// the built binary and `gallivant sandbox`: bob forks acme/api, opens
// acme/api#1 from bob/api:feature/login with row 1 done and maintainer
// edits allowed. gallivant adopts it, works rows 2 and 3 on the fork's
// branch on top of bob's commit, makes no branch in acme/api, labels it
// ready, pushes carol's review round to the fork's branch too, and
// `gallivant verify` proves the history.
func TestAdoptedForkPullRequestWithMaintainerEdits(t *testing.T) {
	t.Parallel()
	dir, sb, w, config := adoptWorld(t, "adopt-fork-test")

	var fork struct {
		FullName string `json:"full_name"`
		CloneURL string `json:"clone_url"`
	}
	w.as("bob").send("POST", "repos/acme/api/forks", map[string]any{}, &fork)
	if fork.FullName != "bob/api" {
		t.Fatalf("fork: %+v", fork)
	}
	bobDir := filepath.Join(dir, "bob")
	gitIn(t, dir, "clone", "--quiet", withToken(fork.CloneURL, sb["GITHUB_TOKEN_BOB"]), bobDir)
	gitIn(t, bobDir, "checkout", "--quiet", "-b", "feature/login")
	if err := os.WriteFile(filepath.Join(bobDir, "row-1.txt"), []byte("bob wrote this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, bobDir, "add", "-A")
	gitIn(t, bobDir, "commit", "--quiet", "-m", "Start the login page")
	gitIn(t, bobDir, "push", "--quiet", "origin", "feature/login")
	bobsHead := gitIn(t, bobDir, "rev-parse", "HEAD")
	var pr struct{ Number int }
	w.as("bob").send("POST", "repos/acme/api/pulls", map[string]any{"title": "Login page", "head": "bob:feature/login", "base": "main", "body": bobsNotes,
		"maintainer_can_modify": true}, &pr)
	if pr.Number != 1 {
		t.Fatalf("bob's pull request is #%d, want #1", pr.Number)
	}

	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": config,
		"specs/feature.md": "---\npr: acme/api#1\n---\n# Feature\n\n## Acceptance criteria\n1. Feature one.\n2. Feature two.\n3. Feature three.\n"})
	w.settle()
	for _, s := range []string{"loop: adopt acme/api#1", "loop: dispatch row 2", "loop: open pr acme/api#1", "loop: ready acme/api#1"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q: %v", s, w.performed)
		}
	}
	if w.did("specs/feature.md", "loop: dispatch row 1") {
		t.Errorf("row 1, which bob's branch satisfies, was dispatched: %v", w.performed)
	}
	gitIn(t, bobDir, "fetch", "--quiet", "origin")
	head := gitIn(t, bobDir, "rev-parse", "origin/feature/login")
	gitIn(t, bobDir, "merge-base", "--is-ancestor", bobsHead, head)
	for _, f := range []string{"row-1.txt", "row-2.txt", "row-3.txt"} {
		gitIn(t, bobDir, "cat-file", "-e", head+":"+f)
	}
	if got := gitIn(t, dir, "ls-remote", sb["GIT_URL_ACME_API"], "refs/heads/feature/login", "refs/heads/gallivant/*"); got != "" {
		t.Errorf("gallivant made a branch in acme/api: %s", got)
	}
	if _, body := w.pull(1); !strings.HasPrefix(body, bobsNotes) || !strings.Contains(body, "<!-- gallivant:receipt -->") {
		t.Errorf("the body lacks bob's text at the top or the receipt:\n%s", body)
	}

	// carol, a writer, asks for a change: the round is pushed to the
	// fork's branch, then ready again.
	var c struct{ ID int64 }
	w.as("carol").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "Please also cover the zero case."}, &c)
	w.settle()
	for _, s := range []string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q after carol's comment: %v", s, w.performed)
		}
	}
	pushed := slices.Index(w.performed, "specs/feature.md loop: pushed round 1 acme/api#1")
	if !slices.Contains(w.performed[pushed:], "specs/feature.md loop: ready acme/api#1") {
		t.Errorf("not ready again after the round: %v", w.performed[pushed:])
	}
	gitIn(t, bobDir, "fetch", "--quiet", "origin")
	round := gitIn(t, bobDir, "rev-parse", "origin/feature/login")
	gitIn(t, bobDir, "merge-base", "--is-ancestor", head, round)
	gitIn(t, bobDir, "cat-file", "-e", round+":zero-case.txt")
	w.verifies()
}
