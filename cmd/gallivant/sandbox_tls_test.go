package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// `gallivant sandbox --tls` serves HTTPS with a certificate it writes for
// its clients and prints what the GitHub CLI and git need (issue 30 item
// 8): after sourcing the lines, gh api reads a repository, creates the
// webhook docs/operations.md creates with gh and opens a pull request from
// a branch git pushed over HTTPS, and lists it.
func TestSandboxTLSWithGitHubCLI(t *testing.T) {
	t.Parallel()
	gh, err := exec.LookPath("gh")
	if err != nil {
		t.Skip("the GitHub CLI is not installed (Debian package gh; .ci/run installs it)")
	}
	bin := gallivantBinary(t)
	dir := t.TempDir()
	cmd, env := startSandboxUntil(t, bin, []string{"--dir", filepath.Join(dir, "sb"), "--repo", "acme/api", "--tls"},
		func(env map[string]string, k string) bool { return k == "GH_ENTERPRISE_TOKEN" })
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	if !strings.HasPrefix(env["GITHUB_API_URL"], "https://127.0.0.1:") || env["GH_HOST"] == "" || env["SSL_CERT_FILE"] != env["GIT_SSL_CAINFO"] {
		t.Fatalf("--tls printed %v", env)
	}
	clientEnv := append(os.Environ(), "GH_CONFIG_DIR="+filepath.Join(dir, "gh"), "GH_TOKEN=", "GITHUB_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=",
		"GH_NO_UPDATE_NOTIFIER=1", "GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@example.com", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@example.com")
	for _, k := range []string{"SSL_CERT_FILE", "GIT_SSL_CAINFO", "GH_HOST", "GH_ENTERPRISE_TOKEN"} {
		clientEnv = append(clientEnv, k+"="+env[k])
	}
	run := func(dir, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, clientEnv
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(dir, gh, "api", "repos/acme/api", "--jq", ".full_name"); got != "acme/api" {
		t.Errorf("gh api repos/acme/api: %q", got)
	}
	hook := run(dir, gh, "api", "repos/acme/api/hooks", "-f", "name=web", "-F", "active=true",
		"-f", "config[url]=http://127.0.0.1:9/hooks/github", "-f", "config[content_type]=json", "-f", "config[secret]=s3cret",
		"-f", "events[]=push", "-f", "events[]=pull_request", "-f", "events[]=check_suite", "-f", "events[]=workflow_run",
		"--jq", ".config.url + \" \" + (.events | join(\",\"))")
	if hook != "http://127.0.0.1:9/hooks/github push,pull_request,check_suite,workflow_run" {
		t.Errorf("gh api repos/acme/api/hooks: %q", hook)
	}
	url := strings.Replace(env["GIT_URL_ACME_API"], "://", "://x-access-token:"+env["GITHUB_TOKEN"]+"@", 1)
	run(dir, "git", "clone", "--quiet", url, "w")
	w := filepath.Join(dir, "w")
	run(w, "git", "checkout", "--quiet", "-b", "hello")
	if err := os.WriteFile(filepath.Join(w, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(w, "git", "add", "-A")
	run(w, "git", "commit", "--quiet", "-m", "Add hello")
	run(w, "git", "push", "--quiet", "origin", "hello")
	if got := run(dir, gh, "api", "repos/acme/api/pulls", "-f", "title=Say hello", "-f", "head=hello", "-f", "base=main", "--jq", ".number"); got != "1" {
		t.Errorf("gh api -X POST pulls: %q", got)
	}
	if got := run(dir, gh, "api", "--paginate", "repos/acme/api/pulls?state=all", "--jq", ".[] | .head.ref"); got != "hello" {
		t.Errorf("gh api --paginate pulls: %q", got)
	}
}
