package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// startSandbox runs `gallivant sandbox` with the repositories under dir,
// stops it when the test ends, and returns the lines it printed
// (GITHUB_API_URL, GITHUB_TOKEN, GIT_URL_<OWNER>_<NAME>) by name.
func startSandbox(t *testing.T, dir string, rateLimit int, repos ...string) map[string]string {
	t.Helper()
	return startSandboxUsers(t, dir, rateLimit, nil, repos...)
}

// startSandboxUsers is startSandbox with further users of write access;
// their tokens are among the lines returned (GITHUB_TOKEN_<LOGIN>).
func startSandboxUsers(t *testing.T, dir string, rateLimit int, users []string, repos ...string) map[string]string {
	t.Helper()
	return startSandboxWith(t, dir, rateLimit, users, nil, nil, repos...)
}

// startSandboxFlags is startSandboxUsers with further flags of `gallivant
// sandbox` that print nothing (--protect, --webhook).
func startSandboxFlags(t *testing.T, dir string, rateLimit int, users, flags []string, repos ...string) map[string]string {
	t.Helper()
	return startSandboxWith(t, dir, rateLimit, users, nil, flags, repos...)
}

// startSandboxRoles is startSandboxUsers with outsiders too: logins with
// read access only (`--outsider`), their tokens returned as well.
func startSandboxRoles(t *testing.T, dir string, rateLimit int, users, outsiders []string, repos ...string) map[string]string {
	t.Helper()
	return startSandboxWith(t, dir, rateLimit, users, outsiders, nil, repos...)
}

// startSandboxWith starts `gallivant sandbox` with writers, outsiders and
// further flags, and returns what it prints: the API URL and a token per
// login.
func startSandboxWith(t *testing.T, dir string, rateLimit int, users, outsiders, flags []string, repos ...string) map[string]string {
	t.Helper()
	return startSandboxEnv(t, dir, rateLimit, users, outsiders, flags, nil, repos...)
}

// startSandboxEnv is startSandboxWith with extraEnv added to the sandbox's
// environment (this process's), as a person's shell would export it.
func startSandboxEnv(t *testing.T, dir string, rateLimit int, users, outsiders, flags, extraEnv []string, repos ...string) map[string]string {
	t.Helper()
	args := append([]string{"sandbox", "--dir", dir, "--rate-limit", strconv.Itoa(rateLimit)}, flags...)
	for _, r := range repos {
		args = append(args, "--repo", r)
	}
	for _, u := range users {
		args = append(args, "--user", u)
	}
	for _, u := range outsiders {
		args = append(args, "--outsider", u)
	}
	sb := exec.Command(bin, args...)
	if extraEnv != nil {
		sb.Env = append(os.Environ(), extraEnv...)
	}
	out, err := sb.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sb.Stderr = io.Discard
	if err := sb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Process.Signal(syscall.SIGTERM); sb.Wait() })
	env := map[string]string{}
	sc := bufio.NewScanner(out)
	for len(env) < 2+len(repos)+len(users)+len(outsiders) && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
	}
	go io.Copy(io.Discard, out)
	if env["GITHUB_API_URL"] == "" || env["GITHUB_TOKEN"] == "" {
		t.Fatalf("the sandbox did not start: %v", env)
	}
	if limit := rateOf(t, env).Limit; limit != rateLimit {
		t.Fatalf("the sandbox ignored --rate-limit %d: it reports a limit of %d", rateLimit, limit)
	}
	return env
}

// coreRate is the sandbox's primary rate limit for the main token, as
// GET /rate_limit reports it.
type coreRate struct {
	Limit, Remaining, Used int
	Reset                  int64
}

// rateOf asks the sandbox what the main token has spent. The request
// itself costs nothing, as on GitHub.
func rateOf(t *testing.T, env map[string]string) coreRate {
	t.Helper()
	req, err := http.NewRequest("GET", env["GITHUB_API_URL"]+"rate_limit", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env["GITHUB_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("read the sandbox's rate limit: %v", err)
	}
	defer resp.Body.Close()
	var body struct{ Resources struct{ Core coreRate } }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("read the sandbox's rate limit: %s: %v", resp.Status, err)
	}
	return body.Resources.Core
}
