package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSandboxFaults: --faults makes the served API fail as asked, seeded,
// and the sandbox prints what it injected when it stops.
func TestSandboxFaults(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	cmd := exec.Command(bin, "sandbox", "--dir", t.TempDir(), "--repo", "acme/api", "--faults", "429=1", "--fault-seed", "9")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer kill.Stop()
	env := map[string]string{}
	sc := bufio.NewScanner(out)
	for len(env) < 3 && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
	}
	go io.Copy(io.Discard, out)
	if env["GITHUB_API_URL"] == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the sandbox did not start: %v\n%s", env, stderr.String())
	}
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest("GET", env["GITHUB_API_URL"]+"repos/acme/api", nil)
		req.Header.Set("Authorization", "Bearer "+env["GITHUB_TOKEN"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("request %d: %d remaining %q reset %q, want 429 with GitHub's rate-limit headers", i, resp.StatusCode,
				resp.Header.Get("X-RateLimit-Remaining"), resp.Header.Get("X-RateLimit-Reset"))
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	const want = "sandbox faults injected: 5xx=0 timeout=0 403=0 429=2 secondary=0 malformed=0 lost=0 git-5xx=0 git-timeout=0 git-lost=0 git-reset=0\n"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want it to hold %q", stderr.String(), want)
	}
}
