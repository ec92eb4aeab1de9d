package ghstandin_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// The tests in this file pin behaviours GitHub documents and the stand-in
// reproduces; each says which documented behaviour it holds.

// call sends one REST request as login and returns the status and the
// decoded body (nil when empty).
func call(t *testing.T, s *ghstandin.Server, login, method, path string, body any) (int, any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL()+"/api/v3"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token(login))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var v any
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode, v
}

func field(v any, name string) any {
	m, _ := v.(map[string]any)
	return m[name]
}

// pushFile commits content at file on branch (created from main when new)
// over smart HTTP and returns the new head.
func pushFile(t *testing.T, w, branch, file, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(w, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, w, "fetch", "--quiet", "origin")
	if strings.Contains(git(t, w, "branch", "-r", "--list", "origin/"+branch), branch) {
		git(t, w, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	} else {
		git(t, w, "checkout", "--quiet", "-B", branch, "origin/main")
	}
	if err := os.WriteFile(filepath.Join(w, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "change "+file)
	git(t, w, "push", "--quiet", "origin", branch)
	return git(t, w, "rev-parse", "HEAD")
}

func openPull(t *testing.T, s *ghstandin.Server, head string, extra map[string]any) int {
	t.Helper()
	body := map[string]any{"title": "PR " + head, "head": head, "base": "main"}
	for k, v := range extra {
		body[k] = v
	}
	status, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/pulls", body)
	if status != 201 {
		t.Fatalf("create pull request from %s: %d %v", head, status, v)
	}
	return int(field(v, "number").(float64))
}

// Merges GitHub refuses: a draft, a head behind the base under strict
// protection, an unknown merge_method, a stale sha, a conflict.
func TestMergeRefusals(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pass := func(sha string) {
		if st, v := call(t, s, "ci", "POST", "/repos/acme/api/statuses/"+sha, map[string]string{"state": "success", "context": "ci"}); st != 201 {
			t.Fatalf("status: %d %v", st, v)
		}
	}
	behindHead := pushFile(t, w, "behind", "b.txt", "b\n")
	behind := openPull(t, s, "behind", nil)
	conflictHead := pushFile(t, w, "conflict", "README.md", "theirs\n")
	conflict := openPull(t, s, "conflict", nil)
	okHead := pushFile(t, w, "fine", "f.txt", "f\n")
	fine := openPull(t, s, "fine", nil)
	pushFile(t, w, "main", "README.md", "ours\n") // main moves on: the heads above are behind now
	draftHead := pushFile(t, w, "draft", "d.txt", "d\n")
	draft := openPull(t, s, "draft", map[string]any{"draft": true})
	for _, sha := range []string{draftHead, behindHead, conflictHead, okHead} {
		pass(sha)
	}
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Strict: true})
	tests := []struct {
		name   string
		number int
		body   map[string]string
		want   int
	}{
		{"draft", draft, map[string]string{}, 405},
		{"behind under strict protection", behind, map[string]string{}, 405},
		{"invalid merge_method", fine, map[string]string{"merge_method": "octopus"}, 422},
		{"head sha mismatch", fine, map[string]string{"sha": behindHead}, 409},
		{"not mergeable", conflict, map[string]string{}, 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+itoa(tc.number)+"/merge", tc.body); got != tc.want {
				t.Errorf("merge = %d %v, want %d", got, v, tc.want)
			}
		})
	}
	// Without strict protection the behind pull request merges.
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	if got, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+itoa(behind)+"/merge", map[string]string{"sha": behindHead}); got != 200 {
		t.Errorf("merge without strict = %d %v, want 200", got, v)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// filter=latest (the default) hides a re-run's predecessor; filter=all,
// check_name and status filter as documented; a stale failure does not make
// the pull request unstable.
func TestCheckRunFilters(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	for _, run := range []map[string]string{
		{"name": "build", "head_sha": head, "status": "completed", "conclusion": "failure"},
		{"name": "build", "head_sha": head, "status": "completed", "conclusion": "success"}, // the re-run
		{"name": "lint", "head_sha": head, "status": "in_progress"},
	} {
		if st, v := call(t, s, "ci", "POST", "/repos/acme/api/check-runs", run); st != 201 {
			t.Fatalf("check run: %d %v", st, v)
		}
	}
	summary := func(query string) []string {
		st, v := call(t, s, "ci", "GET", "/repos/acme/api/commits/"+head+"/check-runs"+query, nil)
		if st != 200 {
			t.Fatalf("check runs%s: %d %v", query, st, v)
		}
		var out []string
		for _, r := range field(v, "check_runs").([]any) {
			c, _ := field(r, "conclusion").(string)
			out = append(out, field(r, "name").(string)+":"+field(r, "status").(string)+":"+c)
		}
		return out
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"build:completed:success", "lint:in_progress:"}},
		{"?filter=latest", []string{"build:completed:success", "lint:in_progress:"}},
		{"?filter=all", []string{"build:completed:failure", "build:completed:success", "lint:in_progress:"}},
		{"?filter=all&check_name=build", []string{"build:completed:failure", "build:completed:success"}},
		{"?status=in_progress", []string{"lint:in_progress:"}},
		{"?filter=all&per_page=1&page=3", []string{"lint:in_progress:"}},
	}
	for _, tc := range tests {
		t.Run("query "+tc.query, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summary(tc.query)); diff != "" {
				t.Errorf("check runs (-want +got):\n%s", diff)
			}
		})
	}
	call(t, s, "ci", "GET", "/repos/acme/api/pulls/"+itoa(n), nil)
	// GitHub: a pending check outside the required ones is unstable.
	if _, v := call(t, s, "ci", "GET", "/repos/acme/api/pulls/"+itoa(n), nil); field(v, "mergeable_state") != "unstable" {
		t.Errorf("mergeable_state = %v, want unstable: the failed run was re-run, lint is in progress", field(v, "mergeable_state"))
	}
	if st, v := call(t, s, "ci", "POST", "/repos/acme/api/check-runs", map[string]string{"name": "lint", "head_sha": head, "status": "completed", "conclusion": "success"}); st != 201 {
		t.Fatalf("check run: %d %v", st, v)
	}
	if _, v := call(t, s, "ci", "GET", "/repos/acme/api/pulls/"+itoa(n), nil); field(v, "mergeable_state") != "clean" {
		t.Errorf("mergeable_state = %v, want clean: the failed run was re-run and lint passed", field(v, "mergeable_state"))
	}
}

// Deleting an open pull request's head branch closes it; pushing its head
// into the base marks it merged.
func TestAutomaticPullRequestStates(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pushFile(t, w, "gone", "g.txt", "g\n")
	gone := openPull(t, s, "gone", nil)
	head := pushFile(t, w, "landed", "l.txt", "l\n")
	landed := openPull(t, s, "landed", nil)
	git(t, w, "push", "--quiet", "origin", "--delete", "gone")
	git(t, w, "push", "--quiet", "origin", head+":refs/heads/main")
	for _, tc := range []struct {
		name   string
		number int
		state  string
		merged bool
	}{
		{"deleted head closes", gone, "closed", false},
		{"head pushed into base merges", landed, "closed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+itoa(tc.number), nil)
			if field(v, "state") != tc.state || field(v, "merged") != tc.merged || (field(v, "closed_at") == nil) {
				t.Errorf("state %v merged %v closed_at %v, want %s merged %v with closed_at", field(v, "state"), field(v, "merged"), field(v, "closed_at"), tc.state, tc.merged)
			}
			if tc.merged && field(v, "merge_commit_sha") != head {
				t.Errorf("merge_commit_sha = %v, want the base's new head %s", field(v, "merge_commit_sha"), head)
			}
		})
	}
}

// Workflow dispatch is validated against the workflow file on the ref.
func TestWorkflowDispatchValidation(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	files := map[string]string{
		"agent.yml":  "on:\n  workflow_dispatch:\n    inputs:\n      task:\n        required: true\n      mode:\n        type: choice\n        options: [fast, slow]\n      note:\n        required: true\n        default: none\n",
		"push.yml":   "on: [push]\n",
		"simple.yml": "on: workflow_dispatch\n",
	}
	for name, content := range files {
		if err := s.PutFile("acme/api", "main", ".github/workflows/"+name, content); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, workflow string
		body           map[string]any
		want           int
		message        string
	}{
		{"declared inputs", "agent.yml", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t", "mode": "fast"}}, 204, ""},
		{"unknown workflow", "nope.yml", map[string]any{"ref": "main"}, 404, "Not Found"},
		{"undeclared input", "agent.yml", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t", "round": "2"}}, 422, `Unexpected inputs provided: ["round"]`},
		{"missing required input", "agent.yml", map[string]any{"ref": "main", "inputs": map[string]string{"mode": "slow"}}, 422, "Required input 'task' not provided"},
		{"choice outside its options", "agent.yml", map[string]any{"ref": "main", "inputs": map[string]string{"task": "t", "mode": "medium"}}, 422, "Provided value 'medium' for input 'mode' not in the list of allowed values"},
		{"no workflow_dispatch trigger", "push.yml", map[string]any{"ref": "main"}, 422, "Workflow does not have 'workflow_dispatch' trigger"},
		{"trigger without inputs takes none", "simple.yml", map[string]any{"ref": "main", "inputs": map[string]string{"x": "1"}}, 422, `Unexpected inputs provided: ["x"]`},
		{"unknown ref", "agent.yml", map[string]any{"ref": "nope", "inputs": map[string]string{"task": "t"}}, 422, "No ref found for: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/actions/workflows/"+tc.workflow+"/dispatches", tc.body)
			if got != tc.want || (tc.message != "" && field(v, "message") != tc.message) {
				t.Errorf("dispatch = %d %v, want %d %q", got, v, tc.want, tc.message)
			}
		})
	}
	if d := s.Dispatches("acme/api"); len(d) != 1 || !cmp.Equal(d[0].Inputs, map[string]string{"task": "t", "mode": "fast"}) {
		t.Errorf("recorded dispatches %+v, want only the valid one", d)
	}
}

// Requests GitHub refuses with 422 (or 404) although a lenient stand-in
// would accept them.
func TestRequestValidation(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "one\ntwo\nthree\n")
	n := itoa(openPull(t, s, "f", nil))
	_, rv := call(t, s, "reviewer", "POST", "/repos/acme/api/pulls/"+n+"/reviews", map[string]string{"event": "APPROVE"})
	review := itoa(int(field(rv, "id").(float64)))
	tests := []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"review comment without commit_id", "POST", "/pulls/" + n + "/comments", map[string]any{"body": "x", "path": "f.txt", "line": 1}, 422},
		{"review comment off the diff", "POST", "/pulls/" + n + "/comments", map[string]any{"body": "x", "commit_id": head, "path": "f.txt", "line": 9}, 422},
		{"review comment on a file outside the diff", "POST", "/pulls/" + n + "/comments", map[string]any{"body": "x", "commit_id": head, "path": "README.md", "line": 1}, 422},
		{"review comment on the diff", "POST", "/pulls/" + n + "/comments", map[string]any{"body": "x", "commit_id": head, "path": "f.txt", "line": 3}, 201},
		{"review with a comment off the diff", "POST", "/pulls/" + n + "/reviews", map[string]any{"event": "COMMENT", "body": "x", "comments": []map[string]any{{"path": "f.txt", "line": 7, "body": "y"}}}, 422},
		{"dismissal without a message", "PUT", "/pulls/" + n + "/reviews/" + review + "/dismissals", map[string]any{}, 422},
		{"dismissal with a message", "PUT", "/pulls/" + n + "/reviews/" + review + "/dismissals", map[string]any{"message": "stale"}, 200},
		{"empty label list", "POST", "/issues/" + n + "/labels", map[string]any{"labels": []string{}}, 422},
		{"pull request into a missing base", "POST", "/pulls", map[string]any{"title": "t", "head": "f", "base": "nope"}, 422},
		{"retarget onto a missing base", "PATCH", "/pulls/" + n, map[string]any{"base": "nope"}, 422},
		{"invalid state on edit", "PATCH", "/pulls/" + n, map[string]any{"state": "merged"}, 422},
		{"invalid state on list", "GET", "/pulls?state=merged", nil, 422},
		{"empty comment edit", "PATCH", "/issues/comments/1", map[string]any{"body": ""}, 422},
		{"invalid check-run filter", "GET", "/commits/" + head + "/check-runs?filter=newest", nil, 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, v := call(t, s, ghstandin.DefaultLogin, tc.method, "/repos/acme/api"+tc.path, tc.body)
			if got != tc.want {
				t.Errorf("%s %s = %d %v, want %d", tc.method, tc.path, got, v, tc.want)
			}
			if got >= 400 && (field(v, "message") == nil || field(v, "documentation_url") == nil) {
				t.Errorf("error body %v lacks message or documentation_url", v)
			}
		})
	}
}

// Owner and repository names are case-insensitive, and the canonical name
// is what GitHub answers with.
func TestCaseInsensitiveNames(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	for _, path := range []string{"/repos/ACME/Api", "/repos/acme/API/branches/main"} {
		if got, v := call(t, s, ghstandin.DefaultLogin, "GET", path, nil); got != 200 {
			t.Errorf("GET %s = %d %v, want 200", path, got, v)
		}
	}
	if _, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/Acme/API", nil); field(v, "full_name") != "acme/api" {
		t.Errorf("full_name = %v, want acme/api", field(v, "full_name"))
	}
}

// git/matching-refs matches a prefix of the ref name, paginated; rules
// list the rulesets that apply to a branch, which classic protection is
// not; branch protection is not where a ruleset shows.
func TestMatchingRefsAndRules(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	for _, b := range []string{"feature/a", "feature/b", "feat", "fix"} {
		pushFile(t, w, b, "x.txt", b+"\n")
	}
	refs := func(path string) []string {
		st, v := call(t, s, ghstandin.DefaultLogin, "GET", path, nil)
		if st != 200 {
			t.Fatalf("GET %s = %d %v", path, st, v)
		}
		var out []string
		for _, r := range v.([]any) {
			out = append(out, field(r, "ref").(string))
		}
		return out
	}
	if diff := cmp.Diff([]string{"refs/heads/feat", "refs/heads/feature/a", "refs/heads/feature/b"}, refs("/repos/acme/api/git/matching-refs/heads/feat")); diff != "" {
		t.Errorf("matching-refs heads/feat (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"refs/heads/feature/b"}, refs("/repos/acme/api/git/matching-refs/heads/feature/?per_page=1&page=2")); diff != "" {
		t.Errorf("matching-refs page 2 (-want +got):\n%s", diff)
	}
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	s.Protect("acme/api", "fix", ghstandin.Protection{RequiredContexts: []string{"build", "lint"}, Strict: true, Ruleset: true})
	rulesOf := func(branch string) string {
		_, v := call(t, s, "reader", "GET", "/repos/acme/api/rules/branches/"+branch, nil)
		b, _ := json.Marshal(v)
		return string(b)
	}
	if got := rulesOf("main"); got != "[]" {
		t.Errorf("rules of a classically protected branch = %s, want []", got)
	}
	want := `{"parameters":{"required_status_checks":[{"context":"build"},{"context":"lint"}],"strict_required_status_checks_policy":true},"ruleset_id":1001,"ruleset_source":"acme/api","ruleset_source_type":"Repository","type":"required_status_checks"}`
	if got := rulesOf("fix"); !strings.Contains(got, want) || !strings.Contains(got, `"type":"non_fast_forward"`) {
		t.Errorf("rules of fix = %s, want %s and a non_fast_forward rule (force-pushes are not allowed)", got, want)
	}
	if got, _ := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/branches/fix/protection/required_status_checks", nil); got != 404 {
		t.Errorf("branch protection of a ruleset-only branch = %d, want 404", got)
	}
	// Classic protection is an admin-only read: a writer gets 404, and the
	// rules endpoint still tells every reader what is required.
	if got, _ := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/branches/main/protection/required_status_checks", nil); got != 200 {
		t.Errorf("branch protection for the admin = %d, want 200", got)
	}
	s.Token("writer")
	if got, _ := call(t, s, "writer", "GET", "/repos/acme/api/branches/main/protection/required_status_checks", nil); got != 404 {
		t.Errorf("branch protection for a writer = %d, want 404", got)
	}
}

// per_page and page hold wherever GitHub paginates, including the routes
// whose lists sit inside an object: compare's commits, a commit's files,
// the combined status.
func TestPerPageEverywhere(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	var head string
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		head = pushFile(t, w, "f", f, f+"\n")
	}
	// One commit touching three files.
	git(t, w, "checkout", "--quiet", "-B", "wide", "origin/main")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(w, f), []byte("wide\n"), 0o644)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "wide")
	wide := git(t, w, "rev-parse", "HEAD")
	git(t, w, "push", "--quiet", "origin", "wide")
	for _, c := range []string{"a", "b", "c"} {
		call(t, s, "ci", "POST", "/repos/acme/api/statuses/"+head, map[string]string{"state": "success", "context": c})
	}
	count := func(path, key string) int {
		st, v := call(t, s, ghstandin.DefaultLogin, "GET", path, nil)
		if st != 200 {
			t.Fatalf("GET %s = %d %v", path, st, v)
		}
		if key == "" {
			return len(v.([]any))
		}
		return len(field(v, key).([]any))
	}
	tests := []struct {
		name, path, key string
		want            int
	}{
		{"compare commits", "/compare/main...f?per_page=2", "commits", 2},
		{"compare commits, last page", "/compare/main...f?per_page=2&page=2", "commits", 1},
		{"compare files on later pages", "/compare/main...f?per_page=2&page=2", "files", 0},
		{"compare unpaginated", "/compare/main...f", "commits", 3},
		{"commit files", "/commits/" + wide + "?per_page=2", "files", 2},
		{"commit files, page 2", "/commits/" + wide + "?per_page=2&page=2", "files", 1},
		{"combined status", "/commits/" + head + "/status?per_page=2", "statuses", 2},
		{"statuses", "/commits/" + head + "/statuses?per_page=2&page=2", "", 1},
		{"branches", "/branches?per_page=1", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := count("/repos/acme/api"+tc.path, tc.key); got != tc.want {
				t.Errorf("%d items, want %d", got, tc.want)
			}
		})
	}
}

// A route the stand-in does not serve, or a method a route does not take,
// is GitHub's JSON 404, not Go's text/plain one.
func TestUnknownRoutesAnswerJSON(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	for _, tc := range []struct{ method, path string }{
		{"GET", "/repos/acme/api/forks"},
		{"DELETE", "/repos/acme/api/pulls/1"},
		{"GET", "/nothing"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			got, v := call(t, s, ghstandin.DefaultLogin, tc.method, tc.path, nil)
			if got != 404 || field(v, "message") != "Not Found" || field(v, "documentation_url") == nil {
				t.Errorf("%d %v, want a JSON 404 with documentation_url", got, v)
			}
		})
	}
}
