package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shardPass runs one `gallivant reconcile --shard shard` process and reads
// its JSON report.
func (w *cacheWorld) shardPass(shard string) cachePass {
	w.t.Helper()
	cmd := exec.Command(bin, "reconcile", "--control", w.control, "--format", "json", "--shard", shard)
	cmd.Env = w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("shard %s: %v\n%s\n%s", shard, err, stdout.String(), stderr.String())
	}
	var p cachePass
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		w.t.Fatalf("shard %s printed no JSON report: %v\n%s", shard, err, stdout.String())
	}
	for _, tr := range p.Transitions {
		w.performed = append(w.performed, tr.Spec+" "+tr.Subject)
	}
	return p
}

// dashboardIssues counts the issues of acme/control that carry the
// dashboard's marker.
func (w *cacheWorld) dashboardIssues() int {
	w.t.Helper()
	var issues []struct{ Body string }
	w.api("GET", "repos/acme/control/issues?state=all", &issues)
	n := 0
	for _, is := range issues {
		if strings.Contains(is.Body, "<!-- gallivant:dashboard -->") {
			n++
		}
	}
	return n
}

// What a `--shard` pass does with the dashboard issue (docs/requests.md):
// nothing. Sharded passes neither open it, nor perform a box ticked on it,
// nor write it, and each says so in its report; the unsharded pass opens
// it and performs the tick.
func TestShardedPassesLeaveTheDashboard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxUsers(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "dashboard-shard-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig + "dashboard_issue: true\n", "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	left := func(shard string, p cachePass) {
		t.Helper()
		for _, n := range p.Notes {
			if strings.Contains(n.Message, "dashboard_issue is kept by an unsharded pass; shard "+shard+" leaves it alone") {
				return
			}
		}
		t.Errorf("shard %s does not say it leaves the dashboard alone: %+v", shard, p.Notes)
	}
	for i := 0; i < 10 && !w.did("specs/feature.md", "loop: ready acme/api#1"); i++ {
		for _, shard := range []string{"1/2", "2/2"} {
			left(shard, w.shardPass(shard))
		}
	}
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the shards did not deliver the entry: %v", w.performed)
	}
	if n := w.dashboardIssues(); n != 0 {
		t.Fatalf("sharded passes opened %d dashboard issues", n)
	}
	w.settle()
	if n := w.dashboardIssues(); n != 1 {
		t.Fatalf("%d dashboard issues after an unsharded pass, want 1", n)
	}

	var pr struct{ State string }
	w.send("PATCH", "repos/acme/api/pulls/1", map[string]string{"state": "closed"}, &pr)
	w.settle()
	n, body := w.dashboard()
	issue := "repos/acme/control/issues/" + strconv.Itoa(n)
	ticked := strings.Replace(body, "- [ ] resume <!--", "- [x] resume | closed by mistake <!--", 1)
	if ticked == body {
		t.Fatalf("the dashboard offers no resume:\n%s", body)
	}
	var out struct{ Number int }
	w.as("bob").send("PATCH", issue, map[string]string{"body": ticked}, &out)
	for _, shard := range []string{"1/2", "2/2"} {
		p := w.shardPass(shard)
		left(shard, p)
		if len(p.Transitions) != 0 {
			t.Errorf("shard %s performed %v with a tick on the dashboard", shard, p.Transitions)
		}
	}
	if _, now := w.dashboard(); now != ticked {
		t.Fatalf("a sharded pass wrote the dashboard:\n%s", now)
	}
	w.settle()
	subject := "loop: request resume from acme/control#" + strconv.Itoa(n) + " by @bob"
	if !w.did("specs/feature.md", subject) {
		t.Fatalf("the unsharded pass did not perform the tick: %v", w.performed)
	}
	if _, now := w.dashboard(); strings.Contains(now, "- [x] resume") {
		t.Errorf("the box is not cleared:\n%s", now)
	}
}
