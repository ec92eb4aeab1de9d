package githubapi

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 29: an installation token names only the repositories gallivant
// uses. The stand-in narrows the token as GitHub does, so the token
// reaches those repositories and no other — over the REST API and git
// alike — and a changed set of repositories mints a new token.
func TestAppTokensScopedToRepositories(t *testing.T) {
	s, apps, _ := appRig(t, "acme/control", "acme/api", "acme/payroll")
	ctx := context.Background()
	apps.SetRepositories([]string{"acme/api", "acme/control", "ACME/api", "other/lib"})
	if diff := cmp.Diff([]string{"acme/api", "acme/control", "other/lib"}, apps.Repositories()); diff != "" {
		t.Errorf("Repositories (-want +got):\n%s", diff)
	}
	gh := appClient(t, apps)
	for _, repo := range []string{"acme/api", "acme/control"} {
		if _, ok, err := gh.BranchHead(ctx, repo, "main"); err != nil || !ok {
			t.Errorf("BranchHead(%s) = %v, %v; the token names it", repo, ok, err)
		}
	}
	// The repository of another owner cannot be in this installation's
	// token; it is left out rather than failing the request.
	if diff := cmp.Diff([][]string{{"acme/api", "acme/control"}}, s.InstallationTokenRepositories()); diff != "" {
		t.Errorf("the token was narrowed to (-want +got):\n%s", diff)
	}
	// Every stand-in repository is public: the token reads acme/payroll,
	// and writes to it are refused, over REST and git alike.
	head, ok, err := gh.BranchHead(ctx, "acme/payroll", "main")
	if err != nil || !ok {
		t.Fatalf("BranchHead(acme/payroll) = %v, %v; a public repository is readable", ok, err)
	}
	if err := gh.CreateBranch(ctx, "acme/payroll", "gallivant/x", head); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("CreateBranch on acme/payroll: %v, want a 403: the token does not name it", err)
	}
	apiHead, _, _ := gh.BranchHead(ctx, "acme/api", "main")
	if err := gh.CreateBranch(ctx, "acme/api", "gallivant/x", apiHead); err != nil {
		t.Errorf("CreateBranch on acme/api: %v", err)
	}
	tok, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for repo, want := range map[string]string{"acme/api": "", "acme/payroll": "Permission to acme/payroll.git denied"} {
		out, err := gitPush(t, s.GitURL(repo), s.GitURLWithToken(repo, tok))
		if want == "" && err != nil {
			t.Errorf("git push to %s with the narrowed token: %v\n%s", repo, err, out)
		}
		if want != "" && (err == nil || !strings.Contains(out, want)) {
			t.Errorf("git push to %s with the narrowed token: %v\n%s\nwant it refused: %s", repo, err, out, want)
		}
	}

	// A new spec's repository: the next token names it too.
	apps.SetRepositories([]string{"acme/api", "acme/control", "acme/payroll"})
	if err := gh.CreateBranch(ctx, "acme/payroll", "gallivant/y", head); err != nil {
		t.Errorf("after SetRepositories: CreateBranch on acme/payroll: %v", err)
	}
	if got := s.InstallationTokens(); got != 2 {
		t.Errorf("%d tokens minted, want 2 (a changed set mints a new one)", got)
	}
	apps.SetRepositories([]string{"acme/payroll", "acme/control", "acme/api"})
	if _, err := apps.Token(ctx); err != nil || s.InstallationTokens() != 2 {
		t.Errorf("the same set in another order minted again: %v, %d tokens", err, s.InstallationTokens())
	}
}

// Repositories none of which the installation's account owns are an
// error naming them, not a token for everything.
func TestAppTokensNoRepositoryOfTheAccount(t *testing.T) {
	_, apps, _ := appRig(t, "acme/control")
	apps.SetRepositories([]string{"other/lib"})
	_, err := apps.Token(context.Background())
	if !errors.Is(err, ErrAppAuth) || !strings.Contains(err.Error(), "covers none of the repositories gallivant uses (other/lib)") {
		t.Errorf("Token: %v", err)
	}
}

// gitPush clones from (anonymously) and pushes one new commit to a new
// branch of to, returning git's output.
func gitPush(t *testing.T, from, to string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("clone", "--quiet", from, "."); err != nil {
		t.Fatalf("clone %s: %v\n%s", from, err, out)
	}
	if out, err := run("commit", "--quiet", "--allow-empty", "-m", "work"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	return run("push", "--quiet", to, "HEAD:refs/heads/scoped-push")
}
