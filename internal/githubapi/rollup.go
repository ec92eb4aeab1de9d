package githubapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
)

// A pull request ready or waiting for CI keeps a quiet mark that watches
// its head's checks and its comments (docs/reconcile.md, "Requests to
// GitHub"): a check re-run on the same head and an edited comment move
// neither the pull request's updated_at nor its head. Read through REST,
// that is four conditional requests per pull request and pass. One
// GraphQL query per repository reads them for all its watched pull
// requests at once, with the heads of their base branches: each pull
// request's last commit with its statusCheckRollup (check runs and commit
// statuses), the times its conversation and inline comments were last
// updated, and for each base its head and the checks its rulesets
// require. GraphQL answers are never 304 and are paid from GraphQL's own
// budget (points, 5,000 an hour), not the REST one; the meter counts them
// apart (RequestStats.GraphQL).
//
// The query is bounded: at most rollupPerQuery pull requests each, every
// connection with a first or last argument GitHub's cost rules price
// (rollupContexts, rollupComments, rollupReviews × rollupReviewComments),
// so a query of 20 pull requests costs GitHub about 7 points and requests
// about 23,000 nodes, far under its 500,000. What does not fit one page is
// reported incomplete, never guessed: the caller reads that pull request
// through REST instead.

// Bounds of the rollup query.
const (
	rollupPerQuery       = 20
	rollupContexts       = 100
	rollupComments       = 100
	rollupReviews        = 30
	rollupReviewComments = 30
	rollupRules          = 100
	// rollupMaxBody bounds an answer: 20 pull requests of full pages
	// are about 2 MiB of JSON.
	rollupMaxBody = 8 << 20
)

// PullRequestRollup is what the rollup query read of one pull request.
type PullRequestRollup struct {
	Number int
	// HeadSHA is the pull request's head (headRefOid); ChecksSHA the
	// commit Checks were read on, its last commit, which the caller
	// must find equal to the head it expects.
	HeadSHA   string
	ChecksSHA string
	// Checks are the check runs and commit statuses of the head's
	// statusCheckRollup (no Required: what the base requires is not
	// part of it). ChecksComplete is false when they did not fit one
	// page.
	Checks         Checks
	ChecksComplete bool
	// IssueComments and ReviewComments are every conversation and
	// inline comment, with only their ID and UpdatedAt (to the second,
	// as GitHub keeps it) set; CommentsComplete is false when some did
	// not fit the query's pages.
	IssueComments    []Comment
	ReviewComments   []Comment
	CommentsComplete bool
}

// Rollups is one repository's rollup answer.
type Rollups struct {
	// PullRequests are keyed by number.
	PullRequests map[int]PullRequestRollup
	// BaseHeads are the heads of the base branches asked for, keyed by
	// branch name; "" for a branch that does not exist.
	BaseHeads map[string]string
	// BaseRules are the check names the rulesets on each base require
	// (its required_status_checks rules, as RequiredChecks reads them
	// through REST; classic branch protection is not a rule), for each
	// existing base whose rules fit one page.
	BaseRules map[string][]string
	// BaseApprovals are the approving reviews the rulesets on each base
	// of BaseRules require (its pull_request rules, the largest count;
	// 0 when none), as RulesetRequirements reads them through REST.
	BaseApprovals map[string]int
	// BaseProtection is what the classic protection of each base asked
	// with its protection (PullRequestRollups' protected) requires, as
	// GraphQL's branchProtectionRule shows it, in ProtectionRequirements'
	// terms. A base whose rule answered null, or whose rule GitHub refused
	// to show, is not in it: null never means unprotected here (GitHub
	// does not document that field's visibility to tokens that cannot
	// administer the repository), and the caller reads it through REST.
	BaseProtection map[string]Required
}

// GraphQLError is a GraphQL answer that carries errors: GitHub parsed the
// request and refused it, or part of it (Type is GitHub's error type, such
// as NOT_FOUND, FORBIDDEN or MAX_NODE_LIMIT_EXCEEDED; "" when it gave none).
type GraphQLError struct {
	Op      string
	Type    string
	Message string
	// Query is set when the error is about the query itself: it carries
	// a location in the query or an extensions code (GitHub's schema
	// validation errors, such as undefinedField), not an execution
	// failure such as GitHub's timeout, which carries neither.
	Query bool
}

func (e *GraphQLError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("%s: GraphQL %s: %s", e.Op, e.Type, e.Message)
	}
	return fmt.Sprintf("%s: GraphQL: %s", e.Op, e.Message)
}

// ErrRollupAnswer reports a GraphQL answer to the rollup query that does
// not have the shape the query asks for.
var ErrRollupAnswer = errors.New("the answer does not match the query")

// PullRequestRollups reads, for the pull requests numbers of repo, their
// heads, checks and comment times, and the heads and rules of bases, in
// one GraphQL query per rollupPerQuery pull requests (the bases ride on
// the first). Of a base whose classic protection this adapter last read
// through REST with a 200 (ProtectionRequirements: the token may read it),
// the query asks the branchProtectionRule too (Rollups.BaseProtection);
// of any other base it does not, as GitHub shows classic protection to
// administrators only. An error in any answer is the call's error: the
// caller then reads through REST; an error GitHub gives about one base's
// branchProtectionRule alone is that base's null. A refusal of GraphQL
// itself is remembered under key (graphqlrefused.go): while it is, the
// call asks nothing and answers ErrGraphQLRefused.
func (g *Client) PullRequestRollups(ctx context.Context, repo string, numbers []int, bases []string, key string) (Rollups, error) {
	if r, ok := g.graphQLStillRefused(key); ok {
		return Rollups{}, refusedRollups(repo, r)
	}
	out := Rollups{PullRequests: map[int]PullRequestRollup{}, BaseHeads: map[string]string{}, BaseRules: map[string][]string{},
		BaseApprovals: map[string]int{}, BaseProtection: map[string]Required{}}
	numbers = slices.Compact(slices.Sorted(slices.Values(numbers)))
	bases = slices.Compact(slices.Sorted(slices.Values(bases)))
	var protected []string
	for _, b := range bases {
		if g.protectionReadable(repo, b) {
			protected = append(protected, b)
		}
	}
	for first := true; first || len(numbers) > 0; first = false {
		chunk := numbers[:min(len(numbers), rollupPerQuery)]
		numbers = numbers[len(chunk):]
		var bs, ps []string
		if first {
			bs, ps = bases, protected
		}
		if len(chunk) == 0 && len(bs) == 0 {
			break
		}
		op := fmt.Sprintf("read the checks and comments of %d pull requests in %s", len(chunk), repo)
		query, vars := rollupQuery(repo, chunk, bs, ps)
		data, err := g.postGraphQL(ctx, op, query, vars, protectionRulePath)
		g.noteGraphQLAnswer(key, err)
		if err != nil {
			return Rollups{}, err
		}
		r, err := ParseRollups(data, chunk, bs, ps)
		if err != nil {
			return Rollups{}, fmt.Errorf("%s: %w", op, err)
		}
		for n, p := range r.PullRequests {
			out.PullRequests[n] = p
		}
		for b, h := range r.BaseHeads {
			out.BaseHeads[b] = h
		}
		for b, rs := range r.BaseRules {
			out.BaseRules[b] = rs
		}
		for b, n := range r.BaseApprovals {
			out.BaseApprovals[b] = n
		}
		for b, p := range r.BaseProtection {
			out.BaseProtection[b] = p
		}
	}
	return out, nil
}

// rollupProtectionFields is what the query selects of a base's
// branchProtectionRule: what ProtectionRequirements reads of the REST
// protection (its required checks and approving reviews), and the
// rule's pattern.
const rollupProtectionFields = `branchProtectionRule { pattern requiresStatusChecks requiredStatusCheckContexts requiredStatusChecks { context }
      requiresApprovingReviews requiredApprovingReviewCount }`

// protectionRulePath reports whether a GraphQL error's path is in a base's
// branchProtectionRule (["repository", "b0", "branchProtectionRule", …]):
// GitHub refusing to show one rule leaves it null, and the caller reads
// that protection through REST.
func protectionRulePath(path []any) bool {
	if len(path) < 3 || path[0] != "repository" || path[2] != "branchProtectionRule" {
		return false
	}
	alias, ok := path[1].(string)
	if !ok || len(alias) < 2 || alias[0] != 'b' {
		return false
	}
	_, err := strconv.Atoi(alias[1:])
	return err == nil
}

// rollupPRFields is what the query selects of each pull request.
var rollupPRFields = fmt.Sprintf(`number headRefOid
      commits(last: 1) { totalCount nodes { commit { oid statusCheckRollup { contexts(first: %d) { totalCount nodes {
        __typename ... on CheckRun { name status conclusion detailsUrl } ... on StatusContext { context state targetUrl } } } } } } }
      comments(last: %d) { totalCount nodes { fullDatabaseId updatedAt } }
      reviews(last: %d) { totalCount nodes { comments(last: %d) { totalCount nodes { fullDatabaseId updatedAt } } } }`,
	rollupContexts, rollupComments, rollupReviews, rollupReviewComments)

// rollupQuery builds the query and its variables: every number and branch
// name is a variable, never text in the query. Of the bases in protected,
// it asks the branchProtectionRule too.
func rollupQuery(repo string, numbers []int, bases, protected []string) (string, map[string]any) {
	o, n := splitRepo(repo)
	vars := map[string]any{"owner": o, "name": n}
	var params, body strings.Builder
	params.WriteString("$owner: String!, $name: String!")
	for i, b := range bases {
		prot := ""
		if slices.Contains(protected, b) {
			prot = "\n      " + rollupProtectionFields
		}
		fmt.Fprintf(&params, ", $b%d: String!", i)
		fmt.Fprintf(&body, "    b%d: ref(qualifiedName: $b%d) { target { oid } rules(first: %d) { totalCount nodes { type parameters {\n"+
			"      __typename ... on RequiredStatusChecksParameters { requiredStatusChecks { context } }\n"+
			"      ... on PullRequestParameters { requiredApprovingReviewCount } } } }%s }\n", i, i, rollupRules, prot)
		vars[fmt.Sprintf("b%d", i)] = "refs/heads/" + b
	}
	for i, num := range numbers {
		fmt.Fprintf(&params, ", $n%d: Int!", i)
		fmt.Fprintf(&body, "    p%d: pullRequest(number: $n%d) { %s }\n", i, i, rollupPRFields)
		vars[fmt.Sprintf("n%d", i)] = num
	}
	return fmt.Sprintf("query(%s) {\n  repository(owner: $owner, name: $name) {\n%s  }\n}", params.String(), body.String()), vars
}

// postGraphQL posts one query and returns the answer's data, the errors it
// carries as a *GraphQLError, but for errors whose path tolerate accepts
// (nil accepts none): their fields are null in the data, which is kept.
func (g *Client) postGraphQL(ctx context.Context, op, query string, vars map[string]any, tolerate func(path []any) bool) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req, err := g.c.NewRequest(http.MethodPost, graphQLURL(g.c.BaseURL.String()), json.RawMessage(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var buf bytes.Buffer
	if _, err := g.c.Do(ctx, req, &buf); err != nil {
		return nil, classify(op, err)
	}
	if buf.Len() > rollupMaxBody {
		return nil, fmt.Errorf("%s: the answer is over %d bytes", op, rollupMaxBody)
	}
	var ans struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type       string            `json:"type"`
			Message    string            `json:"message"`
			Path       []any             `json:"path"`
			Locations  []json.RawMessage `json:"locations"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(io.LimitReader(&buf, rollupMaxBody)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("%s: read the answer: %w", op, err)
	}
	for _, e := range ans.Errors {
		if tolerate != nil && tolerate(e.Path) && ans.Data != nil {
			continue
		}
		return nil, &GraphQLError{Op: op, Type: e.Type, Message: quoteBounded(e.Message), Query: len(e.Locations) > 0 || e.Extensions.Code != ""}
	}
	return ans.Data, nil
}

// quoteBounded quotes text GitHub sent, cut to 200 bytes.
func quoteBounded(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

// The answer's shapes, decoded strictly (no field the query did not ask
// for, every one it asked for present).
type (
	rollupConn[T any] struct {
		TotalCount *int `json:"totalCount"`
		Nodes      []*T `json:"nodes"`
	}
	rollupContext struct {
		Typename   string  `json:"__typename"`
		Name       *string `json:"name"`
		Status     *string `json:"status"`
		Conclusion *string `json:"conclusion"`
		DetailsURL *string `json:"detailsUrl"`
		Context    *string `json:"context"`
		State      *string `json:"state"`
		TargetURL  *string `json:"targetUrl"`
	}
	rollupCommit struct {
		Commit *struct {
			Oid               string `json:"oid"`
			StatusCheckRollup *struct {
				Contexts *rollupConn[rollupContext] `json:"contexts"`
			} `json:"statusCheckRollup"`
		} `json:"commit"`
	}
	rollupComment struct {
		FullDatabaseID *string `json:"fullDatabaseId"`
		UpdatedAt      *string `json:"updatedAt"`
	}
	rollupReview struct {
		Comments *rollupConn[rollupComment] `json:"comments"`
	}
	rollupPR struct {
		Number     *int                       `json:"number"`
		HeadRefOid string                     `json:"headRefOid"`
		Commits    *rollupConn[rollupCommit]  `json:"commits"`
		Comments   *rollupConn[rollupComment] `json:"comments"`
		Reviews    *rollupConn[rollupReview]  `json:"reviews"`
	}
	rollupRule struct {
		Type       string `json:"type"`
		Parameters *struct {
			Typename             string `json:"__typename"`
			RequiredStatusChecks *[]*struct {
				Context string `json:"context"`
			} `json:"requiredStatusChecks"`
			RequiredApprovingReviewCount *int `json:"requiredApprovingReviewCount"`
		} `json:"parameters"`
	}
	rollupProtection struct {
		Pattern                     string     `json:"pattern"`
		RequiresStatusChecks        *bool      `json:"requiresStatusChecks"`
		RequiredStatusCheckContexts *[]*string `json:"requiredStatusCheckContexts"`
		RequiredStatusChecks        *[]*struct {
			Context string `json:"context"`
		} `json:"requiredStatusChecks"`
		RequiresApprovingReviews     *bool `json:"requiresApprovingReviews"`
		RequiredApprovingReviewCount *int  `json:"requiredApprovingReviewCount"`
	}
	rollupRef struct {
		Target *struct {
			Oid string `json:"oid"`
		} `json:"target"`
		Rules *rollupConn[rollupRule] `json:"rules"`
		// BranchProtectionRule is nil when the answer has no such
		// field, "null" when it is null.
		BranchProtectionRule json.RawMessage `json:"branchProtectionRule"`
	}
)

var objectID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// ParseRollups reads the data of an answer to the rollup query for numbers
// and bases, with the branchProtectionRule of the bases in protected, as
// rollupQuery asked them. It never panics; an answer of any other shape is
// an error wrapping ErrRollupAnswer that says where.
func ParseRollups(data []byte, numbers []int, bases, protected []string) (Rollups, error) {
	bad := func(where, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrRollupAnswer, where, fmt.Sprintf(format, args...))
	}
	var top struct {
		Repository map[string]json.RawMessage `json:"repository"`
	}
	if err := strictDecode(data, &top); err != nil {
		return Rollups{}, bad("data", "%v", err)
	}
	if top.Repository == nil {
		return Rollups{}, bad("data.repository", "missing")
	}
	if want := len(numbers) + len(bases); len(top.Repository) != want {
		return Rollups{}, bad("data.repository", "%d fields, want %d", len(top.Repository), want)
	}
	out := Rollups{PullRequests: map[int]PullRequestRollup{}, BaseHeads: map[string]string{}, BaseRules: map[string][]string{},
		BaseApprovals: map[string]int{}, BaseProtection: map[string]Required{}}
	for i, b := range bases {
		where := fmt.Sprintf("data.repository.b%d", i)
		raw, ok := top.Repository[fmt.Sprintf("b%d", i)]
		if !ok {
			return Rollups{}, bad(where, "missing")
		}
		var ref *rollupRef
		if err := strictDecode(raw, &ref); err != nil {
			return Rollups{}, bad(where, "%v", err)
		}
		switch {
		case ref == nil:
			out.BaseHeads[b] = ""
		case ref.Target == nil || !objectID.MatchString(ref.Target.Oid):
			return Rollups{}, bad(where+".target.oid", "not an object id")
		default:
			out.BaseHeads[b] = ref.Target.Oid
			rules, approvals, complete, err := rulesOf(ref.Rules)
			if err != nil {
				return Rollups{}, bad(where+".rules", "%v", err)
			}
			if complete {
				out.BaseRules[b], out.BaseApprovals[b] = rules, approvals
			}
			asked := slices.Contains(protected, b)
			switch {
			case asked && ref.BranchProtectionRule == nil:
				return Rollups{}, bad(where+".branchProtectionRule", "missing")
			case !asked && ref.BranchProtectionRule != nil:
				return Rollups{}, bad(where+".branchProtectionRule", "not asked for")
			case asked:
				p, ok, err := protectionRuleOf(ref.BranchProtectionRule)
				if err != nil {
					return Rollups{}, bad(where+".branchProtectionRule", "%v", err)
				}
				if ok {
					out.BaseProtection[b] = p
				}
			}
		}
	}
	for i, num := range numbers {
		where := fmt.Sprintf("data.repository.p%d", i)
		raw, ok := top.Repository[fmt.Sprintf("p%d", i)]
		if !ok {
			return Rollups{}, bad(where, "missing")
		}
		var pr *rollupPR
		if err := strictDecode(raw, &pr); err != nil {
			return Rollups{}, bad(where, "%v", err)
		}
		if pr == nil {
			return Rollups{}, bad(where, "null")
		}
		r, err := rollupOf(pr, num, where)
		if err != nil {
			return Rollups{}, err
		}
		out.PullRequests[num] = r
	}
	return out, nil
}

// rollupOf checks one pull request's answer and converts it.
func rollupOf(pr *rollupPR, num int, where string) (PullRequestRollup, error) {
	bad := func(at, format string, args ...any) error {
		return fmt.Errorf("%w: %s%s: %s", ErrRollupAnswer, where, at, fmt.Sprintf(format, args...))
	}
	if pr.Number == nil || *pr.Number != num {
		return PullRequestRollup{}, bad(".number", "want %d", num)
	}
	if !objectID.MatchString(pr.HeadRefOid) {
		return PullRequestRollup{}, bad(".headRefOid", "not an object id")
	}
	out := PullRequestRollup{Number: num, HeadSHA: pr.HeadRefOid, ChecksComplete: true, CommentsComplete: true}
	if err := connOK(pr.Commits, 1); err != nil {
		return out, bad(".commits", "%v", err)
	}
	if len(pr.Commits.Nodes) == 1 {
		c := pr.Commits.Nodes[0].Commit
		if c == nil || !objectID.MatchString(c.Oid) {
			return out, bad(".commits.nodes[0].commit.oid", "not an object id")
		}
		out.ChecksSHA = c.Oid
		if c.StatusCheckRollup != nil {
			cs := c.StatusCheckRollup.Contexts
			if err := connOK(cs, rollupContexts); err != nil {
				return out, bad(".commits.nodes[0].commit.statusCheckRollup.contexts", "%v", err)
			}
			out.ChecksComplete = *cs.TotalCount == len(cs.Nodes)
			for j, x := range cs.Nodes {
				if err := addContext(&out.Checks, x); err != nil {
					return out, bad(fmt.Sprintf(".commits.nodes[0].commit.statusCheckRollup.contexts.nodes[%d]", j), "%v", err)
				}
			}
		}
	}
	var err error
	if out.IssueComments, err = commentsOf(pr.Comments, rollupComments, &out.CommentsComplete); err != nil {
		return out, bad(".comments", "%v", err)
	}
	if err := connOK(pr.Reviews, rollupReviews); err != nil {
		return out, bad(".reviews", "%v", err)
	}
	out.CommentsComplete = out.CommentsComplete && *pr.Reviews.TotalCount == len(pr.Reviews.Nodes)
	for j, rv := range pr.Reviews.Nodes {
		cs, err := commentsOf(rv.Comments, rollupReviewComments, &out.CommentsComplete)
		if err != nil {
			return out, bad(fmt.Sprintf(".reviews.nodes[%d].comments", j), "%v", err)
		}
		out.ReviewComments = append(out.ReviewComments, cs...)
	}
	return out, nil
}

// rulesOf reads the check names a base's rules require, in their order,
// each once, and the most approving reviews its pull_request rules
// require; complete is false when the rules did not fit the page.
func rulesOf(c *rollupConn[rollupRule]) (names []string, approvals int, complete bool, err error) {
	if err := connOK(c, rollupRules); err != nil {
		return nil, 0, false, err
	}
	for j, r := range c.Nodes {
		p := r.Parameters
		switch r.Type {
		case "":
			return nil, 0, false, fmt.Errorf("nodes[%d]: no type", j)
		case "PULL_REQUEST":
			if p == nil || p.Typename != "PullRequestParameters" || p.RequiredApprovingReviewCount == nil || p.RequiredStatusChecks != nil {
				return nil, 0, false, fmt.Errorf("nodes[%d]: a PULL_REQUEST rule without its review count", j)
			}
			if n := *p.RequiredApprovingReviewCount; n < 0 || n > maxApprovals {
				return nil, 0, false, fmt.Errorf("nodes[%d].parameters.requiredApprovingReviewCount: %d is not a review count", j, n)
			}
			approvals = max(approvals, *p.RequiredApprovingReviewCount)
		case "REQUIRED_STATUS_CHECKS":
			if p == nil || p.Typename != "RequiredStatusChecksParameters" || p.RequiredStatusChecks == nil || p.RequiredApprovingReviewCount != nil {
				return nil, 0, false, fmt.Errorf("nodes[%d]: a REQUIRED_STATUS_CHECKS rule without its checks", j)
			}
			for k, x := range *p.RequiredStatusChecks {
				if x == nil || x.Context == "" {
					return nil, 0, false, fmt.Errorf("nodes[%d].parameters.requiredStatusChecks[%d]: no context", j, k)
				}
				if !slices.Contains(names, x.Context) {
					names = append(names, x.Context)
				}
			}
		}
	}
	return names, approvals, *c.TotalCount == len(c.Nodes), nil
}

// maxApprovals bounds a review count read from GitHub, which allows at
// most 10 approving reviews to be required.
const maxApprovals = 10

// protectionRuleOf reads a base's branchProtectionRule as
// ProtectionRequirements reads the REST protection: ok is false when it
// is null.
func protectionRuleOf(raw json.RawMessage) (out Required, ok bool, err error) {
	var p *rollupProtection
	if err := strictDecode(raw, &p); err != nil {
		return Required{}, false, err
	}
	if p == nil {
		return Required{}, false, nil
	}
	switch {
	case p.Pattern == "":
		return Required{}, false, errors.New("no pattern")
	case p.RequiresStatusChecks == nil || p.RequiresApprovingReviews == nil:
		return Required{}, false, errors.New("requiresStatusChecks and requiresApprovingReviews are required")
	}
	if *p.RequiresStatusChecks {
		add := func(c string) {
			if c != "" && !slices.Contains(out.Protection, c) {
				out.Protection = append(out.Protection, c)
			}
		}
		if p.RequiredStatusCheckContexts != nil {
			for _, c := range *p.RequiredStatusCheckContexts {
				if c != nil {
					add(*c)
				}
			}
		}
		if p.RequiredStatusChecks != nil {
			for k, c := range *p.RequiredStatusChecks {
				if c == nil || c.Context == "" {
					return Required{}, false, fmt.Errorf("requiredStatusChecks[%d]: no context", k)
				}
				add(c.Context)
			}
		}
	}
	if *p.RequiresApprovingReviews {
		switch n := p.RequiredApprovingReviewCount; {
		case n == nil:
			return Required{}, false, errors.New("requiresApprovingReviews without requiredApprovingReviewCount")
		case *n < 0 || *n > maxApprovals:
			return Required{}, false, fmt.Errorf("requiredApprovingReviewCount: %d is not a review count", *n)
		default:
			out.Approvals = *n
		}
	}
	out.Checks = slices.Clone(out.Protection)
	return out, true, nil
}

// connOK checks a connection's page: present, counted, no more nodes than
// the page asked for nor than it counts, none null.
func connOK[T any](c *rollupConn[T], page int) error {
	switch {
	case c == nil:
		return errors.New("missing")
	case c.TotalCount == nil || *c.TotalCount < 0:
		return errors.New("no totalCount")
	case len(c.Nodes) > page || len(c.Nodes) > *c.TotalCount:
		return fmt.Errorf("%d nodes of %d, asked for at most %d", len(c.Nodes), *c.TotalCount, page)
	case slices.Contains(c.Nodes, nil):
		return errors.New("a null node")
	}
	return nil
}

// commentsOf converts a page of comments; a page short of its total makes
// complete false.
func commentsOf(c *rollupConn[rollupComment], page int, complete *bool) ([]Comment, error) {
	if err := connOK(c, page); err != nil {
		return nil, err
	}
	*complete = *complete && *c.TotalCount == len(c.Nodes)
	var out []Comment
	for j, x := range c.Nodes {
		if x.FullDatabaseID == nil || x.UpdatedAt == nil {
			return nil, fmt.Errorf("nodes[%d]: fullDatabaseId and updatedAt are required", j)
		}
		id, err := strconv.ParseInt(*x.FullDatabaseID, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("nodes[%d].fullDatabaseId: %q is not an id", j, *x.FullDatabaseID)
		}
		at, err := time.Parse(time.RFC3339, *x.UpdatedAt)
		if err != nil {
			return nil, fmt.Errorf("nodes[%d].updatedAt: %w", j, err)
		}
		out = append(out, Comment{ID: id, UpdatedAt: at.UTC()})
	}
	return out, nil
}

// The enum values GitHub documents, as REST spells them.
var (
	rollupCheckStatus = map[string]gatekeep.CheckStatus{"COMPLETED": "completed", "IN_PROGRESS": "in_progress", "PENDING": "pending",
		"QUEUED": "queued", "REQUESTED": "requested", "WAITING": "waiting"}
	rollupConclusion = map[string]gatekeep.CheckConclusion{"ACTION_REQUIRED": "action_required", "CANCELLED": "cancelled", "FAILURE": "failure",
		"NEUTRAL": "neutral", "SKIPPED": "skipped", "STALE": "stale", "STARTUP_FAILURE": "startup_failure", "SUCCESS": "success", "TIMED_OUT": "timed_out"}
	rollupStatusState = map[string]gatekeep.StatusState{"ERROR": "error", "EXPECTED": "expected", "FAILURE": "failure", "PENDING": "pending", "SUCCESS": "success"}
)

// addContext converts one rollup context into a check run or a status.
func addContext(ch *Checks, x *rollupContext) error {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch x.Typename {
	case "CheckRun":
		if x.Context != nil || x.State != nil || x.TargetURL != nil {
			return errors.New("a CheckRun with StatusContext fields")
		}
		if x.Name == nil || *x.Name == "" {
			return errors.New("a CheckRun without a name")
		}
		st, ok := rollupCheckStatus[str(x.Status)]
		if !ok {
			return fmt.Errorf("check run status %s", quoteBounded(str(x.Status)))
		}
		var c gatekeep.CheckConclusion
		if x.Conclusion != nil {
			if c, ok = rollupConclusion[*x.Conclusion]; !ok {
				return fmt.Errorf("check run conclusion %s", quoteBounded(*x.Conclusion))
			}
		}
		ch.Runs = append(ch.Runs, CheckRun{Name: *x.Name, Status: st, Conclusion: c, URL: str(x.DetailsURL)})
	case "StatusContext":
		if x.Name != nil || x.Status != nil || x.Conclusion != nil || x.DetailsURL != nil {
			return errors.New("a StatusContext with CheckRun fields")
		}
		if x.Context == nil || *x.Context == "" {
			return errors.New("a StatusContext without a context")
		}
		st, ok := rollupStatusState[str(x.State)]
		if !ok {
			return fmt.Errorf("status state %s", quoteBounded(str(x.State)))
		}
		ch.Statuses = append(ch.Statuses, Status{Context: *x.Context, State: st, URL: str(x.TargetURL)})
	default:
		return fmt.Errorf("__typename %s, want CheckRun or StatusContext", quoteBounded(x.Typename))
	}
	return nil
}

// strictDecode decodes one JSON value into v, refusing fields v does not
// name and anything after the value.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}
