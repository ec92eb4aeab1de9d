package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 26's chain bugs, against the built binary and `gallivant sandbox`.
// acme/api runs no CI, so its pull requests are labelled ready at once;
// acme/web's wait for a status to report.

// newChainWorld is a cacheWorld whose control repository holds files; src
// is a clone of it for later edits (controlEdit).
func newChainWorld(t *testing.T, config string, files map[string]string) (*cacheWorld, string) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandbox(t, filepath.Join(dir, "sandbox"), 1000000, "acme/api", "acme/web", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "chain-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	files["gallivant.yaml"] = config
	controlEdit(t, src, files)
	return w, src
}

// controlEdit commits files on the control branch as a person and pushes.
func controlEdit(t *testing.T, src string, files map[string]string) {
	t.Helper()
	gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	for path, s := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, path)), 0o755)
		if err := os.WriteFile(filepath.Join(src, path), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "A person's edit")
	gitIn(t, src, "push", "--quiet", "origin", "HEAD:main")
}

// send sends one request with a JSON body to the sandbox as the main
// token's user and decodes the answer into out.
func (w *cacheWorld) send(method, path string, body, out any) {
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
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		w.t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
}

// merge merges the open pull request from branch in repo, as a person.
func (w *cacheWorld) merge(repo, branch string) {
	w.t.Helper()
	var prs []struct{ Number int }
	w.api("GET", "repos/"+repo+"/pulls?head=acme:"+branch, &prs)
	if len(prs) != 1 {
		w.t.Fatalf("want one open pull request from %s in %s, got %v", branch, repo, prs)
	}
	var merged struct{ Merged bool }
	w.api("PUT", "repos/"+repo+"/pulls/"+itoa(prs[0].Number)+"/merge", &merged)
	if !merged.Merged {
		w.t.Fatalf("the sandbox did not merge %s#%d", repo, prs[0].Number)
	}
}

// labels returns the labels of repo's issue or pull request n.
func (w *cacheWorld) labels(repo string, n int) []string {
	w.t.Helper()
	var ls []struct{ Name string }
	w.api("GET", "repos/"+repo+"/issues/"+itoa(n)+"/labels", &ls)
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// did reports whether the passes so far performed "spec subject".
func (w *cacheWorld) did(spec, subject string) bool {
	return slices.Contains(w.performed, spec+" "+subject)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A milestone that was labelled ready before it was chained behind an
// unmerged predecessor loses its label in the very next pass, and gets it
// back once the predecessor merges.
func TestChainedWhileReadyLosesTheLabel(t *testing.T) {
	t.Parallel()
	w, src := newChainWorld(t, strings.Replace(cacheConfig, "none: [acme/api]", "none: [acme/api, acme/web]", 1), map[string]string{
		"specs/a.md": "# A\n\n## Acceptance criteria\n1. A one.\n",
		"specs/b.md": "---\nrepo: acme/web\n---\n# B\n\n## Acceptance criteria\n1. B one.\n",
	})
	w.settle()
	for _, s := range []string{"specs/a.md loop: ready acme/api#1", "specs/b.md loop: ready acme/web#1"} {
		if !slices.Contains(w.performed, s) {
			t.Fatalf("no %q among %v", s, w.performed)
		}
	}
	controlEdit(t, src, map[string]string{"chains/launch.md": "# Launch\n\n## Milestones\n\n1. `specs/a.md`\n2. `specs/b.md`\n"})
	p := w.pass()
	if !w.did("specs/b.md", "loop: unready acme/web#1") {
		t.Fatalf("the milestone chained behind an unmerged one was not unlabelled in one pass: %+v", p.Transitions)
	}
	if got := w.labels("acme/web", 1); slices.Contains(got, "ready-for-human") {
		t.Errorf("acme/web#1 keeps its labels %v", got)
	}
	w.settle()
	if n := strings.Count(strings.Join(w.performed, "\n"), "specs/b.md loop: ready acme/web#1"); n != 1 {
		t.Errorf("milestone 2 was labelled again while its predecessor is unmerged: %v", w.performed)
	}
	w.merge("acme/api", "gallivant/a")
	w.settle()
	if n := strings.Count(strings.Join(w.performed, "\n"), "specs/b.md loop: ready acme/web#1"); n != 2 {
		t.Errorf("milestone 2 was not labelled ready again after its predecessor merged: %v", w.performed)
	}
}

// Cancelling a chain stops its future milestones only: the milestone under
// review finishes and is labelled ready once its CI reports.
func TestChainCancelLetsTheActiveMilestoneFinish(t *testing.T) {
	t.Parallel()
	chain := "# Launch\n\n## Milestones\n\n1. `specs/one.md`\n2. `specs/two.md`\n3. `specs/three.md`\n"
	w, src := newChainWorld(t, cacheConfig, map[string]string{
		"specs/one.md":     "# One\n\n## Acceptance criteria\n1. One one.\n",
		"specs/two.md":     "---\nrepo: acme/web\n---\n# Two\n\n## Acceptance criteria\n1. Two one.\n",
		"specs/three.md":   "# Three\n\n## Acceptance criteria\n1. Three one.\n",
		"chains/launch.md": "---\nstatus: active\n---\n" + chain,
	})
	w.settle()
	w.merge("acme/api", "gallivant/one")
	w.settle()
	if !w.did("specs/two.md", "loop: open pr acme/web#1") || w.did("specs/two.md", "loop: ready acme/web#1") {
		t.Fatalf("milestone 2 must be open and waiting for CI: %v", w.performed)
	}
	controlEdit(t, src, map[string]string{"chains/launch.md": "---\nstatus: cancelled\n---\n" + chain})
	var head struct{ Object struct{ SHA string } }
	w.api("GET", "repos/acme/web/git/ref/heads/gallivant/two", &head)
	var st struct{ State string }
	w.send("POST", "repos/acme/web/statuses/"+head.Object.SHA, map[string]string{"state": "success", "context": "ci"}, &st)
	w.settle()
	if !w.did("specs/two.md", "loop: ready acme/web#1") {
		t.Fatalf("the milestone under review when the chain was cancelled was not labelled ready: %v", w.performed)
	}
	w.merge("acme/web", "gallivant/two")
	last := w.settle()
	if !w.did("specs/two.md", "loop: done acme/web#1") {
		t.Errorf("milestone 2 is not done after its merge: %v", w.performed)
	}
	for _, s := range w.performed {
		if strings.HasPrefix(s, "specs/three.md ") {
			t.Errorf("the cancelled chain's future milestone moved: %s", s)
		}
	}
	found := false
	for _, n := range last.Notes {
		found = found || n.Spec == "specs/three.md" && strings.Contains(n.Message, "chain chains/launch.md is cancelled")
	}
	if !found {
		t.Errorf("milestone 3 does not say the chain is cancelled: %+v", last.Notes)
	}
}

// A person force-pushes a history unrelated to the base onto the work
// branch: GitHub answers the comparison 404. The entry stops boundary
// once, naming the pushed head, and later passes neither stop it again
// nor report a problem every pass.
func TestUnrelatedForcePushStopsBoundaryOnce(t *testing.T) {
	t.Parallel()
	w, src := newChainWorld(t, cacheConfig, map[string]string{
		"specs/web.md": "---\nrepo: acme/web\n---\n# Web\n\n## Acceptance criteria\n1. Web one.\n",
	})
	w.settle()
	if !w.did("specs/web.md", "loop: open pr acme/web#1") {
		t.Fatalf("the pull request was not opened: %v", w.performed)
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "--quiet", "-b", "orphan", "o")
	o := filepath.Join(dir, "o")
	if err := os.WriteFile(filepath.Join(o, "other.txt"), []byte("another project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, o, "add", "-A")
	gitIn(t, o, "commit", "--quiet", "-m", "Unrelated history")
	gitIn(t, o, "push", "--quiet", "--force", withToken(w.sandbox["GIT_URL_ACME_WEB"], w.sandbox["GITHUB_TOKEN"]), "HEAD:refs/heads/gallivant/web")
	pushed := gitIn(t, o, "rev-parse", "HEAD")
	p := w.pass()
	if !w.did("specs/web.md", "loop: stop boundary") {
		t.Fatalf("no boundary stop after the unrelated push: %+v %+v", p.Transitions, p.Notes)
	}
	last := w.settle()
	if n := strings.Count(strings.Join(w.performed, "\n"), "specs/web.md loop: stop boundary"); n != 1 {
		t.Errorf("%d boundary stops, want 1: %v", n, w.performed)
	}
	for _, n := range append(p.Notes, last.Notes...) {
		if strings.Contains(n.Message, "not found") {
			t.Errorf("a pass reports the comparison as a problem: %s", n.Message)
		}
	}
	gitIn(t, src, "fetch", "--quiet", "origin", "main")
	stop := ""
	for _, ln := range strings.Split(gitIn(t, src, "show", "origin/main:plans/web-ledger.md"), "\n") {
		if strings.HasPrefix(ln, "stop: ") {
			stop = ln
		}
	}
	if !strings.HasPrefix(stop, "stop: boundary | ") || !strings.Contains(stop, pushed[:7]) {
		t.Errorf("the ledger's stop does not name the pushed head %s: %q", pushed[:7], stop)
	}
}
