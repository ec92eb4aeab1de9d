package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The GitHub CLI steers a pull request in the sandbox as a person steers
// one on GitHub (issue 30 item 8): `gh auth login --with-token` and `gh
// auth status` as a reviewer, then `gh pr list`, `gh pr view --json`, `gh
// pr checks`, `gh pr review --approve`, `gh pr comment` and `gh pr merge
// --merge`, all GraphQL against `gallivant sandbox --tls`. Each result is
// checked both in gh's output and through REST, where gallivant reads it:
// the approval given with gh is what turns the protected pull request's
// mergeable_state from blocked to clean.
func TestSandboxPullRequestWithGitHubCLI(t *testing.T) {
	t.Parallel()
	gh, err := exec.LookPath("gh")
	if err != nil {
		t.Skip("the GitHub CLI is not installed (Debian package gh; .ci/run installs it)")
	}
	bin := gallivantBinary(t)
	dir := t.TempDir()
	cmd, env := startSandboxUntil(t, bin, []string{"--dir", filepath.Join(dir, "sb"), "--repo", "acme/api", "--tls", "--user", "rev", "--protect", "acme/api:main"},
		func(env map[string]string, k string) bool { return k == "GH_ENTERPRISE_TOKEN" })
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	host := env["GH_HOST"]
	if host == "" || env["GITHUB_TOKEN_REV"] == "" {
		t.Fatalf("the sandbox printed %v", env)
	}
	base := append(os.Environ(), "GH_CONFIG_DIR="+filepath.Join(dir, "gh"), "GH_TOKEN=", "GITHUB_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=",
		"GH_NO_UPDATE_NOTIFIER=1", "GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@example.com", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@example.com",
		"SSL_CERT_FILE="+env["SSL_CERT_FILE"], "GIT_SSL_CAINFO="+env["GIT_SSL_CAINFO"], "GH_HOST="+host)
	// The reviewer logs in and is gh's stored user; the main token, in
	// GH_ENTERPRISE_TOKEN, overrides it for the author's commands.
	asRev := slices.Concat(base, []string{"GH_ENTERPRISE_TOKEN="})
	asMain := slices.Concat(base, []string{"GH_ENTERPRISE_TOKEN=" + env["GH_ENTERPRISE_TOKEN"]})
	run := func(env []string, stdin, dir, name string, args ...string) (string, error) {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env, c.Stdin = dir, env, strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	must := func(env []string, name string, args ...string) string {
		t.Helper()
		out, err := run(env, "", dir, name, args...)
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
		return out
	}
	repo := "--repo=" + host + "/acme/api"

	if out, err := run(asRev, env["GITHUB_TOKEN_REV"]+"\n", dir, gh, "auth", "login", "--with-token"); err != nil {
		t.Fatalf("gh auth login --with-token: %v\n%s", err, out)
	}
	if out := must(asRev, gh, "auth", "status"); !strings.Contains(out, "Logged in to "+host+" as rev") {
		t.Errorf("gh auth status:\n%s", out)
	}

	url := strings.Replace(env["GIT_URL_ACME_API"], "://", "://x-access-token:"+env["GH_ENTERPRISE_TOKEN"]+"@", 1)
	must(asMain, "git", "clone", "--quiet", url, filepath.Join(dir, "w"))
	w := filepath.Join(dir, "w")
	for _, args := range [][]string{{"checkout", "--quiet", "-b", "hello"}, {"commit", "--quiet", "--allow-empty", "-m", "Say hello"}, {"push", "--quiet", "origin", "hello"}} {
		if out, err := run(asMain, "", w, "git", args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head := must(asMain, gh, "api", "repos/acme/api/pulls", "-f", "title=Say hello", "-f", "head=hello", "-f", "base=main", "--jq", ".head.sha")
	mergeableState := func() string {
		t.Helper()
		must(asMain, gh, "api", "repos/acme/api/pulls/1") // the first read after a push is null
		return must(asMain, gh, "api", "repos/acme/api/pulls/1", "--jq", ".mergeable_state")
	}
	if got := mergeableState(); got != "blocked" {
		t.Errorf("REST mergeable_state before the review: %q, want blocked", got)
	}

	if got := strings.Split(must(asRev, gh, "pr", "list", repo), "\t"); len(got) < 4 || !cmp.Equal(got[:4], []string{"1", "Say hello", "hello", "OPEN"}) {
		t.Errorf("gh pr list: %q, want number, title, branch and OPEN", got)
	}
	view := func() string {
		t.Helper()
		return must(asRev, gh, "pr", "view", "1", repo, "--json", "number,state,headRefOid,mergeStateStatus,reviewDecision,latestReviews,comments",
			"--jq", `[.number, .state, .headRefOid, .mergeStateStatus, .reviewDecision, (.latestReviews | map(.author.login + ":" + .state) | join(",")),
			(.comments | map(.author.login + ":" + .body) | join(","))] | map(tostring) | join(" ")`)
	}
	if got, want := view(), "1 OPEN "+head+" BLOCKED REVIEW_REQUIRED"; got != want {
		t.Errorf("gh pr view --json before the review:\n got %q\nwant %q", got, want)
	}

	must(asMain, gh, "api", "repos/acme/api/statuses/"+head, "-f", "state=success", "-f", "context=ci/build", "-f", "target_url=https://ci.example/1")
	must(asMain, gh, "api", "repos/acme/api/check-runs", "-f", "name=lint", "-f", "head_sha="+head, "-f", "status=completed", "-f", "conclusion=success")
	checks := strings.Split(must(asRev, gh, "pr", "checks", "1", repo), "\n")
	var rows []string
	for _, l := range checks {
		// name, state, elapsed and the link when there is one
		f := append(strings.Split(l, "\t"), "")
		if len(f) < 4 {
			t.Fatalf("gh pr checks line %q: want name, state and elapsed", l)
		}
		rows = append(rows, strings.TrimSpace(f[0]+" "+f[1]+" "+f[3]))
	}
	sort.Strings(rows)
	if diff := cmp.Diff([]string{"ci/build pass https://ci.example/1", "lint pass"}, rows); diff != "" {
		t.Errorf("gh pr checks (-want +got):\n%s", diff)
	}

	must(asRev, gh, "pr", "review", "1", repo, "--approve", "--body", "Looks good")
	if got := must(asMain, gh, "api", "repos/acme/api/pulls/1/reviews", "--jq", `.[] | .user.login + " " + .state + " " + .body`); got != "rev APPROVED Looks good" {
		t.Errorf("REST reviews after gh pr review --approve: %q", got)
	}
	if got := mergeableState(); got != "clean" {
		t.Errorf("REST mergeable_state after the approval: %q, want clean", got)
	}

	link := must(asRev, gh, "pr", "comment", "1", repo, "--body", "Thanks!")
	rest := must(asMain, gh, "api", "repos/acme/api/issues/1/comments", "--jq", `.[] | .html_url + " " + .user.login + " " + .body`)
	if !strings.HasPrefix(link, "https://"+host+"/acme/api/pull/1#issuecomment-") || rest != link+" rev Thanks!" {
		t.Errorf("gh pr comment printed %q; REST comments %q", link, rest)
	}
	if got, want := view(), "1 OPEN "+head+" CLEAN APPROVED rev:APPROVED rev:Thanks!"; got != want {
		t.Errorf("gh pr view --json after review and comment:\n got %q\nwant %q", got, want)
	}

	must(asMain, gh, "pr", "merge", "1", repo, "--merge")
	if got := must(asMain, gh, "api", "repos/acme/api/pulls/1", "--jq", `[.merged, .merged_by.login, .state] | map(tostring) | join(" ")`); got != "true gallivant-bot closed" {
		t.Errorf("REST after gh pr merge --merge: %q", got)
	}
	if got := must(asRev, gh, "pr", "list", repo, "--state", "merged"); !strings.HasPrefix(got, "1\tSay hello\thello\tMERGED\t") {
		t.Errorf("gh pr list --state merged: %q", got)
	}
}
