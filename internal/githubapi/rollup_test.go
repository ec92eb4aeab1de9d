package githubapi

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// The rollup query reads, in one GraphQL request paid from GraphQL's
// budget, what the four REST reads of a watched pull request read: its
// head's check runs and statuses (a re-run on the same head replaces
// the run it repeats), the IDs and update times of its conversation and
// inline comments, and the base's head.
func TestPullRequestRollupsMatchREST(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	sha := testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	if err != nil {
		t.Fatal(err)
	}
	testserver.PushBranch(t, s, "acme/api", "g", "g.txt")
	quiet, err := g.CreatePullRequest(ctx, "acme/api", "g", "main", "Quiet", "")
	if err != nil {
		t.Fatal(err)
	}
	ci := s.Client("ci-bot")
	for _, c := range []string{"failure", "success"} {
		if _, _, err := ci.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "build", HeadSHA: sha, Status: github.String("completed"), Conclusion: github.String(c), DetailsURL: github.String("https://ci.example/1")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := ci.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "lint", HeadSHA: sha, Status: github.String("in_progress")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ci.Repositories.CreateStatus(ctx, "acme", "api", sha, &github.RepoStatus{State: github.String("pending"), Context: github.String("ci"), TargetURL: github.String("https://ci.example/2")}); err != nil {
		t.Fatal(err)
	}
	alice := s.Client("alice")
	if _, _, err := alice.Issues.CreateComment(ctx, "acme", "api", pr.Number, &github.IssueComment{Body: github.String("one")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.PullRequests.CreateReview(ctx, "acme", "api", pr.Number, &github.PullRequestReviewRequest{Event: github.String("COMMENT"), Body: github.String("see"),
		Comments: []*github.DraftReviewComment{{Path: github.String("f.txt"), Line: github.Int(1), Body: github.String("here")}}}); err != nil {
		t.Fatal(err)
	}

	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci", "build"}, Ruleset: true})
	before := g.Requests()
	got, err := g.PullRequestRollups(ctx, "acme/api", []int{pr.Number, quiet.Number}, []string{"main", "gone"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Requests().Sub(before); d.Requests != 1 || d.GraphQL != 1 || d.RateLimited != 0 || d.NotModified != 0 {
		t.Errorf("the rollup query counted %+v; want one GraphQL request, not charged to the primary budget", d)
	}
	main, _, err := g.BranchHead(ctx, "acme/api", "main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"main": main, "gone": ""}, got.BaseHeads); diff != "" {
		t.Errorf("base heads (-want +got):\n%s", diff)
	}
	req, err := g.RequiredChecks(ctx, "acme/api", "main", "k")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"main": req.Checks}, got.BaseRules); diff != "" || len(req.Protection) != 0 {
		t.Errorf("base rules against REST's %+v (-rest +rollup):\n%s", req, diff)
	}
	r := got.PullRequests[pr.Number]
	if r.HeadSHA != sha || r.ChecksSHA != sha || !r.ChecksComplete || !r.CommentsComplete {
		t.Errorf("rollup of #%d: head %s checks on %s, complete %v/%v; want %s and complete", pr.Number, r.HeadSHA, r.ChecksSHA, r.ChecksComplete, r.CommentsComplete, sha)
	}
	rest, err := g.CheckEvidence(ctx, "acme/api", sha)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range []*Checks{&rest, &r.Checks} {
		for i := range ch.Runs {
			ch.Runs[i].ID = 0 // the rollup does not read run ids
		}
		sort.Slice(ch.Runs, func(i, j int) bool { return ch.Runs[i].Name < ch.Runs[j].Name })
	}
	if diff := cmp.Diff(rest, r.Checks); diff != "" {
		t.Errorf("rollup checks against REST's (-rest +rollup):\n%s", diff)
	}
	for _, inline := range []bool{false, true} {
		list, gotCs := g.IssueComments, r.IssueComments
		if inline {
			list, gotCs = g.ReviewComments, r.ReviewComments
		}
		cs, err := list(ctx, "acme/api", pr.Number, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Comment
		for _, c := range cs {
			want = append(want, Comment{ID: c.ID, UpdatedAt: c.UpdatedAt.UTC().Truncate(time.Second)})
		}
		if diff := cmp.Diff(want, gotCs); diff != "" || len(want) != 1 {
			t.Errorf("inline %v comments against REST's (-rest +rollup):\n%s", inline, diff)
		}
	}
	if q := got.PullRequests[quiet.Number]; len(q.Checks.Runs)+len(q.Checks.Statuses) != 0 || !q.ChecksComplete || len(q.IssueComments) != 0 {
		t.Errorf("rollup of a pull request with no checks nor comments: %+v", q)
	}
	if _, err := g.PullRequestRollups(ctx, "acme/api", []int{99}, nil, ""); !errors.As(err, new(*GraphQLError)) {
		t.Errorf("rollup of a missing pull request: %v; want a GraphQLError", err)
	}
}

// More pull requests than one query holds take one query per
// rollupPerQuery; a page short of its total is reported incomplete.
func TestPullRequestRollupsBounded(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	var numbers []int
	sha := testserver.PushBranch(t, s, "acme/api", "b0", "b.txt")
	for i := range rollupPerQuery + 1 {
		if i > 0 {
			if err := g.CreateBranch(ctx, "acme/api", fmt.Sprint("b", i), sha); err != nil {
				t.Fatal(err)
			}
		}
		pr, err := g.CreatePullRequest(ctx, "acme/api", fmt.Sprint("b", i), "main", "T", "")
		if err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, pr.Number)
	}
	alice := s.Client("alice")
	for range rollupComments + 1 {
		if _, _, err := alice.Issues.CreateComment(ctx, "acme", "api", numbers[0], &github.IssueComment{Body: github.String("x")}); err != nil {
			t.Fatal(err)
		}
	}
	before := g.Requests()
	got, err := g.PullRequestRollups(ctx, "acme/api", numbers, []string{"main"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Requests().Sub(before); d.GraphQL != 2 {
		t.Errorf("%d pull requests took %d queries, want 2", len(numbers), d.GraphQL)
	}
	if len(got.PullRequests) != len(numbers) || got.BaseHeads["main"] == "" {
		t.Fatalf("rollups of %d pull requests, base heads %v", len(got.PullRequests), got.BaseHeads)
	}
	if r := got.PullRequests[numbers[0]]; r.CommentsComplete || len(r.IssueComments) != rollupComments {
		t.Errorf("%d comments: complete %v with %d read; want incomplete with a page", rollupComments+1, r.CommentsComplete, len(r.IssueComments))
	}
	if r := got.PullRequests[numbers[1]]; !r.CommentsComplete {
		t.Errorf("a pull request with no comments is incomplete")
	}
}

// An answer of the wrong shape is a positioned error, never a guess.
func TestParseRollupsRefusesOtherShapes(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	pr := func(extra string) string {
		return `{"repository":{"p0":{"number":7,"headRefOid":"` + head + `","commits":{"totalCount":1,"nodes":[{"commit":{"oid":"` + head + `","statusCheckRollup":{"contexts":{"totalCount":1,"nodes":[` + extra + `]}}}}]},` +
			`"comments":{"totalCount":0,"nodes":[]},"reviews":{"totalCount":0,"nodes":[]}}}}`
	}
	good := `{"__typename":"CheckRun","name":"ci","status":"COMPLETED","conclusion":"FAILURE","detailsUrl":null}`
	rules := func(nodes string) string {
		return `{"repository":{"b0":{"target":{"oid":"` + head + `"},"rules":{"totalCount":1,"nodes":[` + nodes + `]}}}}`
	}
	if r, err := ParseRollups([]byte(rules(`{"type":"REQUIRED_STATUS_CHECKS","parameters":{"__typename":"RequiredStatusChecksParameters","requiredStatusChecks":[{"context":"ci"}]}}`)), nil, []string{"main"}); err != nil || len(r.BaseRules["main"]) != 1 {
		t.Fatalf("a base's rules: %+v, %v", r, err)
	}
	if _, err := ParseRollups([]byte(rules(`{"type":"REQUIRED_STATUS_CHECKS","parameters":null}`)), nil, []string{"main"}); !errors.Is(err, ErrRollupAnswer) || !strings.Contains(err.Error(), "data.repository.b0.rules") {
		t.Errorf("a required_status_checks rule without checks: %v", err)
	}
	if r, err := ParseRollups([]byte(pr(good)), []int{7}, nil); err != nil || r.PullRequests[7].Checks.Runs[0].Conclusion != "failure" {
		t.Fatalf("a good answer: %+v, %v", r, err)
	}
	for _, tc := range []struct{ name, data, where string }{
		{"an unknown conclusion", pr(`{"__typename":"CheckRun","name":"ci","status":"COMPLETED","conclusion":"MAYBE","detailsUrl":null}`), "contexts.nodes[0]"},
		{"an unknown type", pr(`{"__typename":"Deployment"}`), "contexts.nodes[0]"},
		{"an unasked field", pr(`{"__typename":"CheckRun","name":"ci","status":"COMPLETED","conclusion":null,"detailsUrl":null,"body":"x"}`), "data.repository.p0"},
		{"a null pull request", `{"repository":{"p0":null}}`, "data.repository.p0"},
		{"a missing alias", `{"repository":{"p1":null}}`, "data.repository.p0"},
		{"no repository", `{"repository":null}`, "data.repository"},
		{"not JSON", `{"repository":`, "data"},
	} {
		_, err := ParseRollups([]byte(tc.data), []int{7}, nil)
		if !errors.Is(err, ErrRollupAnswer) || !strings.Contains(err.Error(), tc.where) {
			t.Errorf("%s: %v; want ErrRollupAnswer at %s", tc.name, err, tc.where)
		}
	}
}

// ParseRollups never panics, and what it accepts is within the query's
// bounds.
func FuzzParseRollups(f *testing.F) {
	// Seeds of one part each (a base, a pull request) rather than one
	// whole answer: the fuzzer minimizes every input that finds new
	// coverage and executes nothing while it does, and the 600-byte
	// whole answer held it to 285 inputs in 10 s on one worker.
	head := strings.Repeat("b", 40)
	f.Add([]byte(`{"repository":{"b0":{"target":{"oid":"` + head + `"},"rules":{"totalCount":1,"nodes":[{"type":"REQUIRED_STATUS_CHECKS","parameters":{"__typename":"RequiredStatusChecksParameters","requiredStatusChecks":[{"context":"ci"}]}}]}},"p0":null}}`))
	f.Add([]byte(`{"repository":{"b0":null,"p0":{"number":1,"headRefOid":"` + head + `","commits":{"totalCount":1,"nodes":[{"commit":{"oid":"` + head + `","statusCheckRollup":null}}]},"comments":{"totalCount":1,"nodes":[{"fullDatabaseId":"12","updatedAt":"2026-12-01T10:00:00Z"}]},"reviews":{"totalCount":1,"nodes":[{"comments":{"totalCount":0,"nodes":[]}}]}}}}`))
	f.Add([]byte(`{"repository":{"b0":null,"p0":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRollups(data, []int{1}, []string{"main"})
		if err != nil {
			return
		}
		if len(r.BaseRules["main"]) > 0 && r.BaseHeads["main"] == "" {
			t.Errorf("rules of a base with no head: %+v", r)
		}
		p := r.PullRequests[1]
		if len(p.IssueComments) > rollupComments || len(p.ReviewComments) > rollupReviews*rollupReviewComments || len(p.Checks.Runs)+len(p.Checks.Statuses) > rollupContexts {
			t.Errorf("accepted more than the query asks for: %+v", p)
		}
	})
}

// Issue 33: the rollup's statusCheckRollup reads, over a table of CI
// states, exactly what REST's check runs (latest per name) and combined
// status report for the same head: each conclusion, a run still queued or
// in progress, a re-run replacing the run it repeats, commit statuses in
// every state, one context set twice (the latest counts), and several
// contexts in mixed states.
func TestRollupChecksMatchRESTByState(t *testing.T) {
	t.Parallel()
	type run struct{ name, status, conclusion string }
	type status struct{ context, state string }
	for _, tc := range []struct {
		name     string
		runs     []run
		statuses []status
	}{
		{"success", []run{{"build", "completed", "success"}}, []status{{"ci", "success"}}},
		{"failure", []run{{"build", "completed", "failure"}}, []status{{"ci", "failure"}}},
		{"pending", []run{{"build", "queued", ""}, {"lint", "in_progress", ""}}, []status{{"ci", "pending"}}},
		{"neutral", []run{{"build", "completed", "neutral"}}, nil},
		{"skipped", []run{{"build", "completed", "skipped"}}, nil},
		{"stale", []run{{"build", "completed", "stale"}}, nil},
		{"cancelled and timed out", []run{{"build", "completed", "cancelled"}, {"lint", "completed", "timed_out"}}, nil},
		{"action required", []run{{"build", "completed", "action_required"}}, nil},
		{"re-run turns green", []run{{"build", "completed", "failure"}, {"build", "completed", "success"}}, nil},
		{"re-run turns red", []run{{"build", "completed", "success"}, {"build", "completed", "failure"}}, nil},
		{"status set twice", nil, []status{{"ci", "pending"}, {"ci", "success"}}},
		{"mixed status contexts", nil, []status{{"ci", "success"}, {"lint", "failure"}, {"deploy", "pending"}, {"docs", "error"}}},
		{"mixed runs and statuses", []run{{"build", "completed", "success"}, {"e2e", "in_progress", ""}}, []status{{"ci", "error"}, {"lint", "success"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, "acme/api")
			g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
			ctx := t.Context()
			sha := testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
			pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
			if err != nil {
				t.Fatal(err)
			}
			ci := s.Client("ci-bot")
			for _, r := range tc.runs {
				o := github.CreateCheckRunOptions{Name: r.name, HeadSHA: sha, Status: github.String(r.status)}
				if r.conclusion != "" {
					o.Conclusion = github.String(r.conclusion)
				}
				if _, _, err := ci.Checks.CreateCheckRun(ctx, "acme", "api", o); err != nil {
					t.Fatalf("check run %+v: %v", r, err)
				}
			}
			for _, st := range tc.statuses {
				if _, _, err := ci.Repositories.CreateStatus(ctx, "acme", "api", sha, &github.RepoStatus{State: github.String(st.state), Context: github.String(st.context)}); err != nil {
					t.Fatalf("status %+v: %v", st, err)
				}
			}
			got, err := g.PullRequestRollups(ctx, "acme/api", []int{pr.Number}, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			r := got.PullRequests[pr.Number]
			if r.ChecksSHA != sha || !r.ChecksComplete {
				t.Fatalf("rollup checks on %s, complete %v; want %s and complete", r.ChecksSHA, r.ChecksComplete, sha)
			}
			rest, err := g.CheckEvidence(ctx, "acme/api", sha)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range []*Checks{&rest, &r.Checks} {
				for i := range ch.Runs {
					ch.Runs[i].ID = 0 // the rollup does not read run ids
				}
				sort.Slice(ch.Runs, func(i, j int) bool { return ch.Runs[i].Name < ch.Runs[j].Name })
				sort.Slice(ch.Statuses, func(i, j int) bool { return ch.Statuses[i].Context < ch.Statuses[j].Context })
			}
			if diff := cmp.Diff(rest, r.Checks); diff != "" {
				t.Errorf("rollup checks against REST's (-rest +rollup):\n%s", diff)
			}
			if n := len(rest.Runs) + len(rest.Statuses); n == 0 {
				t.Errorf("REST reports no checks on the head; the case tests nothing")
			}
		})
	}
}
