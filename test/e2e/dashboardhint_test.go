package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A ticked box's reason from a follow-up comment on the dashboard issue
// (issue 34, docs/requests.md "A hint in a follow-up comment"), against
// the built binary and `gallivant sandbox`: a comment is no command by
// itself; bob ticks the resume box with no reason in its text and writes
// the reason in a comment in the strict form, while a read-only user's
// comment in the same form is not taken; the request commit carries bob's
// reason, and the dashboard shows it as the entry's last request.
func TestDashboardBoxReasonFromAComment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxRoles(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, []string{"mallory"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "dashboard-hint-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig + "dashboard_issue: true\n", "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
	w.settle()
	var pr struct{ State string }
	w.send("PATCH", "repos/acme/api/pulls/1", map[string]string{"state": "closed"}, &pr)
	w.settle()
	if !w.did("specs/feature.md", "loop: stop closed") {
		t.Fatalf("no closed stop: %v", w.performed)
	}
	n, body := w.dashboard()
	issue := "repos/acme/control/issues/" + strconv.Itoa(n)
	if !strings.Contains(body, "\n- [ ] resume <!-- gallivant:box ") {
		t.Fatalf("the dashboard offers no resume:\n%s", body)
	}

	var c struct{ ID int64 }
	w.as("mallory").send("POST", issue+"/comments", map[string]string{"body": "/gallivant resume | mallory says so\nspecs/feature.md"}, &c)
	w.as("bob").send("POST", issue+"/comments", map[string]string{"body": "/gallivant resume | the close was a mistake\n`specs/feature.md`"}, &c)
	if p := w.pass(); len(p.Transitions) != 0 {
		t.Fatalf("a comment on the dashboard made transitions: %v", p.Transitions)
	}
	var out struct{ Number int }
	w.as("bob").send("PATCH", issue, map[string]string{"body": strings.Replace(body, "- [ ] resume <!--", "- [x] resume <!--", 1)}, &out)
	w.settle()
	subject := "loop: request resume from acme/control#" + strconv.Itoa(n) + " by @bob"
	if !w.did("specs/feature.md", subject) {
		t.Fatalf("no %q after bob's tick: %v", subject, w.performed)
	}
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	if msg := gitIn(t, src, "log", "-1", "--format=%B", "--grep=^loop: request resume"); !strings.Contains(msg, "Gallivant-Request: resume | the close was a mistake\n") {
		t.Errorf("the request commit does not carry bob's reason from his comment:\n%s", msg)
	}
	_, now := w.dashboard()
	if want := "  last request: `\"resume | the close was a mistake\", from a box of the dashboard issue acme/control#" + strconv.Itoa(n) + " ticked by @bob (box "; !strings.Contains(now, want) {
		t.Errorf("the dashboard lacks\n%s\nin\n%s", want, now)
	}
	w.verifies()
}
