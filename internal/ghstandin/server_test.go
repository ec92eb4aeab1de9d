package ghstandin_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-github/v66/github"
)

func client(t testing.TB, s *ghstandin.Server, login string) *github.Client { return s.Client(login) }

// git runs the real git binary in dir.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// clone clones over smart HTTP and returns the work tree.
func clone(t testing.TB, s *ghstandin.Server, repo string) string {
	dir := t.TempDir()
	git(t, dir, "clone", "--quiet", s.GitURLWithToken(repo, s.MainToken()), "w")
	return filepath.Join(dir, "w")
}

// commitOn creates a branch with one commit writing path and pushes it.
func commitOn(t testing.TB, w, branch, path, content string) string {
	git(t, w, "checkout", "--quiet", "-B", branch, "origin/main")
	if err := os.WriteFile(filepath.Join(w, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "change "+path)
	git(t, w, "push", "--quiet", "origin", branch)
	return git(t, w, "rev-parse", "HEAD")
}

func TestPushIsVisibleThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	gh := client(t, s, ghstandin.DefaultLogin)
	w := clone(t, s, "acme/api")
	sha := commitOn(t, w, "feature/x", "a.txt", "hello\n")
	b, _, err := gh.Repositories.GetBranch(ctx, "acme", "api", "feature/x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.GetCommit().GetSHA(); got != sha {
		t.Errorf("branch head %s, want %s", got, sha)
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, "acme", "api", "main", "feature/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.GetAheadBy() != 1 || cmp.GetStatus() != "ahead" || len(cmp.Commits) != 1 || cmp.Commits[0].GetCommit().GetMessage() != "change a.txt" || len(cmp.Files) != 1 {
		t.Errorf("compare = %s ahead %d, %d commits, %d files", cmp.GetStatus(), cmp.GetAheadBy(), len(cmp.Commits), len(cmp.Files))
	}
	rc, _, err := gh.Repositories.GetCommit(ctx, "acme", "api", sha, nil)
	if err != nil || len(rc.Files) != 1 || rc.Files[0].GetFilename() != "a.txt" {
		t.Errorf("GetCommit: %v %+v", err, rc)
	}
	ref, _, err := gh.Git.GetRef(ctx, "acme", "api", "heads/feature/x")
	if err != nil || ref.GetObject().GetSHA() != sha {
		t.Errorf("GetRef: %v", err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "acme", "api", &github.Reference{Ref: github.String("refs/heads/copy"), Object: &github.GitObject{SHA: &sha}}); err != nil {
		t.Errorf("CreateRef: %v", err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "acme", "api", &github.Reference{Ref: github.String("refs/heads/copy"), Object: &github.GitObject{SHA: &sha}}); err == nil {
		t.Errorf("CreateRef of an existing ref: error = nil, want a refusal")
	}
}

func openPR(t testing.TB, s *ghstandin.Server, gh *github.Client, branch, file string) (*github.PullRequest, string) {
	t.Helper()
	w := clone(t, s, "acme/api")
	sha := commitOn(t, w, branch, file, branch+"\n")
	pr, _, err := gh.PullRequests.Create(context.Background(), "acme", "api", &github.NewPullRequest{Title: github.String("PR " + branch), Head: github.String(branch), Base: github.String("main"), Body: github.String("body")})
	if err != nil {
		t.Fatal(err)
	}
	return pr, sha
}

// Mergeability is null on the first read after the head moves and computed
// on a later one; a conflict is dirty.
func TestMergeabilityNullThenComputed(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	gh := client(t, s, ghstandin.DefaultLogin)
	pr, _ := openPR(t, s, gh, "one", "a.txt")
	get := func() *github.PullRequest {
		p, _, err := gh.PullRequests.Get(ctx, "acme", "api", pr.GetNumber())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Create's own read already consumed the null read; move the head.
	w := clone(t, s, "acme/api")
	git(t, w, "checkout", "--quiet", "one")
	os.WriteFile(filepath.Join(w, "b.txt"), []byte("b\n"), 0o644)
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "more")
	git(t, w, "push", "--quiet", "origin", "one")
	if p := get(); p.Mergeable != nil || p.GetMergeableState() != "unknown" {
		t.Errorf("first read after a push: mergeable %v state %q, want null/unknown", p.Mergeable, p.GetMergeableState())
	}
	if p := get(); p.Mergeable == nil || !*p.Mergeable || p.GetMergeableState() != "clean" {
		t.Errorf("second read: mergeable %v state %q, want true/clean", p.Mergeable, p.GetMergeableState())
	}
	// A conflicting change lands on main.
	git(t, w, "checkout", "--quiet", "-B", "main", "origin/main")
	os.WriteFile(filepath.Join(w, "a.txt"), []byte("main wins\n"), 0o644)
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "conflict")
	git(t, w, "push", "--quiet", "origin", "main")
	get()
	if p := get(); p.Mergeable == nil || *p.Mergeable || p.GetMergeableState() != "dirty" {
		t.Errorf("after a conflicting base: mergeable %v state %q, want false/dirty", p.Mergeable, p.GetMergeableState())
	}
}

// The merge endpoint's sha is a compare-and-swap: 409 on mismatch, 405 once
// the pull request is not mergeable.
func TestMergeCompareAndSwap(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	gh := client(t, s, ghstandin.DefaultLogin)
	pr, sha := openPR(t, s, gh, "feat", "f.txt")
	_, resp, err := gh.PullRequests.Merge(ctx, "acme", "api", pr.GetNumber(), "", &github.PullRequestOptions{SHA: strings.Repeat("0", 40)})
	if err == nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("merge with a stale sha: %v (status %d), want 409", err, resp.StatusCode)
	}
	res, _, err := gh.PullRequests.Merge(ctx, "acme", "api", pr.GetNumber(), "", &github.PullRequestOptions{SHA: sha})
	if err != nil || !res.GetMerged() {
		t.Fatalf("merge: %v %+v", err, res)
	}
	main, _, _ := gh.Repositories.GetBranch(ctx, "acme", "api", "main", 0)
	if main.GetCommit().GetSHA() != res.GetSHA() {
		t.Errorf("main is %s, want the merge commit %s", main.GetCommit().GetSHA(), res.GetSHA())
	}
	p, _, _ := gh.PullRequests.Get(ctx, "acme", "api", pr.GetNumber())
	if !p.GetMerged() || p.GetState() != "closed" || p.GetMergeCommitSHA() != res.GetSHA() {
		t.Errorf("after merge: merged %v state %s", p.GetMerged(), p.GetState())
	}
	_, resp, err = gh.PullRequests.Merge(ctx, "acme", "api", pr.GetNumber(), "", nil)
	if err == nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("merging a merged PR: %v, want 405", err)
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	gh := client(t, s, ghstandin.DefaultLogin)
	w := clone(t, s, "acme/api")
	var branches []string
	for i := 0; i < 23; i++ {
		b := fmt.Sprintf("b%02d", i)
		git(t, w, "checkout", "--quiet", "-B", b, "origin/main")
		os.WriteFile(filepath.Join(w, b), []byte(b), 0o644)
		git(t, w, "add", "-A")
		git(t, w, "commit", "--quiet", "-m", b)
		branches = append(branches, b)
	}
	git(t, w, append([]string{"push", "--quiet", "origin"}, branches...)...)
	for _, b := range branches {
		if _, _, err := gh.PullRequests.Create(ctx, "acme", "api", &github.NewPullRequest{Title: &b, Head: github.String(b), Base: github.String("main")}); err != nil {
			t.Fatal(err)
		}
	}
	opts := &github.PullRequestListOptions{State: "all", Sort: "updated", Direction: "desc", ListOptions: github.ListOptions{PerPage: 10}}
	var all []*github.PullRequest
	pages := 0
	for {
		ps, resp, err := gh.PullRequests.List(ctx, "acme", "api", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, ps...)
		if resp.NextPage == 0 {
			if resp.LastPage != 0 {
				t.Errorf("last page has LastPage = %d, want no rel=last", resp.LastPage)
			}
			break
		}
		if !strings.HasPrefix(resp.Header.Get("Link"), "<http://") {
			t.Errorf("Link header is not absolute: %s", resp.Header.Get("Link"))
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 23 || pages != 3 {
		t.Errorf("listed %d PRs in %d pages, want 23 in 3", len(all), pages)
	}
	if all[0].GetNumber() != 23 {
		t.Errorf("sort=updated desc starts with #%d, want #23", all[0].GetNumber())
	}
}

// A conditional request answered 304 does not consume rate limit.
func TestETagNotModifiedIsFree(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	tok := s.Token(ghstandin.DefaultLogin)
	get := func(etag string) *http.Response {
		req, _ := http.NewRequest("GET", s.APIURL()+"repos/acme/api/pulls", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
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
	first := get("")
	etag := first.Header.Get("ETag")
	if first.StatusCode != 200 || etag == "" || first.Header.Get("X-RateLimit-Remaining") != "4999" {
		t.Fatalf("first GET: %d etag %q remaining %s", first.StatusCode, etag, first.Header.Get("X-RateLimit-Remaining"))
	}
	before := s.Counts()
	second := get(etag)
	if second.StatusCode != http.StatusNotModified || second.Header.Get("X-RateLimit-Remaining") != "4999" {
		t.Errorf("conditional GET: %d remaining %s, want 304 and 4999", second.StatusCode, second.Header.Get("X-RateLimit-Remaining"))
	}
	after := s.Counts()
	if after.Counted != before.Counted || after.NotModified != before.NotModified+1 {
		t.Errorf("counts moved from %+v to %+v", before, after)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"} {
		if second.Header.Get(h) == "" {
			t.Errorf("304 lacks %s", h)
		}
	}
}

func TestRateLimitsAndFaults(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	gh := client(t, s, "alice")
	s.SetRemaining("alice", 0)
	_, _, err := gh.Repositories.Get(ctx, "acme", "api")
	var rle *github.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("exhausted primary limit: %v, want a RateLimitError", err)
	}
	s.SetRemaining("alice", 100)

	tests := []struct {
		kind   ghstandin.FaultKind
		status int
		check  func(error) bool
	}{
		{ghstandin.FaultSecondary, 403, func(err error) bool {
			var a *github.AbuseRateLimitError
			return errors.As(err, &a) && a.RetryAfter != nil && *a.RetryAfter == 3*time.Second
		}},
		{ghstandin.FaultSecondary429, 429, func(err error) bool { var e *github.ErrorResponse; return errors.As(err, &e) }},
		{ghstandin.FaultRateLimit429, 429, func(err error) bool { var e *github.ErrorResponse; return errors.As(err, &e) }},
		{ghstandin.FaultStatus, 502, func(err error) bool { var e *github.ErrorResponse; return errors.As(err, &e) }},
		{ghstandin.FaultMalformed, 200, func(err error) bool { return err != nil }},
	}
	for _, tt := range tests {
		gh := client(t, s, fmt.Sprintf("user%d", tt.kind))
		remove := s.InjectFault(ghstandin.Fault{Method: "GET", Path: `^/repos/acme/api$`, Kind: tt.kind, RetryAfter: 3})
		_, resp, err := gh.Repositories.Get(ctx, "acme", "api")
		remove()
		if !tt.check(err) || resp == nil || resp.StatusCode != tt.status {
			t.Errorf("fault %d: err %v status %v", tt.kind, err, resp)
		}
	}
	// go-github now refuses alice's requests locally until the reset (it
	// remembers the exhausted limit), so the rest runs as bob.
	gh = client(t, s, "bob")
	// Count-limited faults stop by themselves.
	s.InjectFault(ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultStatus, Status: 503, Count: 1})
	if _, _, err := gh.Users.Get(ctx, ""); err == nil {
		t.Errorf("first request under a one-shot 503 fault: error = nil, want the 503")
	}
	if u, _, err := gh.Users.Get(ctx, ""); err != nil || u.GetLogin() != "bob" {
		t.Errorf("second request: %v %v", u, err)
	}
	// A timeout fault holds the request until the client gives up.
	s.InjectFault(ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultTimeout, Count: 1})
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, _, err := gh.Users.Get(short, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout fault: %v", err)
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	bad, _ := github.NewClient(nil).WithAuthToken("nope").WithEnterpriseURLs(s.APIURL(), s.APIURL())
	_, resp, err := bad.Repositories.Get(t.Context(), "acme", "api")
	if err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %v, want 401", err)
	}
}

func TestReviewsCommentsLabelsChecks(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	bot := client(t, s, ghstandin.DefaultLogin)
	alice := client(t, s, "alice")
	pr, sha := openPR(t, s, bot, "work", "w.txt")
	n := pr.GetNumber()
	if _, _, err := bot.PullRequests.CreateReview(ctx, "acme", "api", n, &github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err == nil {
		t.Errorf("CreateReview APPROVE by the author: error = nil, want a refusal")
	}
	rv, _, err := alice.PullRequests.CreateReview(ctx, "acme", "api", n, &github.PullRequestReviewRequest{Event: github.String("REQUEST_CHANGES"), Body: github.String("fix the cache"),
		Comments: []*github.DraftReviewComment{{Path: github.String("w.txt"), Line: github.Int(1), Body: github.String("stale here")}}})
	if err != nil || rv.GetState() != "CHANGES_REQUESTED" || rv.GetCommitID() != sha || rv.SubmittedAt == nil {
		t.Fatalf("review: %v %+v", err, rv)
	}
	reviews, _, _ := bot.PullRequests.ListReviews(ctx, "acme", "api", n, nil)
	rcs, _, _ := bot.PullRequests.ListComments(ctx, "acme", "api", n, nil)
	if len(reviews) != 1 || len(rcs) != 1 || rcs[0].GetPullRequestReviewID() != rv.GetID() {
		t.Errorf("reviews %d, review comments %d", len(reviews), len(rcs))
	}
	c1, _, _ := alice.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("first")})
	later := c1.GetCreatedAt().Add(time.Second)
	// since is inclusive and on updated_at.
	got, _, _ := bot.Issues.ListComments(ctx, "acme", "api", n, &github.IssueListCommentsOptions{Since: &c1.CreatedAt.Time})
	none, _, _ := bot.Issues.ListComments(ctx, "acme", "api", n, &github.IssueListCommentsOptions{Since: &later})
	if len(got) != 1 || len(none) != 0 {
		t.Errorf("since filter: %d and %d comments, want 1 and 0", len(got), len(none))
	}
	if _, _, err := alice.Issues.EditComment(ctx, "acme", "api", c1.GetID(), &github.IssueComment{Body: github.String("edited")}); err != nil {
		t.Errorf("edit: %v", err)
	}
	labels, _, err := bot.Issues.AddLabelsToIssue(ctx, "acme", "api", n, []string{"ready-for-human"})
	if err != nil || len(labels) != 1 || labels[0].GetName() != "ready-for-human" {
		t.Errorf("add label: %v %v", err, labels)
	}
	if _, err := bot.Issues.RemoveLabelForIssue(ctx, "acme", "api", n, "ready-for-human"); err != nil {
		t.Errorf("remove label: %v", err)
	}
	resp, err := bot.Issues.RemoveLabelForIssue(ctx, "acme", "api", n, "ready-for-human")
	if err == nil || resp.StatusCode != 404 {
		t.Errorf("removing an absent label: %v, want 404", err)
	}
	// Statuses and check runs on the head.
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci/test"}})
	bot.Repositories.CreateStatus(ctx, "acme", "api", sha, &github.RepoStatus{State: github.String("pending"), Context: github.String("ci/test")})
	combined, _, _ := bot.Repositories.GetCombinedStatus(ctx, "acme", "api", sha, nil)
	if combined.GetState() != "pending" || combined.GetTotalCount() != 1 {
		t.Errorf("combined status %s/%d", combined.GetState(), combined.GetTotalCount())
	}
	bot.PullRequests.Get(ctx, "acme", "api", n)
	if p, _, _ := bot.PullRequests.Get(ctx, "acme", "api", n); p.GetMergeableState() != "blocked" {
		t.Errorf("required check pending: state %q, want blocked", p.GetMergeableState())
	}
	bot.Repositories.CreateStatus(ctx, "acme", "api", sha, &github.RepoStatus{State: github.String("success"), Context: github.String("ci/test")})
	cr, _, err := bot.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "lint", HeadSHA: sha, Status: github.String("completed"), Conclusion: github.String("failure")})
	if err != nil {
		t.Fatal(err)
	}
	runs, _, _ := bot.Checks.ListCheckRunsForRef(ctx, "acme", "api", sha, nil)
	if runs.GetTotal() != 1 || runs.CheckRuns[0].GetID() != cr.GetID() || runs.CheckRuns[0].GetConclusion() != "failure" {
		t.Errorf("check runs: %+v", runs)
	}
	if p, _, _ := bot.PullRequests.Get(ctx, "acme", "api", n); p.GetMergeableState() != "unstable" {
		t.Errorf("a failing optional check: state %q, want unstable", p.GetMergeableState())
	}
	rsc, _, err := bot.Repositories.GetRequiredStatusChecks(ctx, "acme", "api", "main")
	if err != nil || len(rsc.GetContexts()) != 1 {
		t.Errorf("required status checks: %v %+v", err, rsc)
	}
}

func TestWorkflowDispatchAndPersistence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ghstandin.New(ghstandin.Options{Dir: dir, Token: "tok-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRepo("acme/api", "main"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutFile("acme/api", "main", ".github/workflows/agent.yml", "on:\n  workflow_dispatch:\n    inputs:\n      task: {required: true}\n"); err != nil {
		t.Fatal(err)
	}
	ts := httptestServer(t, s)
	gh, _ := github.NewClient(nil).WithAuthToken("tok-1").WithEnterpriseURLs(ts+"/api/v3/", ts+"/api/v3/")
	_, err = gh.Actions.CreateWorkflowDispatchEventByFileName(t.Context(), "acme", "api", "agent.yml", github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: map[string]any{"task": "specs/x.md#row-2"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dispatches("acme/api"); len(d) != 1 || d[0].Workflow != "agent.yml" || d[0].Inputs["task"] != "specs/x.md#row-2" {
		t.Errorf("dispatches: %+v", d)
	}
	// A restart over the same directory keeps everything.
	s2, err := ghstandin.New(ghstandin.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.Repos(); len(got) != 1 || len(s2.Dispatches("acme/api")) != 1 || s2.Token(ghstandin.DefaultLogin) != "tok-1" {
		t.Errorf("after restart: repos %v dispatches %d", got, len(s2.Dispatches("acme/api")))
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	s, _ := ghstandin.New(ghstandin.Options{Dir: t.TempDir()})
	if err := s.Serve(t.Context(), "0.0.0.0:0", nil); err == nil {
		t.Errorf("Serve(0.0.0.0:0): error = nil, want a refusal of a non-loopback address")
	}
}
