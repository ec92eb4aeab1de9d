package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// --env-file appears whole once the sandbox listens; a stale file from an
// earlier run is gone before that, so a script that waits for the file
// never sources an old token. Real time is the point here: the test waits
// for a separate process, as the quickstart's shell does.
func TestSandboxEnvFile(t *testing.T) {
	bin := gallivantBinary(t)
	dir := t.TempDir()
	envFile := filepath.Join(dir, "sb.env")
	if err := os.WriteFile(envFile, []byte("GITHUB_TOKEN=stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "sandbox", "--dir", filepath.Join(dir, "sb"), "--repo", "acme/api", "--env-file", envFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(envFile)
		if err == nil && !strings.Contains(string(b), "stale") {
			data = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fresh env file after 30s (last read %q, %v)", b, err)
		}
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("env file line %q is not KEY=value", line)
		}
		env[k] = v
	}
	if !strings.HasSuffix(env["GITHUB_API_URL"], "/api/v3/") || env["GITHUB_TOKEN"] == "" || env["GIT_URL_ACME_API"] == "" {
		t.Errorf("env file = %v", env)
	}
	if st, err := os.Stat(envFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("env file mode = %v (%v), want 0600: it holds a token", st.Mode().Perm(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".sb.env.*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
