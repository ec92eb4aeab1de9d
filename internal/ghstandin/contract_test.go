package ghstandin_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// conformanceFloor is the share of served operations that must fully
// conform to GitHub's description; raise it as the stand-in improves,
// never lower it.
const conformanceFloor = 1.0

// exchange is one request of the contract scenario and its answer.
type exchange struct {
	op          string
	method      string
	path        string
	status      int
	header      http.Header
	body        []byte
	paged       bool // asked for per_page=1 on a list with more than one item
	conditional bool
	etag        string // the ETag a conditional request sent
}

type contractRun struct {
	t     *testing.T
	s     *ghstandin.Server
	base  string
	token string
	log   []exchange
}

// do sends one request for operation op and records the answer.
func (c *contractRun) do(op, method, path string, body any, hdr ...string) exchange {
	c.t.Helper()
	if !opPattern(op).MatchString(method + " " + strings.SplitN(path, "?", 2)[0]) {
		c.t.Fatalf("%s %s does not belong to %s", method, path, op)
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+"/api/v3"+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	x := exchange{op: op, method: method, path: path, status: resp.StatusCode, header: resp.Header, body: data,
		paged: strings.Contains(path, "per_page=1") && !strings.Contains(path, "page=2"), conditional: req.Header.Get("If-None-Match") != ""}
	c.log = append(c.log, x)
	if method == "GET" && x.status == 200 && !x.conditional {
		// Asked again at once with its ETag, GitHub answers 304 without
		// a body, unless the resource changed in between.
		c.do(op, method, path, nil, "If-None-Match", x.header.Get("ETag"))
		c.log[len(c.log)-1].etag = x.header.Get("ETag")
	}
	return x
}

// want fails the scenario itself (not the contract) when a step's status
// is not the one the scenario needs to go on.
func (c *contractRun) want(x exchange, status int) exchange {
	c.t.Helper()
	if x.status != status {
		c.t.Fatalf("%s %s = %d, want %d: %s", x.method, x.path, x.status, status, x.body)
	}
	return x
}

func (x exchange) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(x.body, &m); err != nil {
		t.Fatalf("%s %s: %v: %s", x.method, x.path, err, x.body)
	}
	return m
}

// TestContract drives every operation the stand-in serves, with successes
// and the errors the description documents, and checks each answer against
// GitHub's OpenAPI description: the status is documented for the operation,
// the body matches the documented schema, the documented headers (and the
// rate-limit headers, ETag and 304 GitHub sends everywhere) are present, and
// error bodies are JSON with message and documentation_url.
func TestContract(t *testing.T) {
	sub := loadSubset(t)
	s := testserver.Start(t, "acme/api")
	c := &contractRun{t: t, s: s, base: s.URL(), token: s.MainToken()}
	reviewer := &contractRun{t: t, s: s, base: s.URL(), token: s.Token("reviewer")}
	defer func() { reviewer.log = nil }()

	w := clone(t, s, "acme/api")
	git(t, w, "checkout", "--quiet", "main")
	if err := os.MkdirAll(filepath.Join(w, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	wf := "name: agent\non:\n  workflow_dispatch:\n    inputs:\n      task:\n        required: true\n      note:\n        required: false\n"
	if err := os.WriteFile(filepath.Join(w, ".github", "workflows", "agent.yml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "workflow")
	git(t, w, "push", "--quiet", "origin", "main")
	main := git(t, w, "rev-parse", "HEAD")
	// feature/a changes two files, so that its file list has two pages of one.
	git(t, w, "checkout", "--quiet", "-b", "feature/a")
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(w, f), []byte("line one\nline two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "feature a")
	git(t, w, "push", "--quiet", "origin", "feature/a")
	headA := git(t, w, "rev-parse", "HEAD")
	headB := commitOn(t, w, "feature/b", "c.txt", "c\n")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	s.Protect("acme/api", "stable", ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 1, EnforceAdmins: true})
	s.Protect("acme/api", "release", ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 2, Ruleset: true})

	const r = "/repos/acme/api"
	c.want(c.do("GET /user", "GET", "/user", nil), 200)
	c.want(c.do("GET /rate_limit", "GET", "/rate_limit", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}", "GET", r, nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}", "GET", "/repos/acme/nope", nil), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/branches", "GET", r+"/branches?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/branches/{branch}", "GET", r+"/branches/feature/a", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/branches/{branch}", "GET", r+"/branches/nope", nil), 404)
	const rsc = "GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks"
	c.want(c.do(rsc, "GET", r+"/branches/main/protection/required_status_checks", nil), 200)
	c.want(c.do(rsc, "GET", r+"/branches/feature/a/protection/required_status_checks", nil), 404)
	const bp = "GET /repos/{owner}/{repo}/branches/{branch}/protection"
	c.want(c.do(bp, "GET", r+"/branches/main/protection", nil), 200)
	c.want(c.do(bp, "GET", r+"/branches/stable/protection", nil), 200)
	c.want(c.do(bp, "GET", r+"/branches/release/protection", nil), 404)
	c.want(reviewer.do(bp, "GET", r+"/branches/main/protection", nil), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/rules/branches/{branch}", "GET", r+"/rules/branches/release", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/rules/branches/{branch}", "GET", r+"/rules/branches/main", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/rules/branches/{branch}", "GET", r+"/rules/branches/feature/a", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/contents/{path}", "GET", r+"/contents/.github/workflows/agent.yml?ref=main", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/contents/{path}", "GET", r+"/contents/.github/workflows", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/contents/{path}", "GET", r+"/contents/nope.txt", nil), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/git/ref/{ref}", "GET", r+"/git/ref/heads/main", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/git/ref/{ref}", "GET", r+"/git/ref/heads/nope", nil), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/git/matching-refs/{ref}", "GET", r+"/git/matching-refs/heads/feature?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/git/matching-refs/{ref}", "GET", r+"/git/matching-refs/heads/nope", nil), 200)

	c.want(c.do("POST /repos/{owner}/{repo}/git/refs", "POST", r+"/git/refs", map[string]string{"ref": "refs/heads/tmp", "sha": main}), 201)
	c.want(c.do("POST /repos/{owner}/{repo}/git/refs", "POST", r+"/git/refs", map[string]string{"ref": "refs/heads/tmp", "sha": main}), 422)
	c.want(c.do("PATCH /repos/{owner}/{repo}/git/refs/{ref}", "PATCH", r+"/git/refs/heads/tmp", map[string]any{"sha": headA}), 200)
	c.want(c.do("PATCH /repos/{owner}/{repo}/git/refs/{ref}", "PATCH", r+"/git/refs/heads/tmp", map[string]any{"sha": headB}), 422)
	c.want(c.do("DELETE /repos/{owner}/{repo}/git/refs/{ref}", "DELETE", r+"/git/refs/heads/tmp", nil), 204)
	c.want(c.do("DELETE /repos/{owner}/{repo}/git/refs/{ref}", "DELETE", r+"/git/refs/heads/tmp", nil), 422)

	for _, ctxName := range []string{"ci", "lint"} {
		c.want(c.do("POST /repos/{owner}/{repo}/statuses/{sha}", "POST", r+"/statuses/"+headA,
			map[string]string{"state": "success", "context": ctxName, "target_url": "https://ci.example/1", "description": "ok"}), 201)
	}
	run := c.want(c.do("POST /repos/{owner}/{repo}/check-runs", "POST", r+"/check-runs", map[string]string{"name": "build", "head_sha": headA, "status": "in_progress"}), 201).json(t)
	c.want(c.do("POST /repos/{owner}/{repo}/check-runs", "POST", r+"/check-runs", map[string]string{"name": "test", "head_sha": headA, "status": "completed", "conclusion": "success"}), 201)
	c.want(c.do("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", "PATCH", fmt.Sprintf("%s/check-runs/%.0f", r, run["id"]),
		map[string]string{"status": "completed", "conclusion": "success"}), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/commits/{ref}", "GET", r+"/commits/"+headA+"?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/commits/{ref}", "GET", r+"/commits/"+strings.Repeat("0", 40), nil), 422)
	c.want(c.do("GET /repos/{owner}/{repo}/commits/{ref}/status", "GET", r+"/commits/"+headA+"/status", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/commits/{ref}/statuses", "GET", r+"/commits/"+headA+"/statuses?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", "GET", r+"/commits/"+headA+"/check-runs?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/compare/{basehead}", "GET", r+"/compare/main...feature/a", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/compare/{basehead}", "GET", r+"/compare/main...nope", nil), 404)

	const pulls = "POST /repos/{owner}/{repo}/pulls"
	c.want(c.do(pulls, "POST", r+"/pulls", map[string]any{"title": "A", "head": "feature/a", "base": "main", "body": "a"}), 201)
	c.want(c.do(pulls, "POST", r+"/pulls", map[string]any{"title": "B", "head": "feature/b", "base": "main", "draft": true}), 201)
	c.want(c.do(pulls, "POST", r+"/pulls", map[string]any{"title": "A again", "head": "feature/a", "base": "main"}), 422)
	c.want(c.do(pulls, "POST", r+"/pulls", map[string]any{"title": "C", "head": "feature/a", "base": "nope"}), 422)
	c.want(c.do("GET /repos/{owner}/{repo}/pulls", "GET", r+"/pulls?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/pulls", "GET", r+"/pulls?state=bogus", nil), 422)
	const pull = "GET /repos/{owner}/{repo}/pulls/{pull_number}"
	c.want(c.do(pull, "GET", r+"/pulls/1", nil), 200) // mergeable null: not yet computed
	c.want(c.do(pull, "GET", r+"/pulls/1", nil), 200)
	c.want(c.do(pull, "GET", r+"/pulls/99", nil), 404)
	const edit = "PATCH /repos/{owner}/{repo}/pulls/{pull_number}"
	c.want(c.do(edit, "PATCH", r+"/pulls/1", map[string]string{"body": "edited"}), 200)
	c.want(c.do(edit, "PATCH", r+"/pulls/1", map[string]string{"state": "bogus"}), 422)
	c.want(c.do("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", "GET", r+"/pulls/1/files?per_page=1", nil), 200)

	const reviews = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	rv := reviewer.want(reviewer.do(reviews, "POST", r+"/pulls/1/reviews", map[string]string{"event": "APPROVE", "commit_id": headA}), 200).json(t)
	reviewer.want(reviewer.do(reviews, "POST", r+"/pulls/1/reviews", map[string]string{"event": "COMMENT", "body": "looks fine"}), 200)
	c.want(c.do(reviews, "POST", r+"/pulls/1/reviews", map[string]string{"event": "APPROVE"}), 422)
	c.want(c.do("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", "GET", r+"/pulls/1/reviews?per_page=1", nil), 200)
	const dismiss = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals"
	c.want(c.do(dismiss, "PUT", fmt.Sprintf("%s/pulls/1/reviews/%.0f/dismissals", r, rv["id"]), map[string]string{"message": "stale"}), 200)
	c.want(c.do(dismiss, "PUT", fmt.Sprintf("%s/pulls/1/reviews/%.0f/dismissals", r, rv["id"]), map[string]string{}), 422)
	c.want(c.do(dismiss, "PUT", r+"/pulls/1/reviews/1/dismissals", map[string]string{"message": "x"}), 404)

	const rc = "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments"
	for _, f := range []string{"a.txt", "b.txt"} {
		c.want(c.do(rc, "POST", r+"/pulls/1/comments", map[string]any{"body": "nit", "commit_id": headA, "path": f, "line": 2, "side": "RIGHT"}), 201)
	}
	c.want(c.do(rc, "POST", r+"/pulls/1/comments", map[string]any{"body": "nit", "path": "a.txt", "line": 2}), 422)
	c.want(c.do(rc, "POST", r+"/pulls/1/comments", map[string]any{"body": "nit", "commit_id": headA, "path": "a.txt", "line": 40}), 422)
	c.want(c.do("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", "GET", r+"/pulls/1/comments?per_page=1", nil), 200)

	const ic = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	cm := c.want(c.do(ic, "POST", r+"/issues/1/comments", map[string]string{"body": "one"}), 201).json(t)
	c.want(c.do(ic, "POST", r+"/issues/1/comments", map[string]string{"body": "two"}), 201)
	c.want(c.do(ic, "POST", r+"/issues/1/comments", map[string]string{"body": ""}), 422)
	c.want(c.do(ic, "POST", r+"/issues/99/comments", map[string]string{"body": "x"}), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", "GET", r+"/issues/1/comments?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", "GET", r+"/issues/99/comments", nil), 404)
	const uc = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
	c.want(c.do(uc, "PATCH", fmt.Sprintf("%s/issues/comments/%.0f", r, cm["id"]), map[string]string{"body": "one, edited"}), 200)
	c.want(c.do(uc, "PATCH", fmt.Sprintf("%s/issues/comments/%.0f", r, cm["id"]), map[string]string{"body": ""}), 422)
	const cr = "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
	c.want(c.do(cr, "POST", fmt.Sprintf("%s/issues/comments/%.0f/reactions", r, cm["id"]), map[string]string{"content": "+1"}), 201)
	c.want(c.do(cr, "POST", fmt.Sprintf("%s/issues/comments/%.0f/reactions", r, cm["id"]), map[string]string{"content": "+1"}), 200)
	c.want(c.do(cr, "POST", fmt.Sprintf("%s/issues/comments/%.0f/reactions", r, cm["id"]), map[string]string{"content": "thumbs"}), 422)
	const lr = "GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
	c.want(c.do(lr, "GET", fmt.Sprintf("%s/issues/comments/%.0f/reactions?content=%%2B1", r, cm["id"]), nil), 200)
	c.want(c.do(lr, "GET", r+"/issues/comments/999999/reactions", nil), 404)

	const al = "POST /repos/{owner}/{repo}/issues/{issue_number}/labels"
	c.want(c.do(al, "POST", r+"/issues/1/labels", map[string]any{"labels": []string{"x", "y"}}), 200)
	c.want(c.do(al, "POST", r+"/issues/1/labels", map[string]any{"labels": []string{}}), 422)
	c.want(c.do(al, "POST", r+"/issues/99/labels", map[string]any{"labels": []string{"x"}}), 404)
	c.want(c.do("GET /repos/{owner}/{repo}/issues/{issue_number}/labels", "GET", r+"/issues/1/labels?per_page=1", nil), 200)
	c.want(c.do("GET /repos/{owner}/{repo}/issues/{issue_number}/labels", "GET", r+"/issues/99/labels", nil), 404)
	const dl = "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"
	c.want(c.do(dl, "DELETE", r+"/issues/1/labels/y", nil), 200)
	c.want(c.do(dl, "DELETE", r+"/issues/1/labels/y", nil), 404)

	const wd = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"
	c.want(c.do(wd, "POST", r+"/actions/workflows/agent.yml/dispatches", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t"}}), 204)
	c.want(c.do(wd, "POST", r+"/actions/workflows/agent.yml/dispatches", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t"}, "return_run_details": true}), 200)
	c.want(c.do(wd, "POST", r+"/actions/workflows/nope.yml/dispatches", map[string]any{"ref": "main"}), 404)
	c.want(c.do(wd, "POST", r+"/actions/workflows/agent.yml/dispatches", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t", "round": "2"}}), 422)

	// Workflow runs: two held for approval on feature/a's head (an open
	// pull request's, so pull_requests is filled), one finished on main.
	for _, wr := range []ghstandin.WorkflowRun{
		{Name: "ci", HeadSHA: headA, HeadBranch: "feature/a", Conclusion: "action_required"},
		{Name: "lint", Path: ".github/workflows/lint.yml", HeadSHA: headA, HeadBranch: "feature/a", Conclusion: "action_required"},
		{Name: "ci", HeadSHA: main, HeadBranch: "main", Event: "push", Status: "in_progress"},
	} {
		if _, err := s.AddWorkflowRun("acme/api", wr); err != nil {
			t.Fatal(err)
		}
	}
	const runs = "GET /repos/{owner}/{repo}/actions/runs"
	c.want(c.do(runs, "GET", r+"/actions/runs?per_page=1", nil), 200)
	c.want(c.do(runs, "GET", r+"/actions/runs?head_sha="+headA+"&status=action_required&per_page=1", nil), 200)
	c.want(c.do(runs, "GET", r+"/actions/runs?head_sha="+headA+"&exclude_pull_requests=true", nil), 200)
	c.want(c.do(runs, "GET", r+"/actions/runs?head_sha="+headB, nil), 200)
	c.want(c.do(runs, "GET", r+"/actions/runs?status=bogus", nil), 422)
	c.want(c.do(runs, "GET", "/repos/acme/nope/actions/runs", nil), 404)

	const merge = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge"
	c.want(c.do(merge, "PUT", r+"/pulls/1/merge", map[string]string{"sha": headB}), 409)
	c.want(c.do(merge, "PUT", r+"/pulls/1/merge", map[string]string{"merge_method": "octopus"}), 422)
	c.want(c.do(merge, "PUT", r+"/pulls/2/merge", map[string]string{}), 405) // a draft
	c.want(c.do(merge, "PUT", r+"/pulls/1/merge", map[string]string{"sha": headA}), 200)
	c.want(c.do(merge, "PUT", r+"/pulls/1/merge", map[string]string{}), 405)
	c.want(c.do(merge, "PUT", r+"/pulls/99/merge", map[string]string{}), 404)
	// main moved with the merge: pull request 2 is behind it.
	const ub = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch"
	c.want(c.do(ub, "PUT", r+"/pulls/2/update-branch", map[string]string{"expected_head_sha": main}), 422)
	c.want(c.do(ub, "PUT", r+"/pulls/2/update-branch", map[string]string{"expected_head_sha": headB}), 202)
	const perm = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"
	c.want(c.do(perm, "GET", r+"/collaborators/reviewer/permission", nil), 200)
	c.want(c.do(perm, "GET", r+"/collaborators/nobody-here/permission", nil), 404)
	outsider := &contractRun{t: t, s: s, base: s.URL(), token: s.Token("reader")}
	if _, err := s.SetRole("reader", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	outsider.want(outsider.do(perm, "GET", r+"/collaborators/reviewer/permission", nil), 403)
	exerciseIssues(c, outsider, r)
	c.log = append(c.log, outsider.log...)

	// The App endpoints, with a JWT signed by a registered App.
	key := appKey(t)
	s.RegisterApp(7, "gallivant-app", &key.PublicKey)
	inst := s.InstallApp(7, "acme")
	app := &contractRun{t: t, s: s, base: s.URL(), token: appJWT(t, 7, key, time.Now())}
	app.want(app.do("GET /app", "GET", "/app", nil), 200)
	app.want(app.do("GET /repos/{owner}/{repo}/installation", "GET", r+"/installation", nil), 200)
	const tokens = "POST /app/installations/{installation_id}/access_tokens"
	app.want(app.do(tokens, "POST", fmt.Sprintf("/app/installations/%d/access_tokens", inst), nil), 201)
	app.want(app.do(tokens, "POST", "/app/installations/1/access_tokens", nil), 404)
	if err := s.CreateRepo("other/repo", "main"); err != nil {
		t.Fatal(err)
	}
	app.want(app.do("GET /repos/{owner}/{repo}/installation", "GET", "/repos/other/repo/installation", nil), 404)

	// Webhooks, last: every later change would be delivered. Port 9
	// refuses the deliveries at once.
	const hooks, delHook = "GET /repos/{owner}/{repo}/hooks", "DELETE /repos/{owner}/{repo}/hooks/{hook_id}"
	c.want(c.do(hooks, "GET", r+"/hooks", nil), 200)
	const addHook = "POST /repos/{owner}/{repo}/hooks"
	c.want(c.do(addHook, "POST", r+"/hooks", map[string]any{"config": map[string]string{"url": "http://example.com/hook"}}), 422)
	hook := c.want(c.do(addHook, "POST", r+"/hooks", map[string]any{"name": "web", "events": []string{"pull_request", "push"},
		"config": map[string]string{"url": "http://127.0.0.1:9/hook", "content_type": "json", "secret": "s"}}), 201).json(t)
	c.want(c.do(hooks, "GET", r+"/hooks", nil), 200)
	reviewer.want(reviewer.do(hooks, "GET", r+"/hooks", nil), 404)
	c.want(c.do(delHook, "DELETE", fmt.Sprintf("%s/hooks/%v", r, hook["id"]), nil), 204)
	c.want(c.do(delHook, "DELETE", r+"/hooks/1", nil), 404)
	const forks = "POST /repos/{owner}/{repo}/forks"
	reviewer.want(reviewer.do(forks, "POST", r+"/forks", nil), 202)
	reviewer.want(reviewer.do(forks, "POST", "/repos/acme/nope/forks", nil), 404)

	report := judge(sub, append(append(c.log, reviewer.log...), app.log...))
	var b strings.Builder
	fmt.Fprintf(&b, "%-84s %-6s %-6s %-7s %-6s %s\n", "operation", "status", "schema", "headers", "errors", "requests")
	full, requests := 0, 0
	for _, op := range servedOperations {
		v := report[op]
		if v == nil {
			v = &verdict{problems: []string{"not exercised"}}
		}
		if v.full() {
			full++
		}
		requests += v.requests
		fmt.Fprintf(&b, "%-84s %-6s %-6s %-7s %-6s %d\n", op, mark(v.status), mark(v.schema), mark(v.headers), mark(v.errors), v.requests)
	}
	ratio := float64(full) / float64(len(servedOperations))
	fmt.Fprintf(&b, "fully conforming: %d of %d operations (%.0f%%), %d requests\n", full, len(servedOperations), 100*ratio, requests)
	t.Log("conformance to " + sub.Source + "\n" + b.String())
	for _, op := range servedOperations {
		if v := report[op]; v != nil {
			for _, p := range v.problems {
				t.Logf("%s: %s", op, p)
			}
		}
	}
	if ratio < conformanceFloor {
		t.Errorf("%d of %d operations fully conform (%.0f%%), below the floor of %.0f%%", full, len(servedOperations), 100*ratio, 100*conformanceFloor)
	}
}

func mark(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// verdict is one operation's conformance.
type verdict struct {
	requests                        int
	status, schema, headers, errors bool
	problems                        []string
}

func (v *verdict) full() bool { return v.requests > 0 && v.status && v.schema && v.headers && v.errors }

func (v *verdict) fail(part *bool, format string, args ...any) {
	*part = false
	p := fmt.Sprintf(format, args...)
	for _, have := range v.problems {
		if have == p {
			return
		}
	}
	if len(v.problems) < 12 {
		v.problems = append(v.problems, p)
	}
}

// undocumentedErrors are statuses GitHub answers on every route although
// the description lists them only on some: a missing resource (404) and a
// refused write (403, 422). They are judged by their error body only.
var undocumentedErrors = map[int]bool{403: true, 404: true, 422: true}

func judge(sub *subset, log []exchange) map[string]*verdict {
	out := map[string]*verdict{}
	for _, x := range log {
		v := out[x.op]
		if v == nil {
			v = &verdict{status: true, schema: true, headers: true, errors: true}
			out[x.op] = v
		}
		v.requests++
		where := x.method + " " + x.path
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"} {
			if x.header.Get(h) == "" {
				v.fail(&v.headers, "%s: %d without %s", where, x.status, h)
			}
		}
		if x.conditional {
			changed := x.status == http.StatusOK && x.header.Get("ETag") != x.etag
			if !changed && (x.status != http.StatusNotModified || len(x.body) != 0) {
				v.fail(&v.headers, "%s: If-None-Match with the ETag answered %d with %d bytes, want 304 without a body", where, x.status, len(x.body))
			}
			continue
		}
		op := sub.Operations[x.op]
		resp := op.Responses[strconv.Itoa(x.status)]
		if x.status >= 400 {
			var e map[string]any
			ct := x.header.Get("Content-Type")
			if !strings.HasPrefix(ct, "application/json") || json.Unmarshal(x.body, &e) != nil {
				v.fail(&v.errors, "%s: %d error body is not JSON (%s)", where, x.status, ct)
			} else if _, ok := e["message"].(string); !ok {
				v.fail(&v.errors, "%s: %d error body has no message", where, x.status)
			} else if _, ok := e["documentation_url"].(string); !ok {
				v.fail(&v.errors, "%s: %d error body has no documentation_url", where, x.status)
			}
		}
		if resp == nil {
			if !(x.status >= 400 && undocumentedErrors[x.status]) {
				v.fail(&v.status, "%s: status %d is not documented", where, x.status)
			}
			continue
		}
		for _, h := range resp.Headers {
			if h == "Link" && !x.paged {
				continue
			}
			if x.header.Get(h) == "" {
				v.fail(&v.headers, "%s: %d without the documented %s header", where, x.status, h)
			}
		}
		if x.method == "GET" && x.status == 200 && x.header.Get("ETag") == "" {
			v.fail(&v.headers, "%s: 200 without ETag", where)
		}
		if resp.Schema == nil {
			if len(bytes.TrimSpace(x.body)) != 0 && x.status < 400 {
				v.fail(&v.schema, "%s: %d has a body where the description has none", where, x.status)
			}
			continue
		}
		if !strings.HasPrefix(x.header.Get("Content-Type"), "application/json") {
			v.fail(&v.headers, "%s: Content-Type %q, want application/json", where, x.header.Get("Content-Type"))
		}
		var body any
		if err := json.Unmarshal(x.body, &body); err != nil {
			v.fail(&v.schema, "%s: body is not JSON: %v", where, err)
			continue
		}
		errs := schemaErrors(resp.Schema, body, "body")
		sort.Strings(errs)
		for _, e := range errs {
			v.fail(&v.schema, "%s: %s", where, e)
		}
	}
	return out
}
