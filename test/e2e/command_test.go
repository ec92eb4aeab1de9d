package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// as is the world seen with login's token from the sandbox.
func (w *cacheWorld) as(login string) *cacheWorld {
	return &cacheWorld{t: w.t, sandbox: map[string]string{"GITHUB_API_URL": w.sandbox["GITHUB_API_URL"], "GITHUB_TOKEN": w.sandbox["GITHUB_TOKEN_"+strings.ToUpper(login)]}}
}

// answers returns gallivant's answers to commands on acme/api#1.
func (w *cacheWorld) answers() []string {
	w.t.Helper()
	var cs []struct{ Body string }
	w.api("GET", "repos/acme/api/issues/1/comments?per_page=100", &cs)
	var out []string
	for _, c := range cs {
		if strings.Contains(c.Body, "<!-- gallivant:command-") {
			out = append(out, c.Body)
		}
	}
	return out
}

// Steering from the pull request against `gallivant sandbox` (issue 34,
// docs/requests.md), with a user of each role: a read-only outsider's
// command and a quoted one make no commit and get no answer; a writer's
// `/gallivant resume | …` on a closed stop becomes one `loop: request`
// commit naming the comment, the pull request is reopened, and gallivant
// answers once, with a +1 on the comment; an edit of that comment is
// ignored; verify proves it all.
func TestPullRequestCommandsFromEachRole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxRoles(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob"}, []string{"mallory"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "command-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig, "specs/feature.md": "# Feature\n\n## Acceptance criteria\n1. Feature one.\n"})
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

	var c struct{ ID int64 }
	w.as("mallory").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "/gallivant resume | let me steer"}, &c)
	w.as("bob").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "> /gallivant resume | quoted, not asked\nlooks odd"}, &c)
	p := w.pass()
	if len(p.Transitions) != 0 {
		t.Fatalf("an outsider's or a quoted command made transitions: %v", p.Transitions)
	}
	if got := w.answers(); len(got) != 0 {
		t.Fatalf("answers to commands nobody who may steer asked: %q", got)
	}
	noted := false
	for _, n := range p.Notes {
		noted = noted || strings.Contains(n.Message, "ignored the command in comment") && strings.Contains(n.Message, "@mallory")
	}
	if !noted {
		t.Errorf("the pass report does not name the outsider's command: %+v", p.Notes)
	}

	w.as("bob").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "/gallivant resume | closed by mistake"}, &c)
	w.settle()
	for _, s := range []string{"loop: request resume from acme/api#1 by @bob", "loop: reopen acme/api#1"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q after bob's command: %v", s, w.performed)
		}
	}
	id := strconv.FormatInt(c.ID, 10)
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	msg := gitIn(t, src, "log", "-1", "--format=%B", "--grep=^loop: request resume")
	if !strings.Contains(msg, "Gallivant-Comment-Id: "+id) || !strings.Contains(msg, "Gallivant-Comment: ") {
		t.Errorf("the request commit does not name comment %s:\n%s", id, msg)
	}
	if got := w.answers(); len(got) != 1 || !strings.Contains(got[0], "Done: `loop: request resume from acme/api#1 by @bob`") || !strings.Contains(got[0], "command-"+id) {
		t.Fatalf("answers %q, want one to comment %s", got, id)
	}

	// The command carries gallivant's +1, seen through the sandbox's
	// reactions API.
	var reactions []struct {
		Content string
		User    struct{ Login string }
	}
	w.api("GET", "repos/acme/api/issues/comments/"+id+"/reactions", &reactions)
	if len(reactions) != 1 || reactions[0].Content != "+1" || reactions[0].User.Login == "bob" {
		t.Errorf("reactions to comment %s: %+v, want gallivant's one +1", id, reactions)
	}

	// An edit of the acted comment is ignored.
	w.as("bob").send("PATCH", "repos/acme/api/issues/comments/"+id, map[string]string{"body": "/gallivant rows +9 | edited"}, &c)
	before := len(w.performed)
	w.settle()
	for _, s := range w.performed[before:] {
		if strings.Contains(s, "loop: request") {
			t.Errorf("the edit was performed: %s", s)
		}
	}
	if got := w.answers(); len(got) != 1 {
		t.Errorf("%d answers after the edit, want 1", len(got))
	}
	verify := exec.Command(bin, "verify", "--control", w.control)
	verify.Env = w.env
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("gallivant verify: %v\n%s", err, out)
	}
}
