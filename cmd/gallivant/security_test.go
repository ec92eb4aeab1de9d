package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// Issue 11, finding 5: a credential in the --control URL is grepped for in
// every output and every file a pass leaves behind (the cache clone's
// config, the GitHub stand-in's state with the workflow-dispatch inputs,
// the control repository's new commits): it is in none.
func TestControlURLCredentialNeverLeaks(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	state := t.TempDir()
	gh := testserver.StartWith(t, ghstandin.Options{Dir: state}, "acme/api", "acme/control")
	// A valid credential (git over HTTP checks it) that the stand-in keeps
	// in memory only, so that its state on disk is searched for it too.
	secret := testserver.InstallationToken(t, gh, 77, "ci-app", "acme")
	// The workflow declares every input the workflow executor sends, as
	// GitHub requires of a dispatch.
	wf := "on:\n  workflow_dispatch:\n    inputs:\n"
	for _, in := range []string{"control", "spec", "ledger", "branch", "target", "pending", "iteration", "round", "model"} {
		wf += "      " + in + ": {}\n"
	}
	if err := gh.PutFile("acme/api", "main", ".github/workflows/agent.yml", wf); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ctl := filepath.Join(work, "ctl")
	gitCmd(t, work, "clone", "--quiet", gh.GitURLWithToken("acme/control", gh.MainToken()), ctl)
	os.MkdirAll(filepath.Join(ctl, "specs"), 0o755)
	os.WriteFile(filepath.Join(ctl, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\nexecutor:\n  kind: workflow\n  workflow: agent.yml\n"), 0o644)
	os.WriteFile(filepath.Join(ctl, "specs", "a.md"), []byte("# A\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "Approve")
	gitCmd(t, ctl, "push", "--quiet", "origin", "HEAD:main")

	control := strings.Replace(gh.GitURL("acme/control"), "http://", "http://x-access-token:"+secret+"@", 1)
	cache := filepath.Join(work, "cache")
	var stdout, stderr bytes.Buffer
	for pass := 0; pass < 2; pass++ {
		cmd := exec.Command(bin, "reconcile", "--control", control)
		cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+cache, "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken(), "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("reconcile: %v\n%s", err, stderr.String())
		}
	}
	for _, args := range [][]string{{"status"}, {"why", "a"}, {"log", "specs/a.md"}, {"task", "a"}} {
		cmd := exec.Command(bin, append(args, "--control", control)...)
		cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+cache, "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken(), "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
	}
	ds := gh.Dispatches("acme/api")
	if len(ds) == 0 {
		t.Fatalf("no workflow was dispatched; the test proves nothing\n%s", stderr.String())
	}
	if got, want := ds[0].Inputs["control"], gh.GitURL("acme/control"); got != want {
		t.Errorf("dispatch input control = %q, want the URL without credentials %q", got, want)
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Errorf("the credential is in gallivant's output:\n%s%s", stdout.String(), stderr.String())
	}
	// Every file: the cache (with the clone's config), the stand-in's
	// state and repositories (packed objects are compressed, so the
	// control repository's history is read with git as well).
	files := 0
	for _, root := range []string{cache, state} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the credential", p)
			}
			return nil
		})
	}
	if files < 10 {
		t.Fatalf("only %d files were searched", files)
	}
	if log := gitCmd(t, gh.RepoDir("acme/control"), "log", "-p", "main"); !strings.Contains(log, "loop: dispatch seed") || strings.Contains(log, secret) {
		t.Errorf("the control history lacks the dispatch or holds the credential:\n%s", log)
	}
}

// Issue 11, finding 7, end to end: SIGTERM while an agent runs lets that
// run finish, and the pass starts no other agent before the daemon exits.
// One agent at a time (max_parallel: 1), so that exactly one is in flight.
func TestDaemonDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	runs, started, release := filepath.Join(work, "runs.log"), filepath.Join(work, "started"), filepath.Join(work, "release")
	// The agent records its run, then holds until the test releases it.
	agent := "#!/bin/sh\necho \"$GALLIVANT_SPEC\" >> " + runs + "\ntouch " + started + "\nwhile [ ! -e " + release + " ]; do sleep 0.05; done\n"
	os.WriteFile(filepath.Join(work, "agent.sh"), []byte(agent), 0o755)
	src := filepath.Join(work, "ctl")
	os.MkdirAll(filepath.Join(src, "specs"), 0o755)
	os.WriteFile(filepath.Join(src, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\nexecutor:\n  kind: command\n  command: [\"sh\", \""+
		filepath.Join(work, "agent.sh")+"\"]\n  timeout: 5m\n  max_parallel: 1\nschedule: \"@every 1h\"\n"), 0o644)
	for _, name := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(src, "specs", name+".md"), []byte("# "+name+"\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
	}
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve")
	cmd := exec.Command(bin, "daemon", "--control", src)
	cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+filepath.Join(work, "cache"), "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken())
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A black-box test of a separate process: real time is the point.
	deadline := time.Now().Add(30 * time.Second)
	for _, err := os.Stat(started); err != nil && time.Now().Before(deadline); _, err = os.Stat(started) {
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(started); err != nil {
		cmd.Process.Kill()
		t.Fatalf("no agent started:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for !strings.Contains(stderr.String(), "stopping after the running pass") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	os.WriteFile(release, nil, 0o644)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("daemon exit: %v\n%s", err, stderr.String())
	}
	if got := strings.Fields(readFileString(runs)); len(got) != 1 {
		t.Errorf("agent runs %v, want exactly the one in flight at SIGTERM\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), "gallivant is stopping") {
		t.Errorf("the deferred dispatch is not reported:\n%s", stderr.String())
	}
}

func readFileString(p string) string { b, _ := os.ReadFile(p); return string(b) }
