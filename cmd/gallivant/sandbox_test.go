package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gallivantBinary returns a path that runs this test binary as gallivant
// (testscript.Main dispatches on the program name).
func gallivantBinary(t *testing.T) string {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gallivant")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// startSandboxUntil runs `gallivant sandbox args...` and reads its
// environment lines until done says they are all there.
func startSandboxUntil(t *testing.T, bin string, args []string, done func(env map[string]string, key string) bool) (*exec.Cmd, map[string]string) {
	cmd := exec.Command(bin, append([]string{"sandbox"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
		if done(env, k) {
			break
		}
	}
	go io.Copy(io.Discard, out)
	return cmd, env
}

func TestSandbox(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	dir := t.TempDir()
	cmd, env := startSandboxUntil(t, bin, []string{"--dir", dir, "--repo", "acme/api", "--repo", "Acme/web.app", "--user", "teammate"},
		func(env map[string]string, k string) bool { return k == "GITHUB_TOKEN_TEAMMATE" })
	api, tok, gitURL := env["GITHUB_API_URL"], env["GITHUB_TOKEN"], env["GIT_URL_ACME_API"]
	if !strings.HasPrefix(api, "http://127.0.0.1:") || !strings.HasSuffix(api, "/api/v3/") || tok == "" || gitURL == "" || env["GIT_URL_ACME_WEB_APP"] == "" {
		t.Fatalf("sandbox printed %v", env)
	}
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", api+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("repos/acme/api/branches/main"); code != 200 || !strings.Contains(body, `"name":"main"`) {
		t.Fatalf("GET branch: %d %s", code, body)
	}
	// A push with the real git binary is visible through the API.
	work := t.TempDir()
	git := func(dir string, args ...string) string {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		o, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, o)
		}
		return strings.TrimSpace(string(o))
	}
	git(work, "clone", "--quiet", gitURL, "w")
	w := filepath.Join(work, "w")
	os.WriteFile(filepath.Join(w, "x.txt"), []byte("x"), 0o644)
	git(w, "add", "-A")
	git(w, "commit", "--quiet", "-m", "x")
	// Anyone may clone; a push needs the token, as on GitHub.
	anon := exec.Command("git", "push", "--quiet", "origin", "HEAD:refs/heads/anonymous")
	anon.Dir, anon.Env = w, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0")
	if out, err := anon.CombinedOutput(); err == nil {
		t.Errorf("an anonymous push was accepted: %s", out)
	}
	git(w, "push", "--quiet", strings.Replace(gitURL, "://", "://x-access-token:"+tok+"@", 1), "HEAD:refs/heads/feature")
	sha := git(w, "rev-parse", "HEAD")
	if code, body := get("repos/acme/api/branches/feature"); code != 200 || !strings.Contains(body, sha) {
		t.Errorf("pushed branch not visible: %d %s", code, body)
	}
	// state.json holds every token: the owner's alone.
	if fi, err := os.Stat(filepath.Join(dir, "state.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state.json: %v, mode %v; want 0600", err, fi.Mode())
	}
	// SIGTERM shuts it down cleanly.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("sandbox exit: %v", err)
	}
	// State persists across restarts: same token, same repositories, and
	// the users of an earlier start (their tokens still work).
	cmd2, env2 := startSandboxUntil(t, bin, []string{"--dir", dir}, func(env map[string]string, k string) bool { return k == "GITHUB_TOKEN_TEAMMATE" })
	defer func() { cmd2.Process.Signal(os.Interrupt); cmd2.Wait() }()
	if env2["GITHUB_TOKEN"] != tok || env2["GIT_URL_ACME_API"] == "" || env2["GITHUB_TOKEN_TEAMMATE"] != env["GITHUB_TOKEN_TEAMMATE"] {
		t.Errorf("after restart: %v", env2)
	}
	api, tok = env2["GITHUB_API_URL"], env2["GITHUB_TOKEN"]
	if code, body := get("repos/acme/api/branches/feature"); code != 200 || !strings.Contains(body, sha) {
		t.Errorf("after restart the branch is gone: %d %s", code, body)
	}
}

// --protect protects a branch as GitHub does, for git pushes and through
// the protection endpoint gallivant reads (issue 30 item 1).
func TestSandboxProtect(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	cmd, env := startSandboxUntil(t, bin, []string{"--dir", t.TempDir(), "--repo", "acme/api", "--user", "teammate",
		"--protect", "acme/api:main,check=ci"}, func(env map[string]string, k string) bool { return k == "GITHUB_TOKEN_TEAMMATE" })
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	api, tok, mate := env["GITHUB_API_URL"], env["GITHUB_TOKEN"], env["GITHUB_TOKEN_TEAMMATE"]
	if mate == "" {
		t.Fatalf("sandbox printed %v", env)
	}
	req, _ := http.NewRequest("GET", api+"repos/acme/api/branches/main/protection", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"required_approving_review_count":1`, `"contexts":["ci"]`, `"allow_force_pushes":{"enabled":false}`} {
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET protection: %d %s; want %s", resp.StatusCode, body, want)
		}
	}
	w := t.TempDir()
	url := strings.Replace(env["GIT_URL_ACME_API"], "://", "://x-access-token:"+mate+"@", 1)
	run := func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = w
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		o, err := c.CombinedOutput()
		return string(o), err
	}
	if out, err := run("clone", "--quiet", url, "."); err != nil {
		t.Fatal(out)
	}
	run("commit", "--quiet", "--allow-empty", "-m", "direct")
	out, err := run("push", url, "HEAD:main")
	if err == nil || !strings.Contains(out, "GH006: Protected branch update failed for refs/heads/main.") ||
		!strings.Contains(out, "Changes must be made through a pull request.") || !strings.Contains(out, `Required status check "ci" is expected.`) {
		t.Errorf("a teammate's direct push to protected main: err %v\n%s", err, out)
	}
	if out, err := run("push", url, "HEAD:refs/heads/feature"); err != nil {
		t.Errorf("a push to an unprotected branch: %v\n%s", err, out)
	}
}

// --public-url must be scheme://host[:port]; anything else is a usage error
// naming what is expected.
func TestSandboxPublicURLIsChecked(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	for _, bad := range []string{"sb.example.com", "ftp://sb.example.com", "https://sb.example.com/api", "https://u:p@sb.example.com", "https://"} {
		out, err := exec.Command(bin, "sandbox", "--dir", t.TempDir(), "--public-url", bad).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--public-url") || !strings.Contains(string(out), "e.g. https://sb") {
			t.Errorf("--public-url %q: %v\n%s", bad, err, out)
		}
	}
}
