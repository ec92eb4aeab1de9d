package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A target whose main requires one approving review (`--protect
// acme/api:main,reviews=1`, the most common protection): GitHub reports
// the delivered pull request `blocked` until a person with write access
// approves it (issue 30 item 2). gallivant reads the number of approving
// reviews the protection requires and waits for them (no invented rule,
// no stop: people's work), applies no label while the merge is blocked,
// and labels the pull request ready in the pass after the approval makes
// it `clean`; `why` names the pull request and what makes it ready.
func TestBlockedByRequiredReviews(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startSandboxFlags(t, filepath.Join(dir, "sandbox"), 1000000, []string{"reviewer"},
		[]string{"--protect", "acme/api:main,reviews=1"}, "acme/api", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "reviews-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": cacheConfig, "specs/a.md": "# A\n\n## Acceptance criteria\n1. A one.\n"})

	p := w.settle()
	if !w.did("specs/a.md", "loop: open pr acme/api#1") {
		t.Fatalf("no pull request was opened: %v", w.performed)
	}
	var pr struct {
		MergeableState string `json:"mergeable_state"`
	}
	w.api("GET", "repos/acme/api/pulls/1", &pr)
	if pr.MergeableState != "blocked" {
		t.Fatalf("the sandbox reports acme/api#1 %q, want blocked by the required review", pr.MergeableState)
	}
	wantNote := []struct{ Spec, Message string }{{"specs/a.md", "acme/api#1 waits for 1 approving review the base branch requires (0 so far)"}}
	if !slices.Equal(p.Notes, wantNote) {
		t.Errorf("notes of the quiet pass %+v, want %+v", p.Notes, wantNote)
	}
	for _, s := range w.performed {
		if strings.Contains(s, "loop: ready") || strings.Contains(s, "loop: stop") {
			t.Errorf("while blocked by the required review: %q", s)
		}
	}
	if got := w.labels("acme/api", 1); len(got) != 0 {
		t.Errorf("acme/api#1 is labelled %v while GitHub blocks its merge", got)
	}
	why := w.why("a")
	for _, want := range []string{"pull request: acme/api#1", "next: judge acme/api#1 each pass", "ready when checks are green"} {
		if !strings.Contains(why, want) {
			t.Errorf("why does not say %q:\n%s", want, why)
		}
	}

	// The author cannot approve their own pull request; a person with
	// write access can, and the merge is no longer blocked.
	if st := w.review(sb["GITHUB_TOKEN"], 1); st != http.StatusUnprocessableEntity {
		t.Errorf("the author's own approval: %d, want 422", st)
	}
	if st := w.review(sb["GITHUB_TOKEN_REVIEWER"], 1); st != http.StatusOK {
		t.Fatalf("the reviewer's approval: %d, want 200", st)
	}
	w.api("GET", "repos/acme/api/pulls/1", &pr)
	if pr.MergeableState != "clean" {
		t.Fatalf("after the approval acme/api#1 is %q, want clean", pr.MergeableState)
	}
	w.settle()
	if !w.did("specs/a.md", "loop: ready acme/api#1") {
		t.Fatalf("the approved pull request was not labelled ready: %v", w.performed)
	}
	if got := w.labels("acme/api", 1); !slices.Equal(got, []string{"ready-for-human"}) {
		t.Errorf("acme/api#1 is labelled %v, want [ready-for-human]", got)
	}
}

// review submits an approving review of pull request n in acme/api with
// token and returns the answer's status.
func (w *cacheWorld) review(token string, n int) int {
	w.t.Helper()
	body, _ := json.Marshal(map[string]string{"event": "APPROVE", "body": "Looks right."})
	req, err := http.NewRequest("POST", w.sandbox["GITHUB_API_URL"]+"repos/acme/api/pulls/"+itoa(n)+"/reviews", bytes.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// why runs `gallivant why spec` against the control repository, with the
// token in the environment, and returns what it printed.
func (w *cacheWorld) why(spec string) string {
	w.t.Helper()
	cmd := exec.Command(bin, "why", spec, "--control", w.control)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("why %s: %v\n%s", spec, err, out)
	}
	return string(out)
}
