package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A pull request from a fork whose branch has the name of gallivant's work
// branch, with gallivant's identity block copied into its body (issue 30
// item 7): gallivant never adopts it — no transition names it, nothing is
// pushed to the fork — and gatekeep blocks it as a fork's pull request,
// while gallivant's own pull request keeps its ready label. Allowing
// maintainer edits changes nothing (issue 34): only a fork's pull request
// the spec names (pr:) is adopted, and this spec names none.
func TestForkPullRequestIsNeverAdopted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxUsers(t, filepath.Join(dir, "sandbox"), 1000000, []string{"mallory"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "fork-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig, "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the pull request is not ready: %v", w.performed)
	}

	mallory := &cacheWorld{t: t, sandbox: map[string]string{"GITHUB_API_URL": sb["GITHUB_API_URL"], "GITHUB_TOKEN": sb["GITHUB_TOKEN_MALLORY"]}}
	var fork struct {
		FullName string `json:"full_name"`
		CloneURL string `json:"clone_url"`
	}
	mallory.send("POST", "repos/acme/api/forks", map[string]any{}, &fork)
	if fork.FullName != "mallory/api" {
		t.Fatalf("fork: %+v", fork)
	}
	fw := filepath.Join(dir, "fork")
	gitIn(t, dir, "clone", "--quiet", withToken(fork.CloneURL, sb["GITHUB_TOKEN_MALLORY"]), fw)
	// The fork has the parent's branches, gallivant's work branch too.
	gitIn(t, fw, "checkout", "--quiet", "-B", "gallivant/feature", "origin/gallivant/feature")
	if err := os.WriteFile(filepath.Join(fw, "row-1.txt"), []byte("mallory's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, fw, "add", "-A")
	gitIn(t, fw, "commit", "--quiet", "-m", "loop: row 1 done")
	gitIn(t, fw, "push", "--quiet", "origin", "gallivant/feature")
	forkHead := gitIn(t, fw, "rev-parse", "HEAD")
	var own struct{ Body string }
	w.api("GET", "repos/acme/api/pulls/1", &own)
	var pr struct {
		Number int
		Head   struct {
			Repo struct {
				FullName string `json:"full_name"`
			}
		}
	}
	mallory.send("POST", "repos/acme/api/pulls", map[string]any{"title": "Feature", "head": "mallory:gallivant/feature", "base": "main", "body": own.Body}, &pr)
	if pr.Number != 2 || pr.Head.Repo.FullName != "mallory/api" {
		t.Fatalf("the fork's pull request: %+v", pr)
	}
	workHead := gitIn(t, dir, "ls-remote", w.sandbox["GIT_URL_ACME_API"], "refs/heads/gallivant/feature")

	w.settle()
	for _, s := range w.performed {
		if strings.Contains(s, "acme/api#2") {
			t.Errorf("gallivant acted on the fork's pull request: %q", s)
		}
	}
	if got := strings.Fields(gitIn(t, dir, "ls-remote", fork.CloneURL, "refs/heads/gallivant/feature")); len(got) == 0 || got[0] != forkHead {
		t.Errorf("the fork's branch is %v, want it untouched at %s", got, forkHead)
	}
	if got := gitIn(t, dir, "ls-remote", w.sandbox["GIT_URL_ACME_API"], "refs/heads/gallivant/feature"); got != workHead {
		t.Errorf("gallivant's work branch moved from %q to %q", workHead, got)
	}
	if got := w.labels("acme/api", 1); len(got) != 1 || got[0] != "ready-for-human" {
		t.Errorf("gallivant's own pull request has labels %v, want [ready-for-human]", got)
	}
	if got := w.labels("acme/api", 2); len(got) != 0 {
		t.Errorf("the fork's pull request has labels %v", got)
	}

	gatekeep := func(when string) {
		t.Helper()
		gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
		cmd := exec.Command(bin, "gatekeep", "--control", src, "acme/api#2")
		cmd.Env = w.env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if ok := errors.As(err, &ee); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "this pull request is from mallory/api:gallivant/feature, a fork, not the entry's work branch in acme/api") {
			t.Errorf("gatekeep acme/api#2 %s: %v\n%s", when, err, out)
		}
	}
	gatekeep("without maintainer edits")

	// Allowing maintainer edits changes nothing: gallivant adopts only the
	// pull request a spec names (pr:), and this spec names none.
	var edited struct {
		MaintainerCanModify bool `json:"maintainer_can_modify"`
	}
	mallory.send("PATCH", "repos/acme/api/pulls/2", map[string]any{"maintainer_can_modify": true}, &edited)
	if !edited.MaintainerCanModify {
		t.Fatalf("the fork's pull request does not allow maintainer edits after the edit")
	}
	w.settle()
	for _, s := range w.performed {
		if strings.Contains(s, "acme/api#2") {
			t.Errorf("gallivant acted on the fork's pull request allowing maintainer edits: %q", s)
		}
	}
	if got := strings.Fields(gitIn(t, dir, "ls-remote", fork.CloneURL, "refs/heads/gallivant/feature")); len(got) == 0 || got[0] != forkHead {
		t.Errorf("the fork's branch is %v after allowing maintainer edits, want it untouched at %s", got, forkHead)
	}
	gatekeep("with maintainer edits")
}
