package ghstandin_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// Behaviours GitHub documents that the OpenAPI check found missing (issue
// 30 item 6), each with the documentation's statement.

// "Git references: heads and tags" — GET/POST/PATCH/DELETE git/refs serve
// tags as they serve branches; matching-refs lists both.
func TestTagRefs(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/git/ref/heads/main", nil)
	main, _ := field(field(v, "object"), "sha").(string)
	w := clone(t, s, "acme/api")
	next := pushFile(t, w, "main", "n.txt", "n\n")
	st, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/git/refs", map[string]string{"ref": "refs/tags/v1", "sha": main})
	if st != 201 || field(v, "ref") != "refs/tags/v1" || field(field(v, "object"), "type") != "commit" {
		t.Fatalf("create refs/tags/v1: %d %v", st, v)
	}
	if st, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/git/ref/tags/v1", nil); st != 200 || field(field(v, "object"), "sha") != main {
		t.Errorf("get tags/v1: %d %v", st, v)
	}
	if st, v := call(t, s, ghstandin.DefaultLogin, "PATCH", "/repos/acme/api/git/refs/tags/v1", map[string]any{"sha": next}); st != 200 || field(field(v, "object"), "sha") != next {
		t.Errorf("move tags/v1 forward: %d %v", st, v)
	}
	_, v = call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/git/matching-refs/tags/", nil)
	if list, _ := v.([]any); len(list) != 1 || field(list[0], "ref") != "refs/tags/v1" {
		t.Errorf("matching-refs/tags/: %v", v)
	}
	if st, _ := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/git/refs", map[string]string{"ref": "refs/tags/v1", "sha": main}); st != 422 {
		t.Errorf("creating tags/v1 again: %d, want 422 Reference already exists", st)
	}
	if st, _ := call(t, s, ghstandin.DefaultLogin, "DELETE", "/repos/acme/api/git/refs/tags/v1", nil); st != 204 {
		t.Errorf("delete tags/v1: %d, want 204", st)
	}
	if tags := git(t, w, "ls-remote", "--tags", "origin"); tags != "" {
		t.Errorf("tags after the delete: %q", tags)
	}
	if st, _ := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/git/refs", map[string]string{"ref": "refs/notes/x", "sha": main}); st != 422 {
		t.Errorf("create refs/notes/x: %d, want 422", st)
	}
}

// "direction: Default: desc when sort is created or sort is not
// specified, otherwise asc" (List pull requests); other values are 422.
func TestPullListDirectionDefaults(t *testing.T) {
	t.Parallel()
	clock := testserver.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, "acme/api")
	w := clone(t, s, "acme/api")
	for _, b := range []string{"a", "b", "c"} {
		pushFile(t, w, b, b+".txt", b+"\n")
		openPull(t, s, b, nil)
		clock.Advance(time.Minute)
	}
	// #1 is updated last.
	call(t, s, ghstandin.DefaultLogin, "PATCH", "/repos/acme/api/pulls/1", map[string]string{"title": "renamed"})
	numbers := func(query string) []int {
		t.Helper()
		st, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls?"+query, nil)
		if st != 200 {
			t.Fatalf("pulls?%s: %d %v", query, st, v)
		}
		var out []int
		for _, p := range v.([]any) {
			out = append(out, int(field(p, "number").(float64)))
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []int
	}{
		{"", []int{3, 2, 1}},
		{"sort=created", []int{3, 2, 1}},
		{"sort=created&direction=asc", []int{1, 2, 3}},
		{"sort=updated", []int{2, 3, 1}},
		{"sort=updated&direction=desc", []int{1, 3, 2}},
	} {
		if diff := cmp.Diff(tc.want, numbers(tc.query)); diff != "" {
			t.Errorf("pulls?%s (-want +got):\n%s", tc.query, diff)
		}
	}
	for _, q := range []string{"sort=name", "direction=up"} {
		if st, _ := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls?"+q, nil); st != 422 {
			t.Errorf("pulls?%s: %d, want 422", q, st)
		}
	}
}

// Commit status contexts are one per name in any case: the newest of
// "ci" and "CI" is the one the combined status reports.
func TestStatusContextsIgnoreCase(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	head := pushFile(t, clone(t, s, "acme/api"), "f", "f.txt", "f\n")
	call(t, s, "ci-bot", "POST", "/repos/acme/api/statuses/"+head, map[string]string{"state": "failure", "context": "ci"})
	call(t, s, "ci-bot", "POST", "/repos/acme/api/statuses/"+head, map[string]string{"state": "success", "context": "CI"})
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/commits/"+head+"/status", nil)
	list, _ := field(v, "statuses").([]any)
	if field(v, "state") != "success" || len(list) != 1 || field(list[0], "context") != "CI" {
		t.Errorf("combined status %v with statuses %v, want success from the one context CI", field(v, "state"), list)
	}
}

// The owner in compare's "owner:branch" and in pulls' head= matches in any
// case, as GitHub's logins do.
func TestOwnerCaseInCompareAndHead(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	pushFile(t, clone(t, s, "acme/api"), "f", "f.txt", "f\n")
	openPull(t, s, "f", nil)
	if st, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/compare/ACME:main...Acme:f", nil); st != 200 || field(v, "status") != "ahead" {
		t.Errorf("compare ACME:main...Acme:f: %d %v", st, field(v, "status"))
	}
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls?head=ACME:f", nil)
	if list, _ := v.([]any); len(list) != 1 {
		t.Errorf("pulls?head=ACME:f: %v, want the pull request from f", v)
	}
}

// "commit_id: The SHA of the commit that needs a review" — a review or a
// review comment on a commit that is not one of the pull request's is
// refused with 422.
func TestReviewCommitMustBeThePulls(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	first := pushFile(t, w, "f", "f.txt", "f\n")
	head := pushFile(t, w, "f", "g.txt", "g\n")
	other := pushFile(t, w, "other", "o.txt", "o\n")
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/git/ref/heads/main", nil)
	main, _ := field(field(v, "object"), "sha").(string)
	n := itoa(openPull(t, s, "f", nil))
	for _, tc := range []struct {
		name, commit string
		want         int
	}{
		{"the head", head, 200},
		{"an earlier commit of the pull request", first, 200},
		{"a commit of another branch", other, 422},
		{"the base", main, 422},
	} {
		if st, v := call(t, s, "alice", "POST", "/repos/acme/api/pulls/"+n+"/reviews", map[string]string{"event": "COMMENT", "body": "x", "commit_id": tc.commit}); st != tc.want {
			t.Errorf("review of %s: %d %v, want %d", tc.name, st, v, tc.want)
		}
	}
	st, _ := call(t, s, "alice", "POST", "/repos/acme/api/pulls/"+n+"/comments", map[string]any{"body": "x", "commit_id": other, "path": "f.txt", "line": 1, "side": "RIGHT"})
	if st != 422 {
		t.Errorf("review comment on a commit of another branch: %d, want 422", st)
	}
}

// "The ETag … varies with the Authorization header": the same answer has
// another ETag for another token, and a token's ETag is no use to another.
func TestETagsAreIssuedPerToken(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	get := func(token, etag string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", s.APIURL()+"repos/acme/api/branches/main", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	main, other := s.MainToken(), s.Token("alice")
	a, b := get(main, ""), get(other, "")
	if ea, eb := a.Header.Get("ETag"), b.Header.Get("ETag"); ea == "" || ea == eb {
		t.Errorf("ETags %q and %q for two tokens, want two different ones", ea, eb)
	}
	if !strings.Contains(a.Header.Get("Vary"), "Authorization") {
		t.Errorf("Vary %q, want it to name Authorization", a.Header.Get("Vary"))
	}
	if st := get(main, a.Header.Get("ETag")).StatusCode; st != http.StatusNotModified {
		t.Errorf("the token's own ETag: %d, want 304", st)
	}
	if st := get(other, a.Header.Get("ETag")).StatusCode; st != http.StatusOK {
		t.Errorf("another token's ETag: %d, want 200", st)
	}
}

// A request with a bad token is 401 with the rate-limit headers of the
// unauthenticated limit (60 an hour), as GitHub sends them.
func TestBadCredentialsCarryRateLimitHeaders(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	req, _ := http.NewRequest("GET", s.APIURL()+"repos/acme/api", nil)
	req.Header.Set("Authorization", "Bearer ghp_not_a_token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := map[string]string{}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Resource"} {
		got[h] = resp.Header.Get(h)
	}
	want := map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Used": "1", "X-RateLimit-Resource": "core"}
	if resp.StatusCode != 401 || resp.Header.Get("X-RateLimit-Reset") == "" {
		t.Errorf("bad token: %d, reset %q; want 401 with a reset time", resp.StatusCode, resp.Header.Get("X-RateLimit-Reset"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rate-limit headers of a 401 (-want +got):\n%s", diff)
	}
}
