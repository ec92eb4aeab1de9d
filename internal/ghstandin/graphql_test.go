package ghstandin_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// gqlAnswer is a GraphQL answer as GitHub lays it out.
type gqlAnswer struct {
	Data   map[string]any `json:"data"`
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Path    []any  `json:"path"`
	} `json:"errors"`
	header http.Header
	status int
}

// gql posts a query to /api/graphql as login.
func gql(t *testing.T, s *ghstandin.Server, login, query string, vars map[string]any) gqlAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/api/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if login != "" {
		req.Header.Set("Authorization", "Bearer "+s.Token(login))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var a gqlAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	a.header, a.status = resp.Header, resp.StatusCode
	return a
}

// at walks a decoded answer: at(v, "repository", "pullRequest", "number").
func at(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

func noErrors(t *testing.T, a gqlAnswer) {
	t.Helper()
	if a.status != http.StatusOK || len(a.Errors) > 0 {
		t.Fatalf("GraphQL answered %d %+v", a.status, a.Errors)
	}
}

// pullRequests filters by state, head and base, orders as asked and pages
// with cursors; its fields are REST's records (issue 30 item 8).
func TestGraphQLPullRequestsMirrorREST(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	headA := pushFile(t, w, "a", "a.txt", "a\n")
	pushFile(t, w, "b", "b.txt", "b\nb\n")
	a := openPull(t, s, "a", nil)
	b := openPull(t, s, "b", map[string]any{"draft": true})
	if st, v := call(t, s, ghstandin.DefaultLogin, "PATCH", "/repos/acme/api/pulls/"+itoa(a), map[string]any{"state": "closed"}); st != 200 {
		t.Fatalf("close: %d %v", st, v)
	}
	const list = `query($after: String, $states: [PullRequestState!]) { repository(owner: "ACME", name: "api") {
	  pullRequests(first: 1, after: $after, states: $states, orderBy: {field: CREATED_AT, direction: DESC}) {
	    totalCount nodes { number state isDraft headRefName headRefOid baseRefName headRepositoryOwner { login } }
	    pageInfo { hasNextPage endCursor } } } }`
	got := []any{}
	var after any
	for range 3 {
		ans := gql(t, s, "reader", list, map[string]any{"after": after})
		noErrors(t, ans)
		conn := at(ans.Data, "repository", "pullRequests")
		if n := at(conn, "totalCount"); n != 2.0 {
			t.Errorf("totalCount %v, want 2", n)
		}
		got = append(got, at(conn, "nodes").([]any)...)
		if at(conn, "pageInfo", "hasNextPage") != true {
			break
		}
		after = at(conn, "pageInfo", "endCursor")
	}
	want := []any{
		map[string]any{"number": float64(b), "state": "OPEN", "isDraft": true, "headRefName": "b", "headRefOid": at(restPull(t, s, b), "head", "sha"),
			"baseRefName": "main", "headRepositoryOwner": map[string]any{"login": "acme"}},
		map[string]any{"number": float64(a), "state": "CLOSED", "isDraft": false, "headRefName": "a", "headRefOid": headA,
			"baseRefName": "main", "headRepositoryOwner": map[string]any{"login": "acme"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pullRequests, newest first, one a page (-want +got):\n%s", diff)
	}
	ans := gql(t, s, "reader", list, map[string]any{"states": []string{"OPEN"}})
	noErrors(t, ans)
	if n := at(ans.Data, "repository", "pullRequests", "totalCount"); n != 1.0 {
		t.Errorf("states: [OPEN]: totalCount %v, want 1", n)
	}
	if st, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/issues/"+itoa(b)+"/labels", map[string]any{"labels": []string{"Ready-For-Human"}}); st != 200 {
		t.Fatalf("label: %d %v", st, v)
	}
	ans = gql(t, s, "reader", `{ repository(owner: "acme", name: "api") { pullRequests(first: 10, labels: ["ready-for-human"]) {
	  nodes { number labels(first: 5) { nodes { name color } } } } } }`, nil)
	noErrors(t, ans)
	wantLabelled := []any{map[string]any{"number": float64(b), "labels": map[string]any{"nodes": []any{map[string]any{"name": "Ready-For-Human", "color": "ededed"}}}}}
	if diff := cmp.Diff(wantLabelled, at(ans.Data, "repository", "pullRequests", "nodes")); diff != "" {
		t.Errorf("labels: [ready-for-human] (-want +got):\n%s", diff)
	}
}

func restPull(t *testing.T, s *ghstandin.Server, n int) any {
	t.Helper()
	st, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+itoa(n), nil)
	if st != 200 {
		t.Fatalf("GET pull %d: %d %v", n, st, v)
	}
	return v
}

const pullState = `query($n: Int!) { repository(owner: "acme", name: "api") { pullRequest(number: $n) {
  id mergeable mergeStateStatus reviewDecision state merged
  latestReviews(first: 10) { nodes { author { login } state } }
  comments(first: 10) { totalCount nodes { body author { login } viewerDidAuthor } } } } }`

// Mutations are REST's: an approval through GraphQL is a review REST
// lists and the protection counts (blocked becomes clean), a comment is an
// issue comment, a merge merges; and GraphQL refuses what REST refuses,
// with GitHub's error types.
func TestGraphQLMutationsAreREST(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredReviews: 1})
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	vars := map[string]any{"n": n}
	pull := func() any {
		t.Helper()
		gql(t, s, "reader", pullState, vars) // the first read may be UNKNOWN
		ans := gql(t, s, "reader", pullState, vars)
		noErrors(t, ans)
		return at(ans.Data, "repository", "pullRequest")
	}
	before := pull()
	if got := []any{at(before, "mergeable"), at(before, "mergeStateStatus"), at(before, "reviewDecision")}; !cmp.Equal(got, []any{"MERGEABLE", "BLOCKED", "REVIEW_REQUIRED"}) {
		t.Errorf("before review: mergeable, mergeStateStatus, reviewDecision = %v", got)
	}
	id := at(before, "id")
	const review = `mutation($input: AddPullRequestReviewInput!) { addPullRequestReview(input: $input) {
	  clientMutationId pullRequestReview { state author { login } body } } }`
	own := gql(t, s, ghstandin.DefaultLogin, review, map[string]any{"input": map[string]any{"pullRequestId": id, "event": "APPROVE"}})
	if len(own.Errors) != 1 || own.Errors[0].Type != "UNPROCESSABLE" || own.Errors[0].Message != "Can not approve your own pull request" {
		t.Errorf("the author's approval: %+v, want UNPROCESSABLE and REST's reason", own.Errors)
	}
	ok := gql(t, s, "reviewer", review, map[string]any{"input": map[string]any{"pullRequestId": id, "event": "APPROVE", "body": "LGTM", "clientMutationId": "m1"}})
	noErrors(t, ok)
	want := map[string]any{"clientMutationId": "m1", "pullRequestReview": map[string]any{"state": "APPROVED", "author": map[string]any{"login": "reviewer"}, "body": "LGTM"}}
	if diff := cmp.Diff(want, at(ok.Data, "addPullRequestReview")); diff != "" {
		t.Errorf("addPullRequestReview (-want +got):\n%s", diff)
	}
	_, reviews := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+itoa(n)+"/reviews", nil)
	if l, _ := reviews.([]any); len(l) != 1 || at(l[0], "state") != "APPROVED" || at(l[0], "user", "login") != "reviewer" {
		t.Errorf("REST reviews after a GraphQL approval: %v", reviews)
	}
	restPull(t, s, n)
	if st := at(restPull(t, s, n), "mergeable_state"); st != "clean" {
		t.Errorf("REST mergeable_state after the approval: %v, want clean", st)
	}
	const comment = `mutation($input: AddCommentInput!) { addComment(input: $input) { commentEdge { node { url body } } } }`
	c := gql(t, s, "reviewer", comment, map[string]any{"input": map[string]any{"subjectId": id, "body": "Thanks"}})
	noErrors(t, c)
	_, comments := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/issues/"+itoa(n)+"/comments", nil)
	if l, _ := comments.([]any); len(l) != 1 || at(l[0], "body") != "Thanks" || at(l[0], "html_url") != at(c.Data, "addComment", "commentEdge", "node", "url") {
		t.Errorf("REST comments after addComment %v: %v", c.Data, comments)
	}
	after := pull()
	wantAfter := map[string]any{"id": id, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN", "reviewDecision": "APPROVED", "state": "OPEN", "merged": false,
		"latestReviews": map[string]any{"nodes": []any{map[string]any{"author": map[string]any{"login": "reviewer"}, "state": "APPROVED"}}},
		"comments":      map[string]any{"totalCount": 1.0, "nodes": []any{map[string]any{"body": "Thanks", "author": map[string]any{"login": "reviewer"}, "viewerDidAuthor": false}}}}
	if diff := cmp.Diff(wantAfter, after); diff != "" {
		t.Errorf("the pull request after review and comment (-want +got):\n%s", diff)
	}
	const merge = `mutation($input: MergePullRequestInput!) { mergePullRequest(input: $input) { actor { login } pullRequest { state merged mergeCommit { oid } } } }`
	stale := gql(t, s, ghstandin.DefaultLogin, merge, map[string]any{"input": map[string]any{"pullRequestId": id, "expectedHeadOid": strings.Repeat("0", 40)}})
	if len(stale.Errors) != 1 || stale.Errors[0].Type != "CONFLICT" {
		t.Errorf("merge with a stale expectedHeadOid: %+v, want REST's 409 as CONFLICT", stale.Errors)
	}
	m := gql(t, s, ghstandin.DefaultLogin, merge, map[string]any{"input": map[string]any{"pullRequestId": id, "mergeMethod": "MERGE"}})
	noErrors(t, m)
	rest := restPull(t, s, n)
	if at(rest, "merged") != true || at(m.Data, "mergePullRequest", "pullRequest", "mergeCommit", "oid") != at(rest, "merge_commit_sha") ||
		at(m.Data, "mergePullRequest", "pullRequest", "state") != "MERGED" {
		t.Errorf("mergePullRequest %v; REST merged %v, merge_commit_sha %v", m.Data, at(rest, "merged"), at(rest, "merge_commit_sha"))
	}
}

// What GitHub refuses, GraphQL refuses with GitHub's error type: a field
// the schema lacks, a connection without first or last, more than 100
// records, a repository or node that does not exist; a request without a
// token or with broken JSON is not GraphQL at all.
func TestGraphQLRefusals(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	for _, tc := range []struct {
		name, query, wantType, wantMsg string
	}{
		{"unknown field", `{ viewer { login email } }`, "", `Cannot query field "email" on type "User".`},
		{"no first or last", `{ repository(owner: "acme", name: "api") { pullRequests { nodes { number } } } }`, "MISSING_PAGINATION_BOUNDARIES",
			"You must provide a `first` or `last` value to properly paginate the `pullRequests` connection."},
		{"too many", `{ repository(owner: "acme", name: "api") { pullRequests(first: 101) { nodes { number } } } }`, "EXCESSIVE_PAGINATION",
			"Requesting 101 records on the `pullRequests` connection exceeds the `first` limit of 100 records."},
		{"no repository", `{ repository(owner: "acme", name: "nope") { id } }`, "NOT_FOUND", "Could not resolve to a Repository with the name 'acme/nope'."},
		{"no pull request", `{ repository(owner: "acme", name: "api") { pullRequest(number: 7) { id } } }`, "NOT_FOUND", "Could not resolve to a PullRequest with the number of 7."},
		{"no node", `{ node(id: "PR_999") { id } }`, "NOT_FOUND", "Could not resolve to a node with the global id of 'PR_999'"},
		{"unknown mutation input", `mutation { mergePullRequest(input: {pullRequestId: "PR_1", mergeMethod: FAST}) { clientMutationId } }`, "",
			`Value "FAST" does not exist in "PullRequestMergeMethod" enum.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := gql(t, s, "reader", tc.query, nil)
			if ans.status != 200 || len(ans.Errors) != 1 || ans.Errors[0].Type != tc.wantType || ans.Errors[0].Message != tc.wantMsg {
				t.Errorf("%d %+v, want one error %s %q", ans.status, ans.Errors, tc.wantType, tc.wantMsg)
			}
		})
	}
	if ans := gql(t, s, "", `{ viewer { login } }`, nil); ans.status != 401 {
		t.Errorf("without a token: %d, want 401", ans.status)
	}
	resp, err := http.Post(s.URL()+"/api/graphql", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 && resp.StatusCode != 401 {
		t.Errorf("broken JSON: %d, want 400 or 401", resp.StatusCode)
	}
}

// GraphQL is charged to its own budget: X-RateLimit-Resource says
// graphql, and GET /rate_limit shows it used while core is not.
func TestGraphQLRateBudget(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	for range 3 {
		ans := gql(t, s, "counter", `{ viewer { login } }`, nil)
		noErrors(t, ans)
		if r := ans.header.Get("X-RateLimit-Resource"); r != "graphql" {
			t.Errorf("X-RateLimit-Resource %q, want graphql", r)
		}
	}
	_, v := call(t, s, "counter", "GET", "/rate_limit", nil)
	got := map[string]any{"core": at(v, "resources", "core", "used"), "graphql": at(v, "resources", "graphql", "used")}
	if diff := cmp.Diff(map[string]any{"core": 0.0, "graphql": 3.0}, got); diff != "" {
		t.Errorf("used (-want +got):\n%s", diff)
	}
}

// A commit's statusCheckRollup holds its latest statuses and check runs
// as the StatusCheckRollupContext union, isRequired from the base's
// protection (in any case), as gh pr checks reads them.
func TestGraphQLStatusCheckRollup(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"CI/Build"}})
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	for _, st := range []map[string]string{{"state": "pending", "context": "ci/build"}, {"state": "success", "context": "ci/build", "target_url": "https://ci.example/1"}} {
		if code, v := call(t, s, "ci", "POST", "/repos/acme/api/statuses/"+head, st); code != 201 {
			t.Fatalf("status: %d %v", code, v)
		}
	}
	if code, v := call(t, s, "ci", "POST", "/repos/acme/api/check-runs", map[string]string{"name": "lint", "head_sha": head, "status": "completed", "conclusion": "failure"}); code != 201 {
		t.Fatalf("check run: %d %v", code, v)
	}
	id := at(gql(t, s, "reader", pullState, map[string]any{"n": n}).Data, "repository", "pullRequest", "id")
	ans := gql(t, s, "reader", `query($id: ID!) { node(id: $id) { ... on PullRequest { commits(last: 1) { nodes { commit { oid statusCheckRollup { state
	  contexts(first: 100) { nodes { __typename
	    ... on StatusContext { context state targetUrl isRequired(pullRequestId: $id) }
	    ... on CheckRun { name status conclusion checkSuite { workflowRun { id } } isRequired(pullRequestId: $id) } } } } } } } } } }`, map[string]any{"id": id})
	noErrors(t, ans)
	commit := at(at(ans.Data, "node", "commits", "nodes").([]any)[0], "commit")
	want := map[string]any{"oid": head, "statusCheckRollup": map[string]any{"state": "FAILURE", "contexts": map[string]any{"nodes": []any{
		map[string]any{"__typename": "StatusContext", "context": "ci/build", "state": "SUCCESS", "targetUrl": "https://ci.example/1", "isRequired": true},
		map[string]any{"__typename": "CheckRun", "name": "lint", "status": "COMPLETED", "conclusion": "FAILURE", "checkSuite": map[string]any{"workflowRun": nil}, "isRequired": false},
	}}}}
	if diff := cmp.Diff(want, commit); diff != "" {
		t.Errorf("the head's rollup (-want +got):\n%s", diff)
	}
}

// gallivant's own mutation, exactly as internal/githubapi sends it, turns
// a draft ready for review; introspection answers as gh's feature
// detection asks.
func TestGraphQLReadyForReviewAndIntrospection(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", map[string]any{"draft": true})
	nodeID := at(restPull(t, s, n), "node_id")
	ans := gql(t, s, ghstandin.DefaultLogin, "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
		map[string]any{"id": nodeID})
	noErrors(t, ans)
	if d := at(restPull(t, s, n), "draft"); d != false || at(ans.Data, "markPullRequestReadyForReview", "pullRequest", "isDraft") != false {
		t.Errorf("after markPullRequestReadyForReview: REST draft %v, answer %v", d, ans.Data)
	}
	intro := gql(t, s, "reader", `query PullRequest_fields{PullRequest: __type(name: "PullRequest"){fields(includeDeprecated: true){name}}}`, nil)
	noErrors(t, intro)
	names := map[string]bool{}
	for _, f := range at(intro.Data, "PullRequest", "fields").([]any) {
		names[at(f, "name").(string)] = true
	}
	if !names["mergeStateStatus"] || !names["reviewDecision"] || names["isInMergeQueue"] {
		t.Errorf("PullRequest fields %v: want mergeStateStatus and reviewDecision, not isInMergeQueue", names)
	}
}

// GET /api/v3/ is GitHub's root index, which gh auth login reads.
func TestAPIRoot(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	st, v := call(t, s, "reader", "GET", "/", nil)
	if st != 200 || at(v, "repository_url") != s.URL()+"/api/v3/repos/{owner}/{repo}" || at(v, "current_user_url") != s.URL()+"/api/v3/user" {
		t.Errorf("GET /api/v3/: %d %v", st, v)
	}
}

// The GraphQL endpoint takes any body without panicking and answers JSON.
func FuzzGraphQL(f *testing.F) {
	s := testserver.Start(f, "acme/api")
	h := s.Handler()
	tok := s.Token("fuzzer")
	for _, q := range []string{`{ viewer { login } }`, pullState, `{ repository(owner: "acme", name: "api") { pullRequests(first: 5, after: "Y3Vyc29yOnYyOjE=") { nodes { number } } } }`,
		`mutation { addComment(input: {subjectId: "PR_1", body: "x"}) { clientMutationId } }`, `{ node(id: "IC_1") { id } }`, `{ __schema { types { name } } }`} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		body, _ := json.Marshal(map[string]any{"query": q})
		req := httptest.NewRequest(http.MethodPost, "/api/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 && rec.Code != 403 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("not JSON: %s", rec.Body)
		}
	})
}

// A ref's branchProtectionRule is its classic protection, with REST's
// visibility: the administrator sees it (pattern, required checks and
// reviews), anyone else null, as REST answers them 404; a ruleset is not
// classic protection, and an unprotected branch has none.
func TestGraphQLBranchProtectionRule(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci", "lint"}, RequiredReviews: 2, Strict: true})
	const q = `query($b: String!) { repository(owner: "acme", name: "api") { ref(qualifiedName: $b) { branchProtectionRule {
	  pattern requiresStatusChecks requiredStatusCheckContexts requiredStatusChecks { context } requiresApprovingReviews requiredApprovingReviewCount requiresStrictStatusChecks } } } }`
	rule := func(login string) any {
		t.Helper()
		a := gql(t, s, login, q, map[string]any{"b": "refs/heads/main"})
		noErrors(t, a)
		return at(a.Data, "repository", "ref", "branchProtectionRule")
	}
	want := map[string]any{"pattern": "main", "requiresStatusChecks": true, "requiredStatusCheckContexts": []any{"ci", "lint"},
		"requiredStatusChecks":     []any{map[string]any{"context": "ci"}, map[string]any{"context": "lint"}},
		"requiresApprovingReviews": true, "requiredApprovingReviewCount": 2.0, "requiresStrictStatusChecks": true}
	if diff := cmp.Diff(want, rule(ghstandin.DefaultLogin)); diff != "" {
		t.Errorf("the administrator's rule (-want +got):\n%s", diff)
	}
	if code, _ := call(t, s, "reader", "GET", "/repos/acme/api/branches/main/protection", nil); code != 404 {
		t.Errorf("REST protection for a reader: %d, want 404", code)
	}
	if got := rule("reader"); got != nil {
		t.Errorf("a reader's rule: %v, want null as REST's 404", got)
	}
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true})
	if got := rule(ghstandin.DefaultLogin); got != nil {
		t.Errorf("a ruleset's rule: %v, want null (not classic protection)", got)
	}
}
