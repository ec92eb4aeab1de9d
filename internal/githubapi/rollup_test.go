package githubapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	if r, err := ParseRollups([]byte(rules(`{"type":"REQUIRED_STATUS_CHECKS","parameters":{"__typename":"RequiredStatusChecksParameters","requiredStatusChecks":[{"context":"ci"}]}}`)), nil, []string{"main"}, nil); err != nil || len(r.BaseRules["main"]) != 1 {
		t.Fatalf("a base's rules: %+v, %v", r, err)
	}
	if _, err := ParseRollups([]byte(rules(`{"type":"REQUIRED_STATUS_CHECKS","parameters":null}`)), nil, []string{"main"}, nil); !errors.Is(err, ErrRollupAnswer) || !strings.Contains(err.Error(), "data.repository.b0.rules") {
		t.Errorf("a required_status_checks rule without checks: %v", err)
	}
	base := func(rules, prot string) string {
		return `{"repository":{"b0":{"target":{"oid":"` + head + `"},"rules":{"totalCount":1,"nodes":[` + rules + `]}` + prot + `}}}`
	}
	pull := `{"type":"PULL_REQUEST","parameters":{"__typename":"PullRequestParameters","requiredApprovingReviewCount":2}}`
	rule := `,"branchProtectionRule":{"pattern":"main","requiresStatusChecks":true,"requiredStatusCheckContexts":["ci",null],"requiredStatusChecks":[{"context":"ci"},{"context":"lint"}],"requiresApprovingReviews":true,"requiredApprovingReviewCount":3}`
	for _, tc := range []struct {
		name, data string
		protected  []string
		want       Rollups
		where      string
	}{
		{"a pull_request rule", base(pull, ""), nil,
			Rollups{BaseHeads: map[string]string{"main": head}, BaseRules: map[string][]string{"main": nil}, BaseApprovals: map[string]int{"main": 2}}, ""},
		{"a branchProtectionRule", base(pull, rule), []string{"main"},
			Rollups{BaseHeads: map[string]string{"main": head}, BaseRules: map[string][]string{"main": nil}, BaseApprovals: map[string]int{"main": 2},
				BaseProtection: map[string]Required{"main": {Checks: []string{"ci", "lint"}, Approvals: 3, Protection: []string{"ci", "lint"}}}}, ""},
		{"a null branchProtectionRule is no answer, not unprotected", base(pull, `,"branchProtectionRule":null`), []string{"main"},
			Rollups{BaseHeads: map[string]string{"main": head}, BaseRules: map[string][]string{"main": nil}, BaseApprovals: map[string]int{"main": 2}}, ""},
		{"a rule that requires nothing", base(pull, `,"branchProtectionRule":{"pattern":"main","requiresStatusChecks":false,"requiredStatusCheckContexts":["ci"],"requiredStatusChecks":[],"requiresApprovingReviews":false,"requiredApprovingReviewCount":null}`), []string{"main"},
			Rollups{BaseHeads: map[string]string{"main": head}, BaseRules: map[string][]string{"main": nil}, BaseApprovals: map[string]int{"main": 2},
				BaseProtection: map[string]Required{"main": {}}}, ""},
		{"a pull_request rule without its count", base(`{"type":"PULL_REQUEST","parameters":{"__typename":"PullRequestParameters"}}`, ""), nil, Rollups{}, "data.repository.b0.rules"},
		{"a review count out of range", base(`{"type":"PULL_REQUEST","parameters":{"__typename":"PullRequestParameters","requiredApprovingReviewCount":11}}`, ""), nil, Rollups{}, "data.repository.b0.rules"},
		{"a branchProtectionRule asked for and missing", base(pull, ""), []string{"main"}, Rollups{}, "data.repository.b0.branchProtectionRule"},
		{"a branchProtectionRule not asked for", base(pull, rule), nil, Rollups{}, "data.repository.b0.branchProtectionRule"},
		{"a branchProtectionRule without its flags", base(pull, `,"branchProtectionRule":{"pattern":"main","requiresStatusChecks":null,"requiredStatusCheckContexts":null,"requiredStatusChecks":null,"requiresApprovingReviews":true,"requiredApprovingReviewCount":1}`), []string{"main"}, Rollups{}, "data.repository.b0.branchProtectionRule"},
		{"required reviews without a count", base(pull, `,"branchProtectionRule":{"pattern":"main","requiresStatusChecks":false,"requiredStatusCheckContexts":null,"requiredStatusChecks":null,"requiresApprovingReviews":true,"requiredApprovingReviewCount":null}`), []string{"main"}, Rollups{}, "data.repository.b0.branchProtectionRule"},
	} {
		got, err := ParseRollups([]byte(tc.data), nil, []string{"main"}, tc.protected)
		if tc.where != "" {
			if !errors.Is(err, ErrRollupAnswer) || !strings.Contains(err.Error(), tc.where) {
				t.Errorf("%s: %v; want ErrRollupAnswer at %s", tc.name, err, tc.where)
			}
			continue
		}
		want := tc.want
		want.PullRequests = map[int]PullRequestRollup{}
		if want.BaseProtection == nil {
			want.BaseProtection = map[string]Required{}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); err != nil || diff != "" {
			t.Errorf("%s: %v (-want +got):\n%s", tc.name, err, diff)
		}
	}
	if r, err := ParseRollups([]byte(pr(good)), []int{7}, nil, nil); err != nil || r.PullRequests[7].Checks.Runs[0].Conclusion != "failure" {
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
		_, err := ParseRollups([]byte(tc.data), []int{7}, nil, nil)
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
	f.Add([]byte(`{"repository":{"b0":{"target":{"oid":"` + head + `"},"rules":{"totalCount":1,"nodes":[{"type":"PULL_REQUEST","parameters":{"__typename":"PullRequestParameters","requiredApprovingReviewCount":2}}]},` +
		`"branchProtectionRule":{"pattern":"main","requiresStatusChecks":true,"requiredStatusCheckContexts":["ci"],"requiredStatusChecks":[{"context":"lint"}],"requiresApprovingReviews":true,"requiredApprovingReviewCount":1}},"p0":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, protected := range [][]string{nil, {"main"}} {
			r, err := ParseRollups(data, []int{1}, []string{"main"}, protected)
			if err != nil {
				continue
			}
			_, rules := r.BaseRules["main"]
			_, prot := r.BaseProtection["main"]
			if (rules || prot) && r.BaseHeads["main"] == "" || prot && protected == nil {
				t.Errorf("rules or protection of a base with no head, or not asked for: %+v", r)
			}
			if n := max(r.BaseApprovals["main"], r.BaseProtection["main"].Approvals); n < 0 || n > maxApprovals {
				t.Errorf("accepted %d required approvals", n)
			}
			p := r.PullRequests[1]
			if len(p.IssueComments) > rollupComments || len(p.ReviewComments) > rollupReviews*rollupReviewComments || len(p.Checks.Runs)+len(p.Checks.Statuses) > rollupContexts {
				t.Errorf("accepted more than the query asks for: %+v", p)
			}
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

// Issue 33: the rollup query asks a base's branchProtectionRule only once
// the token has read that base's classic protection through REST with a
// 200, and then reads what REST reads (required checks, approving
// reviews); a token that cannot read it (REST's 404) is never asked it
// through GraphQL, whose null would look unprotected. A ruleset's
// pull_request rule gives BaseApprovals, as RulesetRequirements reads it.
func TestRollupProtectionMatchesREST(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	admin, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	writer, _ := adapter(t, s, "alice", nil)
	testserver.PushBranch(t, s, "acme/api", "rel", "r.txt")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci", "lint"}, RequiredReviews: 2})
	s.Protect("acme/api", "rel", ghstandin.Protection{RequiredContexts: []string{"build"}, RequiredReviews: 3, Ruleset: true})
	bases := []string{"main", "rel"}
	for _, g := range []*Client{admin, writer} {
		got, err := g.PullRequestRollups(ctx, "acme/api", nil, bases, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.BaseProtection) != 0 {
			t.Errorf("before any REST read of the protection: %+v; want none asked", got.BaseProtection)
		}
		if diff := cmp.Diff(map[string]int{"main": 0, "rel": 3}, got.BaseApprovals); diff != "" {
			t.Errorf("ruleset approvals (-want +got):\n%s", diff)
		}
	}
	want := map[*Client]map[string]Required{admin: {}, writer: {}}
	for g := range want {
		for _, b := range bases {
			p, err := g.ProtectionRequirements(ctx, "acme/api", b, "k")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Checks) > 0 {
				want[g][b] = p
			}
		}
	}
	if len(want[admin]) != 1 || want[admin]["main"].Approvals != 2 || len(want[writer]) != 0 {
		t.Fatalf("REST protection: admin %+v, writer %+v; want main's for the admin only", want[admin], want[writer])
	}
	for g, w := range want {
		before := g.Requests()
		got, err := g.PullRequestRollups(ctx, "acme/api", nil, bases, "")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, got.BaseProtection, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("GraphQL's protection against REST's (-rest +graphql):\n%s", diff)
		}
		if d := g.Requests().Sub(before); d.Requests != 1 || d.GraphQL != 1 {
			t.Errorf("the rollup query counted %+v; want one GraphQL request", d)
		}
	}
	// The protection removed: GraphQL answers null, which is no answer
	// (the caller reads REST, which says 404 and so forgets that the
	// protection was readable: the next query does not ask it).
	s.Protect("acme/api", "main", ghstandin.Protection{Ruleset: true})
	got, err := admin.PullRequestRollups(ctx, "acme/api", nil, bases, "")
	if err != nil || len(got.BaseProtection) != 0 || !admin.protectionReadable("acme/api", "main") {
		t.Fatalf("a removed protection: %+v, %v; want no answer, still asked until REST says", got.BaseProtection, err)
	}
	if p, err := admin.ProtectionRequirements(ctx, "acme/api", "main", "k2"); err != nil || len(p.Checks) != 0 || admin.protectionReadable("acme/api", "main") {
		t.Errorf("REST after the null: %+v, %v; want nothing required and the protection no longer readable", p, err)
	}
}

// An error GitHub gives about one base's branchProtectionRule (its path
// runs through it) leaves that field null and the rest of the answer
// used; any other error is the query's.
func TestProtectionRulePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path []any
		want bool
	}{
		{[]any{"repository", "b0", "branchProtectionRule"}, true},
		{[]any{"repository", "b12", "branchProtectionRule", "requiredStatusChecks", 0.0}, true},
		{[]any{"repository", "b0", "rules"}, false},
		{[]any{"repository", "p0", "branchProtectionRule"}, false},
		{[]any{"repository", "bx", "branchProtectionRule"}, false},
		{[]any{"repository", 0.0, "branchProtectionRule"}, false},
		{[]any{"repository"}, false},
		{nil, false},
	} {
		if got := protectionRulePath(tc.path); got != tc.want {
			t.Errorf("protectionRulePath(%v) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// A GraphQL error about one base's branchProtectionRule alone (GitHub
// refusing to show that rule, its path running through it) leaves the
// rule null and the answer used: that base has no BaseProtection, so the
// caller reads it through REST, and GraphQL is not remembered as refused.
// An error anywhere else is the query's error.
func TestRollupProtectionRuleRefusedIsNull(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("c", 40)
	for _, tc := range []struct {
		name    string
		path    string
		wantErr bool
	}{
		{"the rule refused", `["repository","b0","branchProtectionRule"]`, false},
		{"the ref refused", `["repository","b0"]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/api/graphql" {
					http.NotFound(w, r)
					return
				}
				body, _ := io.ReadAll(r.Body)
				if !strings.Contains(string(body), "branchProtectionRule") {
					t.Errorf("the query does not ask the readable base's rule: %s", body)
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"data":{"repository":{"b0":{"target":{"oid":"%s"},"rules":{"totalCount":0,"nodes":[]},"branchProtectionRule":null}}},`+
					`"errors":[{"type":"FORBIDDEN","message":"Resource not accessible by integration","path":%s}]}`, head, tc.path)
			}))
			t.Cleanup(srv.Close)
			g, err := New(Options{APIURL: srv.URL + "/api/v3/", Token: "t", Sleep: (&fakeSleep{}).sleep, Logger: testLogger(nil)})
			if err != nil {
				t.Fatal(err)
			}
			g.protectionRead = map[string]time.Time{hiddenKey("acme/api", "main"): time.Now()}
			got, err := g.PullRequestRollups(t.Context(), "acme/api", nil, []string{"main"}, "k")
			if tc.wantErr {
				var ge *GraphQLError
				if !errors.As(err, &ge) || ge.Type != "FORBIDDEN" {
					t.Errorf("an error about the ref: %v; want the query's GraphQL FORBIDDEN", err)
				}
				return
			}
			if err != nil || got.BaseHeads["main"] != head || len(got.BaseProtection) != 0 {
				t.Errorf("the rule refused: %+v, %v; want the head and no protection", got, err)
			}
			if _, refused := g.graphQLStillRefused("k"); refused {
				t.Errorf("a refused rule was remembered as GraphQL refused")
			}
		})
	}
}
