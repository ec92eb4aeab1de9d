package main

import (
	"bufio"
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

// startSandbox runs `gallivant sandbox` and returns its environment lines.
func startSandbox(t *testing.T, bin, dir string, wantURLs int, repos ...string) (*exec.Cmd, map[string]string) {
	args := []string{"sandbox", "--dir", dir}
	for _, r := range repos {
		args = append(args, "--repo", r)
	}
	cmd := exec.Command(bin, args...)
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
		if strings.HasPrefix(k, "GIT_URL_") && len(env) >= 2+wantURLs {
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
	cmd, env := startSandbox(t, bin, dir, 2, "acme/api", "Acme/web.app")
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
	git(w, "push", "--quiet", "origin", "HEAD:refs/heads/feature")
	sha := git(w, "rev-parse", "HEAD")
	if code, body := get("repos/acme/api/branches/feature"); code != 200 || !strings.Contains(body, sha) {
		t.Errorf("pushed branch not visible: %d %s", code, body)
	}
	// SIGTERM shuts it down cleanly.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("sandbox exit: %v", err)
	}
	// State persists across restarts: same token, same repositories.
	cmd2, env2 := startSandbox(t, bin, dir, 2)
	defer func() { cmd2.Process.Signal(os.Interrupt); cmd2.Wait() }()
	if env2["GITHUB_TOKEN"] != tok || env2["GIT_URL_ACME_API"] == "" {
		t.Errorf("after restart: %v", env2)
	}
	api, tok = env2["GITHUB_API_URL"], env2["GITHUB_TOKEN"]
	if code, body := get("repos/acme/api/branches/feature"); code != 200 || !strings.Contains(body, sha) {
		t.Errorf("after restart the branch is gone: %d %s", code, body)
	}
}
