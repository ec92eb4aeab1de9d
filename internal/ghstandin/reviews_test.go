package ghstandin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// Required reviews (issue 30 item 2): under protection that requires an
// approval, a pull request is `blocked` and its merge refused until a user
// with push access approves; a change request blocks again, an outsider's
// or the author's approval does not count.
func TestRequiredReviewsBlock(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	if _, err := s.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredReviews: 1})
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	pr := "/repos/acme/api/pulls/" + itoa(n)
	state := func() any {
		t.Helper()
		call(t, s, "reviewer", "GET", pr, nil) // the first read may be null
		_, v := call(t, s, "reviewer", "GET", pr, nil)
		return field(v, "mergeable_state")
	}
	review := func(login, event string, wantStatus int) {
		t.Helper()
		if st, v := call(t, s, login, "POST", pr+"/reviews", map[string]any{"event": event, "body": "r"}); st != wantStatus {
			t.Fatalf("%s %s: %d %v, want %d", login, event, st, v, wantStatus)
		}
	}
	merge := func() (int, string) {
		t.Helper()
		st, v := call(t, s, ghstandin.DefaultLogin, "PUT", pr+"/merge", map[string]any{})
		msg, _ := field(v, "message").(string)
		return st, msg
	}
	if got := state(); got != "blocked" {
		t.Errorf("without reviews: mergeable_state %v, want blocked", got)
	}
	if st, msg := merge(); st != 405 || msg != "At least 1 approving review is required by reviewers with write access." {
		t.Errorf("merge without reviews: %d %q, want 405 and GitHub's message", st, msg)
	}
	review(ghstandin.DefaultLogin, "APPROVE", 422) // the author
	review("mallory", "APPROVE", 200)              // read access only
	if got := state(); got != "blocked" {
		t.Errorf("approved by an outsider only: mergeable_state %v, want blocked", got)
	}
	review("reviewer", "REQUEST_CHANGES", 200)
	review("second", "APPROVE", 200)
	if got := state(); got != "blocked" {
		t.Errorf("one approval and one change request: mergeable_state %v, want blocked", got)
	}
	review("reviewer", "APPROVE", 200)
	if got := state(); got != "clean" {
		t.Errorf("approved by two writers: mergeable_state %v, want clean", got)
	}
	if st, msg := merge(); st != 200 {
		t.Errorf("merge after approval: %d %q", st, msg)
	}
}

// A pending check outside the required ones is `unstable`, as on GitHub;
// a pending required one is `blocked`.
func TestPendingOptionalCheckIsUnstable(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 0})
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	pr := "/repos/acme/api/pulls/" + itoa(n)
	status := func(context, state string) {
		t.Helper()
		if st, v := call(t, s, "ci", "POST", "/repos/acme/api/statuses/"+head, map[string]any{"context": context, "state": state}); st != 201 {
			t.Fatalf("status: %d %v", st, v)
		}
	}
	state := func() any {
		call(t, s, "ci", "GET", pr, nil)
		_, v := call(t, s, "ci", "GET", pr, nil)
		return field(v, "mergeable_state")
	}
	var got []string
	status("ci", "pending")
	got = append(got, state().(string))
	status("ci", "success")
	status("docs", "pending")
	got = append(got, state().(string))
	status("docs", "success")
	got = append(got, state().(string))
	if want := "blocked unstable clean"; strings.Join(got, " ") != want {
		t.Errorf("mergeable_state: %v, want %s (required pending, optional pending, all passed)", got, want)
	}
}

// Labels (issue 30 items 5 and 6): one label per name in any case, an
// existing label keeping its spelling; items may be names or {"name": …}
// objects; removal matches any case.
func TestLabelsIgnoreCase(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pushFile(t, w, "a", "a.txt", "a\n")
	pushFile(t, w, "b", "b.txt", "b\n")
	one, two := openPull(t, s, "a", nil), openPull(t, s, "b", nil)
	names := func(v any) string {
		var out []string
		for _, l := range v.([]any) {
			out = append(out, field(l, "name").(string))
		}
		return strings.Join(out, ",")
	}
	add := func(n int, body any, want string) {
		t.Helper()
		st, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/issues/"+itoa(n)+"/labels", body)
		if st != 200 || names(v) != want {
			t.Errorf("add %v to #%d: %d %v, want labels %s", body, n, st, v, want)
		}
	}
	add(one, map[string]any{"labels": []string{"Ready-For-Human"}}, "Ready-For-Human")
	add(one, []string{"ready-for-human"}, "Ready-For-Human")
	add(two, []map[string]string{{"name": "READY-for-human"}, {"name": "bug"}}, "Ready-For-Human,bug")
	add(two, map[string]any{"labels": []map[string]string{{"name": "Bug"}}}, "Ready-For-Human,bug")
	if st, v := call(t, s, ghstandin.DefaultLogin, "DELETE", "/repos/acme/api/issues/"+itoa(two)+"/labels/ready-for-human", nil); st != 200 || names(v) != "bug" {
		t.Errorf("remove ready-for-human: %d %v, want bug left", st, v)
	}
}

// Reopening (issue 30 item 4): GitHub answers 422 for a merged pull
// request, a deleted head branch and a force-pushed head, and reopens one
// whose head only moved ahead, at the new head.
func TestReopenRefusals(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	for _, b := range []string{"merged", "deleted", "forced", "ahead"} {
		pushFile(t, w, b, b+".txt", b+"\n")
	}
	pr := map[string]int{}
	for _, b := range []string{"merged", "deleted", "forced", "ahead"} {
		pr[b] = openPull(t, s, b, nil)
	}
	edit := func(b, state string) (int, any) {
		return call(t, s, ghstandin.DefaultLogin, "PATCH", "/repos/acme/api/pulls/"+itoa(pr[b]), map[string]string{"state": state})
	}
	call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+itoa(pr["merged"]), nil)
	if st, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+itoa(pr["merged"])+"/merge", map[string]any{}); st != 200 {
		t.Fatalf("merge: %d %v", st, v)
	}
	for _, b := range []string{"deleted", "forced", "ahead"} {
		if st, v := edit(b, "closed"); st != 200 {
			t.Fatalf("close %s: %d %v", b, st, v)
		}
	}
	git(t, w, "push", "--quiet", "origin", ":deleted")
	git(t, w, "checkout", "--quiet", "--orphan", "rewrite")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "unrelated")
	git(t, w, "push", "--quiet", "--force", "origin", "rewrite:forced")
	ahead := pushFile(t, w, "ahead", "more.txt", "more\n")
	for _, tc := range []struct{ branch, why string }{
		{"merged", "state cannot be changed. The pull request has already been merged."},
		{"deleted", "state cannot be changed. The deleted branch has been deleted."},
		{"forced", "state cannot be changed. The forced branch was force-pushed or recreated."},
	} {
		st, v := edit(tc.branch, "open")
		errs, _ := field(v, "errors").([]any)
		if st != 422 || len(errs) != 1 || field(errs[0], "message") != tc.why || field(errs[0], "field") != "state" {
			t.Errorf("reopen %s: %d %v, want 422 saying %q", tc.branch, st, v, tc.why)
		}
	}
	st, v := edit("ahead", "open")
	if st != 200 || field(v, "state") != "open" || field(field(v, "head"), "sha") != ahead {
		t.Errorf("reopen ahead: %d state %v head %v, want 200, open at %s", st, field(v, "state"), field(field(v, "head"), "sha"), ahead)
	}
}

// update-branch (issue 30 items 3 and 9): GitHub answers 202 with the pull
// request's API URL and merges in the background, so a read right after
// the answer still sees the old head; the merge lands later as a merge
// commit of the base into the head.
func TestUpdateBranchIsAsynchronous(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	old := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	base := pushFile(t, w, "main", "g.txt", "g\n")
	st, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+itoa(n)+"/update-branch", map[string]string{"expected_head_sha": old})
	if want := s.APIURL() + "repos/acme/api/pulls/" + itoa(n); st != 202 || field(v, "url") != want {
		t.Fatalf("update-branch: %d %v, want 202 with url %s", st, v, want)
	}
	head := func() string {
		_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/branches/f", nil)
		return field(field(v, "commit"), "sha").(string)
	}
	if got := head(); got != old {
		t.Errorf("right after the 202 the head is %s, want the old head %s", got, old)
	}
	merged := head()
	if merged == old {
		t.Fatalf("the merge never landed")
	}
	parents := strings.Fields(git(t, w, "fetch", "--quiet", "origin") + git(t, w, "rev-list", "--parents", "-n", "1", merged))
	if len(parents) != 3 || parents[1] != old || parents[2] != base {
		t.Errorf("merge %s has parents %v, want %s and %s", merged, parents, old, base)
	}
	if subject := git(t, w, "log", "-1", "--format=%s", merged); subject != "Merge branch 'main' into f" {
		t.Errorf("merge subject %q", subject)
	}
}

// A commit's combined status keeps its ETag when a pull request opens in
// the repository (issue 30 item 9): the embedded repository carries no
// open-issue counts, as GitHub's minimal repository does not.
func TestCombinedStatusETagIgnoresOpenPulls(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	etag := func() string {
		t.Helper()
		req, _ := http.NewRequest("GET", s.APIURL()+"repos/acme/api/commits/"+head+"/status", nil)
		req.Header.Set("Authorization", "Bearer "+s.MainToken())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("ETag")
	}
	before := etag()
	openPull(t, s, "f", nil)
	if after := etag(); after != before || before == "" {
		t.Errorf("combined status ETag %q before and %q after a pull request opened; want it unchanged", before, after)
	}
}

// Behind a proxy (issue 30 item 9, --public-url) every absolute URL uses
// the public address, not the listen address.
func TestPublicURL(t *testing.T) {
	t.Parallel()
	s, err := ghstandin.New(ghstandin.Options{Dir: t.TempDir(), PublicURL: "https://sb.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRepo("acme/api", "main"); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, "127.0.0.1:0", func(u string) { ready <- u }) }()
	listen := <-ready
	defer func() { cancel(); <-done }()
	req, _ := http.NewRequest("GET", listen+"/api/v3/repos/acme/api", nil)
	req.Header.Set("Authorization", "Bearer "+s.MainToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if got := v["url"]; got != "https://sb.example.com/api/v3/repos/acme/api" || s.APIURL() != "https://sb.example.com/api/v3/" {
		t.Errorf("url %v, APIURL %s; want the public address", got, s.APIURL())
	}
	if strings.Contains(fmt.Sprint(v), strings.TrimPrefix(listen, "http://")) {
		t.Errorf("an answer names the listen address %s: %v", listen, v)
	}
}

// GET commits/{ref} with Accept: application/vnd.github.sha (or the v3
// spelling) answers the bare SHA (issue 30 item 6).
func TestCommitAsSHA(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	for _, accept := range []string{"application/vnd.github.sha", "application/vnd.github.v3.sha"} {
		req, _ := http.NewRequest("GET", s.APIURL()+"repos/acme/api/commits/f", nil)
		req.Header.Set("Authorization", "Bearer "+s.MainToken())
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || b.String() != head {
			t.Errorf("Accept %s: %d %q, want 200 %s", accept, resp.StatusCode, b.String(), head)
		}
	}
}

// A token cannot create or set a check run waiting, requested or pending:
// only GitHub Actions can (issue 30 item 6).
func TestCheckRunStatusesOnlyActionsSets(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	for _, status := range []string{"waiting", "requested", "pending"} {
		st, v := call(t, s, "ci", "POST", "/repos/acme/api/check-runs", map[string]string{"name": "build", "head_sha": head, "status": status})
		errs, _ := field(v, "errors").([]any)
		if st != 422 || len(errs) != 1 || !strings.Contains(fmt.Sprint(field(errs[0], "message")), "Only GitHub Actions") {
			t.Errorf("create %s: %d %v, want 422", status, st, v)
		}
	}
	if st, v := call(t, s, "ci", "POST", "/repos/acme/api/check-runs", map[string]string{"name": "build", "head_sha": head, "status": "queued"}); st != 201 {
		t.Errorf("create queued: %d %v", st, v)
	}
}
