package githubapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// fakeSleep records waits instead of sleeping.
type fakeSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	return ctx.Err()
}

func adapter(t testing.TB, s *ghstandin.Server, login string, log *bytes.Buffer) (*Client, *fakeSleep) {
	t.Helper()
	fs := &fakeSleep{}
	var lg *slog.Logger
	if log != nil {
		lg = slog.New(slog.NewTextHandler(log, nil))
	} else {
		lg = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// The timeout is long enough for a write that runs git in the
	// stand-in on a loaded machine under -race, and short enough that the
	// held-request case below gives up without waiting its hold out.
	g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(login), Sleep: fs.sleep, Timeout: 2 * time.Second, Logger: lg})
	if err != nil {
		t.Fatal(err)
	}
	return g, fs
}

func TestAdapterBranchesAndCompare(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	main, ok, err := g.BranchHead(ctx, "acme/api", "main")
	if err != nil || !ok || len(main) != 40 {
		t.Fatalf("BranchHead(main) = %q %v %v", main, ok, err)
	}
	if _, ok, err := g.BranchHead(ctx, "acme/api", "gallivant/x"); ok || err != nil {
		t.Errorf("a missing branch: ok %v err %v", ok, err)
	}
	if err := g.CreateBranch(ctx, "acme/api", "gallivant/x", main); err != nil {
		t.Fatal(err)
	}
	if err := g.CreateBranch(ctx, "acme/api", "gallivant/x", main); err != nil {
		t.Errorf("creating the same branch at the same sha again: %v", err)
	}
	head := testserver.PushBranch(t, s, "acme/api", "feature", "a.txt", "b.txt")
	cmp, err := g.Compare(ctx, "acme/api", main, head)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.AheadBy != 2 || len(cmp.Commits) != 2 || cmp.Commits[1].SHA != head || cmp.Commits[0].Subject != "add a.txt" || cmp.Commits[0].Body != "body line" || cmp.Files != 2 {
		t.Errorf("Compare = %+v", cmp)
	}
	if got := fmt.Sprint(cmp.Paths); got != "[a.txt b.txt]" {
		t.Errorf("Compare paths = %s, want [a.txt b.txt]", got)
	}
	if c, err := g.GetCommit(ctx, "acme/api", head); err != nil || c.Files != 1 || c.CommittedAt.IsZero() {
		t.Errorf("GetCommit = %+v %v", c, err)
	}
}

// An unchanged read is answered 304 from the cache and costs no rate limit.
func TestAdapterConditionalReads(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "body")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.GetPullRequest(ctx, "acme/api", pr.Number); err != nil {
		t.Fatal(err)
	}
	first, _ := g.GetPullRequest(ctx, "acme/api", pr.Number) // mergeability computed now
	before := s.Counts()
	again, err := g.GetPullRequest(ctx, "acme/api", pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	after := s.Counts()
	if after.Counted != before.Counted {
		t.Errorf("an unchanged read consumed rate limit: %+v -> %+v", before, after)
	}
	if after.NotModified != before.NotModified+1 || g.CacheHits() == 0 {
		t.Errorf("no 304 was served: %+v, cache hits %d", after, g.CacheHits())
	}
	if again.Number != first.Number || again.MergeableState != first.MergeableState || again.Body != "body" {
		t.Errorf("the cached answer differs: %+v vs %+v", again, first)
	}
}

func TestAdapterMergeabilityNullThenComputed(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	s.SetMergeabilityDelay(2)
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, _ := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	p, _ := g.GetPullRequest(ctx, "acme/api", pr.Number)
	if p.Mergeable != nil {
		t.Errorf("second read: mergeable %v, want nil while GitHub computes", *p.Mergeable)
	}
	p, _ = g.GetPullRequest(ctx, "acme/api", pr.Number)
	if p.Mergeable == nil || !*p.Mergeable || p.MergeableState != "clean" {
		t.Errorf("third read: %v %q, want true clean", p.Mergeable, p.MergeableState)
	}
}

func TestAdapterFaults(t *testing.T) {
	tests := []struct {
		name      string
		fault     ghstandin.Fault
		wantErr   func(error) bool
		wantWaits int
	}{
		{"5xx is retried", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultStatus, Status: 502, Count: 2}, func(err error) bool { return err == nil }, 2},
		{"timeouts are retried", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultTimeout, Count: 1, Hold: time.Minute}, func(err error) bool { return err == nil }, 1},
		{"5xx past the attempts fails", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultStatus, Status: 503}, func(err error) bool { return err != nil }, 3},
		{"a short secondary limit is waited out", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultSecondary, RetryAfter: 2, Count: 1}, func(err error) bool { return err == nil }, 1},
		{"a long secondary limit is typed", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultSecondary429, RetryAfter: 600}, func(err error) bool {
			var rl *RateLimitedError
			return errors.As(err, &rl) && rl.Secondary
		}, 0},
		{"primary 403 is typed", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultRateLimit}, func(err error) bool {
			var rl *RateLimitedError
			return errors.As(err, &rl) && !rl.Secondary && !rl.Until.IsZero()
		}, 0},
		{"primary 429 is typed", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultRateLimit429}, func(err error) bool {
			var rl *RateLimitedError
			return errors.As(err, &rl) && !rl.Secondary
		}, 0},
		{"malformed JSON is an error", ghstandin.Fault{Path: `^/user$`, Kind: ghstandin.FaultMalformed}, func(err error) bool { return err != nil }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testserver.Start(t, "acme/api")
			var log bytes.Buffer
			g, fs := adapter(t, s, "alice", &log)
			s.InjectFault(tt.fault)
			login, err := g.CurrentUser(t.Context())
			if !tt.wantErr(err) {
				t.Fatalf("CurrentUser = %q, %v", login, err)
			}
			if len(fs.waits) != tt.wantWaits {
				t.Errorf("waited %v, want %d waits", fs.waits, tt.wantWaits)
			}
			if tt.fault.Kind == ghstandin.FaultSecondary && (len(fs.waits) != 1 || fs.waits[0] != 2*time.Second) {
				t.Errorf("the secondary limit's Retry-After was not honoured: %v", fs.waits)
			}
			tok := s.Token("alice")
			if (err != nil && strings.Contains(err.Error(), tok)) || strings.Contains(log.String(), tok) {
				t.Errorf("the token leaked into an error or a log")
			}
		})
	}
}

func TestAdapterWritesAreIdempotent(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, _ := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	marker := Marker("round 1")
	// The first post lands but its response is lost.
	s.InjectFault(ghstandin.Fault{Method: "POST", Path: `/comments$`, Kind: ghstandin.FaultLostResponse, Count: 1})
	if _, err := g.EnsureComment(ctx, "acme/api", pr.Number, marker, "round 1 done "+marker); err == nil {
		t.Fatalf("the lost response was not reported")
	}
	created, err := g.EnsureComment(ctx, "acme/api", pr.Number, marker, "round 1 done "+marker)
	if err != nil || created {
		t.Errorf("retry: created %v err %v, want no second post", created, err)
	}
	cs, _ := g.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
	if len(cs) != 1 {
		t.Errorf("%d comments, want exactly 1", len(cs))
	}
	// Labels are read before they are written.
	s.ResetLog()
	for i := 0; i < 2; i++ {
		if err := g.AddLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err != nil {
			t.Fatal(err)
		}
	}
	posts := 0
	for _, r := range s.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/labels") {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("%d label posts, want 1", posts)
	}
	if err := g.RemoveLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err != nil {
		t.Fatal(err)
	}
	if err := g.RemoveLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err != nil {
		t.Errorf("removing an absent label: %v", err)
	}
	// A refused write is an error, never a silent success.
	s.InjectFault(ghstandin.Fault{Method: "DELETE", Kind: ghstandin.FaultStatus, Status: 403, Count: 1})
	if err := g.RemoveLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err == nil {
		t.Errorf("a 403 on label removal looked like success")
	}
}

func TestAdapterListingSinceAndPagination(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, _ := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	alice := s.Client("alice")
	var first time.Time
	for i := 0; i < 130; i++ {
		c, _, err := alice.Issues.CreateComment(ctx, "acme", "api", pr.Number, &github.IssueComment{Body: github.String(fmt.Sprint("comment ", i))})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = c.GetCreatedAt().Time
		}
	}
	all, err := g.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
	if err != nil || len(all) != 130 || all[129].Body != "comment 129" {
		t.Fatalf("IssueComments across pages: %d %v", len(all), err)
	}
	since, _ := g.IssueComments(ctx, "acme/api", pr.Number, first)
	if len(since) != 130 {
		t.Errorf("since is inclusive: %d comments", len(since))
	}
	if none, _ := g.IssueComments(ctx, "acme/api", pr.Number, first.Add(time.Hour)); len(none) != 0 {
		t.Errorf("since in the future: %d comments", len(none))
	}
	rv, _, err := alice.PullRequests.CreateReview(ctx, "acme", "api", pr.Number, &github.PullRequestReviewRequest{Event: github.String("REQUEST_CHANGES"), Body: github.String("no"),
		Comments: []*github.DraftReviewComment{{Path: github.String("f.txt"), Line: github.Int(1), Body: github.String("here")}}})
	if err != nil {
		t.Fatal(err)
	}
	reviews, _ := g.Reviews(ctx, "acme/api", pr.Number)
	rcs, _ := g.ReviewComments(ctx, "acme/api", pr.Number, first)
	if len(reviews) != 1 || reviews[0].State != "CHANGES_REQUESTED" || reviews[0].ID != rv.GetID() || len(rcs) != 1 || rcs[0].ReviewID != rv.GetID() || rcs[0].Path != "f.txt" {
		t.Errorf("reviews %+v review comments %+v", reviews, rcs)
	}
}

func TestAdapterChecksAndDispatch(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	sha := testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	raw := s.Client("ci-bot")
	raw.Repositories.CreateStatus(ctx, "acme", "api", sha, &github.RepoStatus{State: github.String("success"), Context: github.String("ci")})
	raw.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "lint", HeadSHA: sha, Status: github.String("in_progress")})
	ch, err := g.GetChecks(ctx, "acme/api", sha, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Statuses) != 1 || ch.Statuses[0].State != "success" || len(ch.Runs) != 1 || ch.Runs[0].Status != "in_progress" || len(ch.Required) != 1 || ch.Required[0] != "ci" {
		t.Errorf("GetChecks = %+v", ch)
	}
	if err := s.PutFile("acme/api", "main", ".github/workflows/agent.yml", "on:\n  workflow_dispatch:\n    inputs:\n      spec: {}\n"); err != nil {
		t.Fatal(err)
	}
	if err := g.DispatchWorkflow(ctx, "acme/api", "agent.yml", "main", map[string]string{"spec": "specs/x.md"}); err != nil {
		t.Fatal(err)
	}
	if d := s.Dispatches("acme/api"); len(d) != 1 || d[0].Inputs["spec"] != "specs/x.md" {
		t.Errorf("dispatches %+v", d)
	}
}

// After the first pass, discovering an unchanged repository costs no rate
// limit; a new pull request is seen on the next pass.
func TestDiscoverPullRequests(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "a", "a.txt")
	testserver.PushBranch(t, s, "acme/api", "b", "b.txt")
	g.CreatePullRequest(ctx, "acme/api", "a", "main", "A", "")
	prs, err := g.DiscoverPullRequests(ctx, "acme/api")
	if err != nil || len(prs) != 1 {
		t.Fatalf("first pass: %d %v", len(prs), err)
	}
	before := s.Counts()
	prs, _ = g.DiscoverPullRequests(ctx, "acme/api")
	if after := s.Counts(); after.Counted != before.Counted || len(prs) != 1 {
		t.Errorf("an unchanged pass consumed %d requests", after.Counted-before.Counted)
	}
	g.CreatePullRequest(ctx, "acme/api", "b", "main", "B", "")
	prs, _ = g.DiscoverPullRequests(ctx, "acme/api")
	if len(prs) != 2 {
		t.Errorf("after a new pull request: %d, want 2", len(prs))
	}
}

// TestLiveGitHub runs a few read-only contract checks against real GitHub
// when GALLIVANT_LIVE_GITHUB_TOKEN is set.
func TestLiveGitHub(t *testing.T) {
	tok := os.Getenv("GALLIVANT_LIVE_GITHUB_TOKEN")
	if tok == "" {
		t.Skip("GALLIVANT_LIVE_GITHUB_TOKEN not set")
	}
	g, err := New(Options{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if login, err := g.CurrentUser(ctx); err != nil || login == "" {
		t.Fatalf("CurrentUser: %q %v", login, err)
	}
	if sha, ok, err := g.BranchHead(ctx, "google/go-github", "master"); err != nil || !ok || len(sha) != 40 {
		t.Errorf("BranchHead: %q %v %v", sha, ok, err)
	}
	if _, ok, err := g.BranchHead(ctx, "google/go-github", "no-such-branch-gallivant"); ok || err != nil {
		t.Errorf("missing branch: %v %v", ok, err)
	}
}

// Check runs are read with filter=latest: a re-run hides the failure it
// repeats. Required checks come from the rules any reader sees and from
// branch protection when readable, each name once; protection hidden
// behind 403 or 404 is not read as "unprotected".
func TestAdapterLatestRunsAndRequiredChecks(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	sha := testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	raw := s.Client("ci-bot")
	for _, c := range []string{"failure", "success"} {
		if _, _, err := raw.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "build", HeadSHA: sha, Status: github.String("completed"), Conclusion: github.String(c)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		protection ghstandin.Protection
		fault      int // status injected on the branch protection endpoint
		want       []string
	}{
		{"classic protection, readable", ghstandin.Protection{RequiredContexts: []string{"ci", "build"}}, 0, []string{"ci", "build"}},
		{"ruleset", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true}, 0, []string{"ci"}},
		{"ruleset, protection answers 404 to this token", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true}, 404, []string{"ci"}},
		{"ruleset, protection answers 403 to this token", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true}, 403, []string{"ci"}},
		{"classic protection hidden", ghstandin.Protection{RequiredContexts: []string{"ci"}}, 404, nil},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			branch := fmt.Sprintf("base-%d", i)
			if _, _, err := raw.Git.CreateRef(ctx, "acme", "api", &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}); err != nil {
				t.Fatal(err)
			}
			s.Protect("acme/api", branch, tc.protection)
			if tc.fault != 0 {
				defer s.InjectFault(ghstandin.Fault{Path: "/branches/" + branch + "/protection", Kind: ghstandin.FaultStatus, Status: tc.fault})()
			}
			ch, err := g.GetChecks(ctx, "acme/api", sha, branch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ch.Required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
			if len(ch.Runs) != 1 || ch.Runs[0].Conclusion != "success" {
				t.Errorf("runs %+v, want only the re-run's success", ch.Runs)
			}
		})
	}
}

// Compare and commit reads follow every page: more than 100 commits ahead,
// more than 100 files in a commit.
func TestAdapterComparePaginates(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	dir := t.TempDir()
	testserver.Git(t, dir, "clone", "--quiet", s.GitURLWithToken("acme/api", s.MainToken()), "w")
	w := filepath.Join(dir, "w")
	testserver.Git(t, w, "checkout", "--quiet", "-B", "long")
	for i := range 130 {
		testserver.Git(t, w, "commit", "--quiet", "--allow-empty", "-m", fmt.Sprintf("commit %d", i))
	}
	for i := range 120 {
		os.WriteFile(filepath.Join(w, fmt.Sprintf("f%03d.txt", i)), []byte("x\n"), 0o644)
	}
	testserver.Git(t, w, "add", "-A")
	testserver.Git(t, w, "commit", "--quiet", "-m", "wide")
	testserver.Git(t, w, "push", "--quiet", "origin", "long")
	head := testserver.Git(t, w, "rev-parse", "HEAD")
	cmpr, err := g.Compare(t.Context(), "acme/api", "main", "long")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmpr.Commits) != 131 || cmpr.AheadBy != 131 || cmpr.Commits[130].SHA != head || cmpr.Files != 120 {
		t.Errorf("compare: %d commits (ahead %d), files %d, want 131 commits ending at the head and 120 files", len(cmpr.Commits), cmpr.AheadBy, cmpr.Files)
	}
	ci, err := g.GetCommit(t.Context(), "acme/api", head)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Files != 120 {
		t.Errorf("commit files %d, want 120", ci.Files)
	}
}

// A 404 names the operation once.
func TestAdapterNotFoundNamesTheOperationOnce(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	_, err := g.GetPullRequest(t.Context(), "acme/api", 7)
	var nf *NotFoundError
	if err == nil || !errors.As(err, &nf) {
		t.Fatalf("error %v, want a *NotFoundError", err)
	}
	if got, want := err.Error(), "read pull request acme/api#7: not found on GitHub"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

// cutBodies passes requests to the stand-in and cuts the body of the first
// n GET answers short, as a connection dropped mid-body does.
type cutBodies struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    int
}

func (c *cutBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet {
		return resp, err
	}
	c.mu.Lock()
	cut := c.n > 0
	if cut {
		c.n--
	}
	c.mu.Unlock()
	if cut {
		resp.Body = &shortBody{r: io.LimitReader(resp.Body, 5), c: resp.Body}
	}
	return resp, nil
}

// shortBody yields a few bytes of the body, then io.ErrUnexpectedEOF.
type shortBody struct {
	r io.Reader
	c io.Closer
}

func (b *shortBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *shortBody) Close() error { return b.c.Close() }

// Issue 33: a body cut short in transfer failed only when read, after the
// retrying transport had returned, so it was never retried.
func TestAdapterRetriesATruncatedBody(t *testing.T) {
	// The adapter makes 4 attempts of a GET (3 waits).
	for _, cuts := range []int{1, 2, 10} {
		t.Run(fmt.Sprintf("cut %d times", cuts), func(t *testing.T) {
			s := testserver.Start(t, "acme/api")
			fs := &fakeSleep{}
			ct := &cutBodies{next: http.DefaultTransport, n: cuts}
			g, err := New(Options{APIURL: s.APIURL(), Token: s.Token("alice"), Sleep: fs.sleep, Timeout: 5 * time.Second,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Transport: ct})
			if err != nil {
				t.Fatal(err)
			}
			login, err := g.CurrentUser(t.Context())
			if cuts < 4 {
				if err != nil || login != "alice" {
					t.Fatalf("CurrentUser = %q, %v; want alice after %d retries", login, err, cuts)
				}
			} else if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
				t.Fatalf("CurrentUser = %q, %v; want the cut body's error past the attempts", login, err)
			}
			if len(fs.waits) != min(cuts, 3) {
				t.Errorf("waited %v; want %d waits", fs.waits, min(cuts, 3))
			}
		})
	}
}

// Comparison statuses are typed at the adapter (issue 26); a comparison
// GitHub answers 404 — unrelated histories, or a base that is no commit of
// the repository — is CompareUnrelated, not an error.
func TestAdapterCompareStatuses(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	main, _, err := g.BranchHead(ctx, "acme/api", "main")
	if err != nil {
		t.Fatal(err)
	}
	ahead := testserver.PushBranch(t, s, "acme/api", "feature", "a.txt")
	dir := t.TempDir()
	testserver.Git(t, dir, "init", "--quiet", "-b", "orphan", "w")
	w := filepath.Join(dir, "w")
	if err := os.WriteFile(filepath.Join(w, "o.txt"), []byte("o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, w, "add", "-A")
	testserver.Git(t, w, "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "--quiet", "-m", "orphan")
	testserver.Git(t, w, "push", "--quiet", s.GitURLWithToken("acme/api", s.MainToken()), "HEAD:refs/heads/orphan")
	orphan := testserver.Git(t, w, "rev-parse", "HEAD")
	for _, tt := range []struct {
		name       string
		base, head string
		want       CompareStatus
		contains   bool
	}{
		{"ahead", main, ahead, CompareAhead, true},
		{"behind", ahead, main, CompareBehind, false},
		{"identical", main, main, CompareIdentical, true},
		{"unrelated history", main, orphan, CompareUnrelated, false},
		{"unknown base", strings.Repeat("e", 40), ahead, CompareUnrelated, false},
	} {
		got, err := g.Compare(ctx, "acme/api", tt.base, tt.head)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got.Status != tt.want || got.Status.Contains() != tt.contains {
			t.Errorf("%s: status %q (contains %v), want %q (contains %v)", tt.name, got.Status, got.Status.Contains(), tt.want, tt.contains)
		}
	}
}
