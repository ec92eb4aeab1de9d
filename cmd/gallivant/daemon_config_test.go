package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/daemon"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/robfig/cron/v3"
)

// The daemon re-reads gallivant.yaml before every pass: a committed
// executor change runs the next agent with the new command, a schedule
// change moves the ticks, and an invalid change is a problem while the
// last good configuration stays, for the wiring and the pass alike.
func TestDaemonAppliesCommittedConfig(t *testing.T) {
	t.Parallel()
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	mark := filepath.Join(work, "runs")
	agent := filepath.Join(work, "agent.sh")
	script := strings.ReplaceAll(shellAgent, `"$RUNLOG"`, `/dev/null`)
	script = strings.ReplaceAll(script, "git commit", "git -c user.name=agent -c user.email=agent@x commit")
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	config := func(name, extra string) string {
		return "defaults:\n  repo: acme/api\n  escalate_after: 9\nexecutor:\n  kind: command\n" +
			"  command: [\"sh\", \"-c\", \"echo " + name + " >> " + mark + "; exec sh " + agent + "\"]\n  timeout: 5m\n  env: [PATH, HOME]\n" + extra
	}
	src := filepath.Join(work, "src")
	files := map[string]string{
		"gallivant.yaml": config("first", ""),
		"specs/alpha.md": "# Alpha\n\n## Acceptance criteria\n1. One.\n2. Two.\n3. Three.\n4. Four.\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(c), 0o644)
	}
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve specs")
	bare := filepath.Join(work, "control.git")
	gitCmd(t, work, "clone", "--quiet", "--bare", src, bare)
	// commit changes gallivant.yaml and approves one more spec, so that
	// the next pass has an agent to run.
	commit := func(cfg, spec string) {
		t.Helper()
		wt := filepath.Join(t.TempDir(), "wt")
		gitCmd(t, work, "clone", "--quiet", bare, wt)
		os.WriteFile(filepath.Join(wt, "gallivant.yaml"), []byte(cfg), 0o644)
		os.WriteFile(filepath.Join(wt, "specs", spec+".md"), []byte("# "+spec+"\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
		gitCmd(t, wt, "add", "-A")
		gitCmd(t, wt, "commit", "--quiet", "-m", "Change the configuration")
		gitCmd(t, wt, "push", "--quiet", "origin", "HEAD:main")
	}
	runs := func() []string {
		data, _ := os.ReadFile(mark)
		return strings.Fields(string(data))
	}

	env := map[string]string{"GITHUB_API_URL": gh.APIURL(), "GITHUB_TOKEN": gh.MainToken(), "GALLIVANT_CACHE": filepath.Join(work, "cache")}
	var stderr bytes.Buffer
	a := &app{io: streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &stderr}, env: func(k string) string { return env[k] }, quiet: true, keepGoodConfig: true}
	ctx := context.Background()
	w, err := a.reconciler(ctx, "file://"+bare, false)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := reconcile.Load(ctx, w.store)
	if err != nil {
		t.Fatal(err)
	}
	var schedules []cron.Schedule
	o := a.daemonOptions(w, "file://"+bare, snap, false, a.logger())
	o.Config.SetReschedule(func(s cron.Schedule) { schedules = append(schedules, s) })
	d := daemon.New(o)
	pass := func() {
		t.Helper()
		stderr.Reset()
		if err := d.Pass(ctx); err != nil {
			t.Fatalf("pass: %v\n%s", err, stderr.String())
		}
	}

	pass()
	before := len(runs())
	if before == 0 || strings.Join(runs(), " ") != strings.TrimSpace(strings.Repeat("first ", before)) {
		t.Fatalf("the first pass ran %q, want only the first command", runs())
	}

	commit(config("second", "schedule: \"@every 7m\"\n"), "beta")
	pass()
	got := runs()
	if len(got) == before {
		t.Fatalf("the pass after the change ran no agent; runs %q\n%s", got, stderr.String())
	}
	for _, r := range got[before:] {
		if r != "second" {
			t.Errorf("after the change an agent ran with %q, want the new command (runs %q)", r, got)
		}
	}
	if !strings.Contains(stderr.String(), "gallivant.yaml: applied executor: from ") || !strings.Contains(stderr.String(), "gallivant.yaml: applied schedule: from ") {
		t.Errorf("the applied changes are not reported:\n%s", stderr.String())
	}
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	if len(schedules) != 1 || schedules[0].Next(t0).Sub(t0) != 7*time.Minute {
		t.Errorf("schedules %v, want one of every 7m", schedules)
	}

	// An invalid change: refused as a problem; the pass runs on the last
	// good configuration, with its executor.
	commit("executor:\n  kind: teleport\n", "gamma")
	before = len(runs())
	stderr.Reset()
	o.Config.Reload(ctx)
	rep, err := w.Pass(ctx)
	if err != nil {
		t.Fatalf("a pass on an invalid gallivant.yaml: %v", err)
	}
	problem := ""
	for _, n := range rep.Notes {
		if n.Spec == "gallivant.yaml" && n.Problem {
			problem = n.Message
		}
	}
	if !strings.Contains(problem, "has errors (gallivant check); the change is refused and this pass keeps the configuration of ") {
		t.Errorf("no problem names the refused change; notes %+v", rep.Notes)
	}
	if len(runs()) == before {
		t.Errorf("the pass on the invalid change ran no agent for the new spec; runs %q", runs())
	}
	for _, r := range runs()[before:] {
		if r != "second" {
			t.Errorf("on the invalid change an agent ran with %q, want the last good command", r)
		}
	}
	if len(schedules) != 1 {
		t.Errorf("the invalid change moved the schedule: %v", schedules)
	}
	if code := exitCode(passExit(rep, nil, "GITHUB_TOKEN"), &bytes.Buffer{}); code != exitFindings {
		t.Errorf("a pass that refused a change exits %d, want %d", code, exitFindings)
	}
}
