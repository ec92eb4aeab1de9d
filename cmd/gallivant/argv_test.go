package main

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

func TestSplitControlArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		want     []string
		wantCred string
	}{
		{[]string{"reconcile", "--control", "https://x-access-token:s3cr%40t@github.com/acme/control.git"},
			[]string{"reconcile", "--control", "https://github.com/acme/control.git"}, "x-access-token:s3cr%40t"},
		{[]string{"status", "--control=https://u:p@ghe.example/acme/c.git", "--format", "json"},
			[]string{"status", "--control=https://ghe.example/acme/c.git", "--format", "json"}, "u:p"},
		{[]string{"reconcile", "--control", "https://github.com/acme/control.git"}, nil, ""},
		{[]string{"reconcile", "--control", "/srv/control"}, nil, ""},
		{[]string{"task", "--", "--control", "https://u:p@github.com/a/b.git"}, nil, ""},
	}
	for _, tt := range tests {
		got, cred, ok := splitControlArgs(tt.args)
		if !ok {
			got = nil
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || cred != tt.wantCred {
			t.Errorf("splitControlArgs(%q): cred %q (want %q), argv (-want +got):\n%s", tt.args, cred, tt.wantCred, diff)
		}
		if ok {
			if back := withControlCredentials(strings.TrimPrefix(got[len(got)-1], "--control="), cred); strings.Contains(tt.args[len(tt.args)-1], "@") && !strings.Contains(back, "@") {
				t.Errorf("withControlCredentials lost the credentials: %s", back)
			}
		}
	}
	if got := withControlCredentials("https://github.com/a/b.git", "x-access-token:s3cr%40t"); got != "https://x-access-token:s3cr%40t@github.com/a/b.git" {
		t.Errorf("withControlCredentials = %s", got)
	}
}

// copyExecutable copies the test binary where another user can run it.
func copyExecutable(t *testing.T, dir string) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(dir, "gallivant")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// peekingAgent is issue 29's same-user and argv findings as a script: an
// agent of gallivant's own user reads its parent's command line (the
// --control URL) and environment (the token).
const peekingAgent = `#!/bin/sh
cat /proc/$PPID/cmdline > LOOT/cmdline
cat /proc/$PPID/environ > LOOT/environ 2> LOOT/environ.err
id -u > LOOT/uid
`

// Issue 29: a credentialed --control URL is out of gallivant's argv
// (a restart passes it through a pipe), and an agent of gallivant's own
// user cannot read gallivant's environment (PR_SET_DUMPABLE 0). gallivant
// runs as nobody here, so that the agent's reads are an unprivileged
// user's.
func TestSameUserAgentReadsNeitherArgvNorEnviron(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("running gallivant as an unprivileged user needs the tests to run as root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	gh := testserver.Start(t, "acme/api", "acme/control")
	// The credential in the URL is a real token: the stand-in refuses
	// pushes without one, as GitHub does.
	secret := gh.MainToken()
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		os.Chmod(d, 0o755)
	}
	bin := copyExecutable(t, base)
	loot, cache, home := filepath.Join(base, "loot"), filepath.Join(base, "cache"), filepath.Join(base, "home")
	for _, d := range []string{loot, cache, home} {
		os.MkdirAll(d, 0o777)
		os.Chmod(d, 0o777)
	}
	agent := filepath.Join(base, "agent.sh")
	os.WriteFile(agent, []byte(strings.ReplaceAll(peekingAgent, "LOOT", loot)), 0o755)
	ctl := filepath.Join(base, "ctl")
	gitCmd(t, base, "clone", "--quiet", gh.GitURL("acme/control"), ctl)
	os.MkdirAll(filepath.Join(ctl, "specs"), 0o755)
	os.WriteFile(filepath.Join(ctl, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\nexecutor:\n  kind: command\n  command: [\"sh\", \""+agent+"\"]\n  timeout: 5m\n"), 0o644)
	os.WriteFile(filepath.Join(ctl, "specs", "a.md"), []byte("# A\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "Approve")
	// The token goes on this one push's command line, not into the clone's
	// config, where the agent could read it.
	gitCmd(t, ctl, "push", "--quiet", gh.GitURLWithToken("acme/control", secret), "HEAD:main")

	control := strings.Replace(gh.GitURL("acme/control"), "http://", "http://x-access-token:"+secret+"@", 1)
	cmd := exec.Command(bin, "reconcile", "--control", control)
	cmd.Dir = base
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GALLIVANT_CACHE=" + cache, "GITHUB_API_URL=" + gh.APIURL(),
		"GITHUB_TOKEN=" + gh.MainToken(), "GIT_CONFIG_GLOBAL=/dev/null"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(readFileString(filepath.Join(loot, "uid"))); got != nobody.Uid {
		t.Fatalf("the agent ran as uid %q, want %s (gallivant's own user)\n%s", got, nobody.Uid, out)
	}
	if !strings.Contains(string(out), "restarting without it in argv") {
		t.Errorf("no warning about the credential in argv:\n%s", out)
	}
	cmdline := readFileString(filepath.Join(loot, "cmdline"))
	if !strings.Contains(cmdline, "reconcile") {
		t.Fatalf("the agent did not read its parent's command line (%q); the test proves nothing", cmdline)
	}
	if strings.Contains(cmdline, secret) {
		t.Errorf("gallivant's command line holds the --control credential: %q", cmdline)
	}
	if env := readFileString(filepath.Join(loot, "environ")); strings.Contains(env, gh.MainToken()) || env != "" {
		t.Errorf("the agent read gallivant's environment (%d bytes)", len(env))
	}
}
