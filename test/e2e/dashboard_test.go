package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// statusOf sends one request as w's user and returns GitHub's status.
func (w *cacheWorld) statusOf(method, path string, body any) int {
	w.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		w.t.Fatal(err)
	}
	req, err := http.NewRequest(method, w.sandbox["GITHUB_API_URL"]+path, bytes.NewReader(b))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.sandbox["GITHUB_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// dashboard returns the number and body of the control repository's
// dashboard issue.
func (w *cacheWorld) dashboard() (int, string) {
	w.t.Helper()
	var issues []struct {
		Number int
		Body   string
	}
	w.api("GET", "repos/acme/control/issues?state=all", &issues)
	for _, is := range issues {
		if strings.Contains(is.Body, "<!-- gallivant:dashboard -->") {
			return is.Number, is.Body
		}
	}
	w.t.Fatalf("no dashboard issue in acme/control among %d issues", len(issues))
	return 0, ""
}

// The dashboard issue against `gallivant sandbox` and the built binary
// (issue 34, docs/requests.md): a stopped entry's resume box, ticked by a
// read-only user, is GitHub's 403 and changes nothing; ticked by a writer,
// it becomes `loop: request resume from acme/control#1 by @bob`, the
// entry resumes, the box is cleared with the result, and verify replays
// the commit.
func TestDashboardIssueFromEachRole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxRoles(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, []string{"mallory"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "dashboard-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig + "dashboard_issue: true\n", "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the pull request is not ready: %v", w.performed)
	}
	var pr struct{ State string }
	w.send("PATCH", "repos/acme/api/pulls/1", map[string]string{"state": "closed"}, &pr)
	w.settle()
	if !w.did("specs/feature.md", "loop: stop closed") {
		t.Fatalf("no closed stop: %v", w.performed)
	}
	n, body := w.dashboard()
	if !strings.Contains(body, "\n- [ ] resume <!-- gallivant:box ") {
		t.Fatalf("the dashboard offers no resume:\n%s", body)
	}
	issue := "repos/acme/control/issues/" + strconv.Itoa(n)
	ticked := strings.Replace(body, "- [ ] resume <!--", "- [x] resume | closed by mistake <!--", 1)
	if st := w.as("mallory").statusOf("PATCH", issue, map[string]string{"body": ticked}); st != http.StatusForbidden {
		t.Fatalf("a read-only user's tick answered %d, want 403", st)
	}
	if p := w.pass(); len(p.Transitions) != 0 {
		t.Fatalf("a refused tick made transitions: %v", p.Transitions)
	}
	if _, now := w.dashboard(); now != body {
		t.Fatalf("the dashboard changed after a refused tick:\n%s", now)
	}

	var out struct{ Number int }
	w.as("bob").send("PATCH", issue, map[string]string{"body": ticked}, &out)
	w.settle()
	subject := "loop: request resume from acme/control#" + strconv.Itoa(n) + " by @bob"
	for _, s := range []string{subject, "loop: reopen acme/api#1"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q after bob's tick: %v", s, w.performed)
		}
	}
	if _, now := w.dashboard(); strings.Contains(now, "- [x] resume") || !strings.Contains(now, "done for `@bob`: `"+subject+"`") {
		t.Fatalf("the box is not cleared with its result:\n%s", now)
	}
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	if msg := gitIn(t, src, "log", "-1", "--format=%B", "--grep=^loop: request resume"); !strings.Contains(msg, "Gallivant-Box: ") ||
		!strings.Contains(msg, "Gallivant-Request: resume | closed by mistake") {
		t.Errorf("the request commit:\n%s", msg)
	}
	verify := exec.Command(bin, "verify", "--control", w.control)
	verify.Env = w.env
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("gallivant verify: %v\n%s", err, out)
	}
}
