package ghstandin

import (
	"context"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	graphqlgo "github.com/graph-gophers/graphql-go"
)

// The resolvers of github.graphql's object types. An object is a copy of
// the stand-in's record taken under the lock when it was resolved, so its
// plain fields need no lock; fields computed from git or from other
// records (mergeability, reviews, checks) take the lock themselves.
// Methods are matched to fields by name, so each one is a field of the
// schema; graph-gophers checks at parse time that every field has one.

// gqlRoot resolves Query and Mutation.
type gqlRoot struct{}

// Viewer is the authenticated user.
func (gqlRoot) Viewer(cx context.Context) *gqlUser {
	q := reqOf(cx)
	return &gqlUser{q: q, login: q.login}
}

// Repository looks a repository up by owner and name, in any case.
func (gqlRoot) Repository(cx context.Context, args struct {
	Owner, Name   string
	FollowRenames bool
}) (*gqlRepo, error) {
	q := reqOf(cx)
	full := args.Owner + "/" + args.Name
	var out *gqlRepo
	q.view(full, func(c *ctx) {
		// A read brings background work and pull requests up to date,
		// and announces what that changed, as a REST read does.
		before := c.mark()
		c.runUpdates()
		c.sync()
		c.announce(before)
		out = &gqlRepo{q: q, full: c.full, r: c.repo}
	})
	if out == nil {
		return nil, &gqlError{"NOT_FOUND", "Could not resolve to a Repository with the name '" + full + "'."}
	}
	return out, nil
}

// Node resolves a global ID the stand-in hands out: PR_, PRR_, IC_, R_
// and U_ IDs.
func (gqlRoot) Node(cx context.Context, args struct{ ID graphqlgo.ID }) (*gqlNode, error) {
	q := reqOf(cx)
	id := string(args.ID)
	prefix, rest, _ := strings.Cut(id, "_")
	switch prefix {
	case "U":
		if rest != "" {
			return &gqlNode{&gqlUser{q: q, login: rest}}, nil
		}
	case "R":
		var r *gqlRepo
		q.view(rest, func(c *ctx) { r = &gqlRepo{q: q, full: c.full, r: c.repo} })
		if r != nil {
			return &gqlNode{r}, nil
		}
	case "PR":
		if p := q.pullByID(rest); p != nil {
			return &gqlNode{p}, nil
		}
	case "IC", "PRR":
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			break
		}
		if v := q.byID(prefix, n); v != nil {
			return &gqlNode{v}, nil
		}
	}
	return nil, notFoundNode(args.ID)
}

// pullByID finds the pull request whose database ID is id.
func (q *gqlReq) pullByID(id string) *gqlPull {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	q.s.mu.Lock()
	full := ""
	for name, r := range q.s.st.Repos {
		for _, p := range r.Pulls {
			if p.ID == n {
				full = name
			}
		}
	}
	q.s.mu.Unlock()
	if full == "" {
		return nil
	}
	var out *gqlPull
	q.view(full, func(c *ctx) {
		c.sync()
		for _, p := range c.repo.Pulls {
			if p.ID == n {
				out = newPull(q, c, p)
			}
		}
	})
	return out
}

// byID finds an issue comment (IC) or review (PRR) by database ID.
func (q *gqlReq) byID(prefix string, id int64) any {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	for full, r := range q.s.st.Repos {
		if prefix == "IC" {
			for _, ic := range r.Comments {
				if ic.ID == id {
					return q.comment(full, ic, r)
				}
			}
			continue
		}
		for _, rv := range r.Reviews {
			if rv.ID == id && (rv.State != "PENDING" || strings.EqualFold(rv.User, q.login)) {
				return &gqlReview{q: q, full: full, rv: *rv}
			}
		}
	}
	return nil
}

// gqlNode is the Node interface.
type gqlNode struct{ v any }

// ID is the node's global ID.
func (n *gqlNode) ID() graphqlgo.ID { return n.v.(interface{ ID() graphqlgo.ID }).ID() }

func nodeAs[T any](n *gqlNode) (T, bool) { v, ok := n.v.(T); return v, ok }

// ToUser and the other To methods resolve the node's concrete type.
func (n *gqlNode) ToUser() (*gqlUser, bool) { return nodeAs[*gqlUser](n) }

// ToRepository is the node as a Repository.
func (n *gqlNode) ToRepository() (*gqlRepo, bool) { return nodeAs[*gqlRepo](n) }

// ToRef is the node as a Ref.
func (n *gqlNode) ToRef() (*gqlRef, bool) { return nodeAs[*gqlRef](n) }

// ToPullRequest is the node as a PullRequest.
func (n *gqlNode) ToPullRequest() (*gqlPull, bool) { return nodeAs[*gqlPull](n) }

// ToPullRequestCommit is the node as a PullRequestCommit.
func (n *gqlNode) ToPullRequestCommit() (*gqlPullCommit, bool) { return nodeAs[*gqlPullCommit](n) }

// ToCommit is the node as a Commit.
func (n *gqlNode) ToCommit() (*gqlCommit, bool) { return nodeAs[*gqlCommit](n) }

// ToStatusCheckRollup is the node as a StatusCheckRollup.
func (n *gqlNode) ToStatusCheckRollup() (*gqlRollup, bool) { return nodeAs[*gqlRollup](n) }

// ToStatusContext is the node as a StatusContext.
func (n *gqlNode) ToStatusContext() (*gqlStatus, bool) { return nodeAs[*gqlStatus](n) }

// ToCheckRun is the node as a CheckRun.
func (n *gqlNode) ToCheckRun() (*gqlCheckRun, bool) { return nodeAs[*gqlCheckRun](n) }

// ToCheckSuite is the node as a CheckSuite.
func (n *gqlNode) ToCheckSuite() (*gqlCheckSuite, bool) { return nodeAs[*gqlCheckSuite](n) }

// ToWorkflowRun is the node as a WorkflowRun.
func (n *gqlNode) ToWorkflowRun() (*gqlWorkflowRun, bool) { return nodeAs[*gqlWorkflowRun](n) }

// ToWorkflow is the node as a Workflow.
func (n *gqlNode) ToWorkflow() (*gqlWorkflow, bool) { return nodeAs[*gqlWorkflow](n) }

// ToIssueComment is the node as an IssueComment.
func (n *gqlNode) ToIssueComment() (*gqlComment, bool) { return nodeAs[*gqlComment](n) }

// ToLabel is the node as a Label.
func (n *gqlNode) ToLabel() (*gqlLabel, bool) { return nodeAs[*gqlLabel](n) }

// ToPullRequestReview is the node as a PullRequestReview.
func (n *gqlNode) ToPullRequestReview() (*gqlReview, bool) { return nodeAs[*gqlReview](n) }

// ToRepositoryRule is the node as a RepositoryRule.
func (n *gqlNode) ToRepositoryRule() (*gqlRule, bool) { return nodeAs[*gqlRule](n) }

// ToBranchProtectionRule is the node as a BranchProtectionRule.
func (n *gqlNode) ToBranchProtectionRule() (*gqlProtectionRule, bool) {
	return nodeAs[*gqlProtectionRule](n)
}

// ToPullRequestReviewComment is the node as a PullRequestReviewComment.
func (n *gqlNode) ToPullRequestReviewComment() (*gqlReviewComment, bool) {
	return nodeAs[*gqlReviewComment](n)
}

// gqlConn is a connection: one page of nodes and the total.
type gqlConn[T any] struct {
	nodes []T
	page  *gqlPageInfo
	total int
}

func connOf[T any](cx context.Context, name string, all []T, a pageArgs) (*gqlConn[T], error) {
	p, err := window(cx, name, len(all), a)
	if err != nil {
		return nil, err
	}
	return &gqlConn[T]{nodes: all[p.start:p.end], page: p, total: len(all)}, nil
}

// Nodes is the page.
func (c *gqlConn[T]) Nodes() *[]T { return &c.nodes }

// PageInfo locates the page.
func (c *gqlConn[T]) PageInfo() *gqlPageInfo { return c.page }

// TotalCount counts every node, not the page.
func (c *gqlConn[T]) TotalCount() int32 { return int32(c.total) }

// gqlUser is a User, the Actor and RepositoryOwner of everything.
type gqlUser struct {
	q     *gqlReq
	login string
}

func (q *gqlReq) user(login string) *gqlUser {
	if login == "" {
		return nil
	}
	return &gqlUser{q: q, login: login}
}

// AvatarURL is the user's avatar, as REST shows it.
func (u *gqlUser) AvatarURL(args struct{ Size *int32 }) gqlText {
	return gqlText(u.q.s.URL() + "/avatars/" + u.login)
}

// DatabaseID is the REST id.
func (u *gqlUser) DatabaseID() *int32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(u.login))
	id := int32(h.Sum64()%90000000) + 1000000
	return &id
}

// ID is REST's node_id.
func (u *gqlUser) ID() graphqlgo.ID { return graphqlgo.ID("U_" + u.login) }

// Login is the login.
func (u *gqlUser) Login() string { return u.login }

// Name is null: the stand-in's users have none.
func (u *gqlUser) Name() *string { return nil }

// ResourcePath is the user's page, relative.
func (u *gqlUser) ResourcePath() gqlText { return gqlText("/" + u.login) }

// URL is the user's page.
func (u *gqlUser) URL() gqlText { return gqlText(u.q.s.URL() + "/" + u.login) }

// ToUser makes a user an Actor and a RepositoryOwner.
func (u *gqlUser) ToUser() (*gqlUser, bool) { return u, true }

// gqlRepo is a Repository.
type gqlRepo struct {
	q    *gqlReq
	full string
	r    *repo // read under the lock
}

// DatabaseID is the REST id.
func (r *gqlRepo) DatabaseID() *int32 { id := int32(r.r.ID); return &id }

// DefaultBranchRef is the default branch.
func (r *gqlRepo) DefaultBranchRef() *gqlRef {
	if ref := r.Ref(struct{ QualifiedName string }{"refs/heads/" + r.r.DefaultBranch}); ref != nil {
		return ref
	}
	return &gqlRef{id: "REF_" + r.full + ":" + r.r.DefaultBranch, name: r.r.DefaultBranch}
}

// ID is REST's node_id.
func (r *gqlRepo) ID() graphqlgo.ID { return graphqlgo.ID("R_" + r.full) }

// IsFork reports a fork.
func (r *gqlRepo) IsFork() bool { return r.r.Parent != "" }

// IsPrivate is false: the stand-in's repositories are public.
func (r *gqlRepo) IsPrivate() bool { return false }

// MergeCommitAllowed is true, as REST's allow_merge_commit.
func (r *gqlRepo) MergeCommitAllowed() bool { return true }

// RebaseMergeAllowed is false: the stand-in refuses rebase merges
// (fidelity.go's mergeRefusal), so gh does not offer one.
func (r *gqlRepo) RebaseMergeAllowed() bool { return false }

// SquashMergeAllowed is true, as REST's allow_squash_merge.
func (r *gqlRepo) SquashMergeAllowed() bool { return true }

// Name is the repository's name.
func (r *gqlRepo) Name() string { return r.r.Name }

// NameWithOwner is owner/name.
func (r *gqlRepo) NameWithOwner() string { return r.full }

// Owner is the owning user.
func (r *gqlRepo) Owner() *gqlUser { return r.q.user(r.r.Owner) }

// Parent is the repository a fork was made from.
func (r *gqlRepo) Parent() *gqlRepo {
	if r.r.Parent == "" {
		return nil
	}
	var out *gqlRepo
	r.q.view(r.r.Parent, func(c *ctx) { out = &gqlRepo{q: r.q, full: c.full, r: c.repo} })
	return out
}

// URL is the repository's page.
func (r *gqlRepo) URL() gqlText { return gqlText(r.q.s.URL() + "/" + r.full) }

// ViewerPermission is the caller's role.
func (r *gqlRepo) ViewerPermission() *string {
	var p string
	r.q.view(r.full, func(c *ctx) { p = strings.ToUpper(c.s.roleOf(c.repo, r.q.login)) })
	return &p
}

// PullRequest is the pull request with that number.
func (r *gqlRepo) PullRequest(args struct{ Number int32 }) (*gqlPull, error) {
	var out *gqlPull
	r.q.view(r.full, func(c *ctx) {
		for _, p := range c.repo.Pulls {
			if p.Number == int(args.Number) {
				out = newPull(r.q, c, p)
			}
		}
	})
	if out == nil {
		return nil, &gqlError{"NOT_FOUND", "Could not resolve to a PullRequest with the number of " + strconv.Itoa(int(args.Number)) + "."}
	}
	return out, nil
}

// PullRequests lists pull requests with GitHub's filters and order
// (ascending by creation unless orderBy says otherwise).
func (r *gqlRepo) PullRequests(cx context.Context, args struct {
	After, Before            *string
	First, Last              *int32
	BaseRefName, HeadRefName *string
	Labels                   *[]string
	OrderBy                  *struct{ Direction, Field string }
	States                   *[]string
}) (*gqlConn[*gqlPull], error) {
	var all []*gqlPull
	r.q.view(r.full, func(c *ctx) {
		for _, p := range c.repo.Pulls {
			if args.States != nil && !slices.Contains(*args.States, pullState(p)) ||
				args.BaseRefName != nil && p.Base != *args.BaseRefName ||
				args.HeadRefName != nil && p.Head != *args.HeadRefName ||
				args.Labels != nil && !c.hasAnyLabel(p, *args.Labels) {
				continue
			}
			all = append(all, newPull(r.q, c, p))
		}
	})
	if o := args.OrderBy; o != nil {
		key := func(p *gqlPull) int64 {
			switch o.Field {
			case "UPDATED_AT":
				return p.p.UpdatedAt.Unix()
			case "COMMENTS":
				return int64(p.comments)
			}
			return p.p.CreatedAt.Unix()*1e6 + int64(p.p.Number)
		}
		sort.SliceStable(all, func(i, j int) bool {
			if o.Direction == "DESC" {
				return key(all[i]) > key(all[j])
			}
			return key(all[i]) < key(all[j])
		})
	}
	return connOf(cx, "pullRequests", all, pageArgs{First: args.First, Last: args.Last, After: args.After, Before: args.Before})
}

func (c *ctx) hasAnyLabel(p *pull, names []string) bool {
	for _, l := range c.repo.Labels[strconv.Itoa(p.Number)] {
		for _, n := range names {
			if strings.EqualFold(l, n) {
				return true
			}
		}
	}
	return false
}

func pullState(p *pull) string {
	switch {
	case p.Merged:
		return "MERGED"
	case p.State == "closed":
		return "CLOSED"
	}
	return "OPEN"
}

// Ref is the branch a qualified name (refs/heads/<branch>) names, with
// its head as target; null when there is no such branch.
func (r *gqlRepo) Ref(args struct{ QualifiedName string }) *gqlRef {
	name, ok := strings.CutPrefix(args.QualifiedName, "refs/heads/")
	if !ok || name == "" {
		return nil
	}
	var out *gqlRef
	r.q.view(r.full, func(c *ctx) {
		heads, err := c.git.branches()
		if sha, found := heads[name]; err == nil && found {
			out = &gqlRef{id: "REF_" + c.full + ":" + name, name: name, full: c.full, sha: sha, q: r.q}
		}
	})
	return out
}

// gqlRef is a Ref (a branch); sha is its head, "" when the branch does
// not exist (a default branch not pushed yet).
type gqlRef struct {
	id, name string
	full     string
	sha      string
	q        *gqlReq
}

// Target is the branch's head commit; null when the ref was not resolved
// with its head.
func (r *gqlRef) Target() *gqlGitObject {
	if r.sha == "" {
		return nil
	}
	return &gqlGitObject{&gqlCommit{q: r.q, full: r.full, sha: r.sha}}
}

// Rules are the ruleset rules that apply to the branch, as REST's
// GET /repos/{o}/{r}/rules/branches/{branch} lists them (branchRules):
// classic branch protection is not a rule.
func (r *gqlRef) Rules(cx context.Context, a pageArgs) (*gqlConn[*gqlRule], error) {
	var all []*gqlRule
	r.q.view(r.full, func(c *ctx) {
		p := c.repo.Protection[r.name]
		if p == nil || !p.Ruleset {
			return
		}
		rule := func(typ string, params *gqlRuleParams) {
			all = append(all, &gqlRule{id: "RRU_" + c.full + ":" + r.name + ":" + typ, typ: typ, params: params})
		}
		if !p.AllowForcePushes {
			rule("DELETION", nil)
			rule("NON_FAST_FORWARD", nil)
		}
		if p.RequiredReviews > 0 {
			rule("PULL_REQUEST", &gqlRuleParams{reviews: &gqlPullRequestParams{n: p.RequiredReviews}})
		}
		if len(p.RequiredContexts) > 0 {
			rule("REQUIRED_STATUS_CHECKS", &gqlRuleParams{checks: &gqlChecksParams{contexts: slices.Clone(p.RequiredContexts), strict: p.Strict}})
		}
	})
	return connOf(cx, "rules", all, a)
}

// BranchProtectionRule is the branch's classic protection, with the
// visibility REST's GET /repos/{o}/{r}/branches/{b}/protection gives it
// (branchProtection): an administrator sees it, anyone else null, as if
// the branch were unprotected; a ruleset is not classic protection.
// GitHub does not document what a token that may not administer the
// repository sees; the stand-in's null is the answer gallivant must not
// read as "unprotected" (docs/reconcile.md).
func (r *gqlRef) BranchProtectionRule() *gqlProtectionRule {
	var out *gqlProtectionRule
	r.q.view(r.full, func(c *ctx) {
		p := c.repo.Protection[r.name]
		if p == nil || p.Ruleset || c.s.roleOf(c.repo, c.login) != RoleAdmin {
			return
		}
		out = &gqlProtectionRule{id: "BPR_" + c.full + ":" + r.name, pattern: r.name, p: *p}
		out.p.RequiredContexts = slices.Clone(p.RequiredContexts)
	})
	return out
}

// gqlProtectionRule is a BranchProtectionRule: the stand-in's classic
// protection of one branch, whose pattern is the branch's name.
type gqlProtectionRule struct {
	id, pattern string
	p           Protection
}

// ID is the rule's global ID.
func (b *gqlProtectionRule) ID() graphqlgo.ID { return graphqlgo.ID(b.id) }

// Pattern is the branch name the rule protects.
func (b *gqlProtectionRule) Pattern() string { return b.pattern }

// RequiredApprovingReviewCount is how many approving reviews the rule
// requires; null when it requires none, as GitHub answers a rule without
// required reviews.
func (b *gqlProtectionRule) RequiredApprovingReviewCount() *int32 {
	if b.p.RequiredReviews == 0 {
		return nil
	}
	n := int32(b.p.RequiredReviews)
	return &n
}

// RequiredStatusCheckContexts are the contexts the rule requires.
func (b *gqlProtectionRule) RequiredStatusCheckContexts() *[]*string {
	out := make([]*string, 0, len(b.p.RequiredContexts))
	for _, c := range b.p.RequiredContexts {
		out = append(out, &c)
	}
	return &out
}

// RequiredStatusChecks are the checks the rule requires, from any app.
func (b *gqlProtectionRule) RequiredStatusChecks() *[]*gqlCheckDescription {
	out := make([]*gqlCheckDescription, 0, len(b.p.RequiredContexts))
	for _, c := range b.p.RequiredContexts {
		out = append(out, &gqlCheckDescription{c})
	}
	return &out
}

// RequiresApprovingReviews is whether the rule requires approving reviews.
func (b *gqlProtectionRule) RequiresApprovingReviews() bool { return b.p.RequiredReviews > 0 }

// RequiresStatusChecks is whether the rule requires status checks.
func (b *gqlProtectionRule) RequiresStatusChecks() bool { return len(b.p.RequiredContexts) > 0 }

// RequiresStrictStatusChecks is whether heads must contain the base.
func (b *gqlProtectionRule) RequiresStrictStatusChecks() bool { return b.p.Strict }

// gqlCheckDescription is a RequiredStatusCheckDescription.
type gqlCheckDescription struct{ context string }

// Context is the required context.
func (c *gqlCheckDescription) Context() string { return c.context }

// gqlRule is a RepositoryRule.
type gqlRule struct {
	id, typ string
	params  *gqlRuleParams
}

// ID is the rule's global ID.
func (r *gqlRule) ID() graphqlgo.ID { return graphqlgo.ID(r.id) }

// Type is the rule's type.
func (r *gqlRule) Type() string { return r.typ }

// Parameters are the rule's parameters; null for rules that take none.
func (r *gqlRule) Parameters() *gqlRuleParams { return r.params }

// gqlRuleParams is the RuleParameters union.
type gqlRuleParams struct {
	reviews *gqlPullRequestParams
	checks  *gqlChecksParams
}

// ToPullRequestParameters is the parameters of a pull_request rule.
func (p *gqlRuleParams) ToPullRequestParameters() (*gqlPullRequestParams, bool) {
	return p.reviews, p.reviews != nil
}

// ToRequiredStatusChecksParameters is the parameters of a
// required_status_checks rule.
func (p *gqlRuleParams) ToRequiredStatusChecksParameters() (*gqlChecksParams, bool) {
	return p.checks, p.checks != nil
}

// gqlPullRequestParams is PullRequestParameters.
type gqlPullRequestParams struct{ n int }

// DismissStaleReviewsOnPush is false, as the stand-in's rulesets have it.
func (p *gqlPullRequestParams) DismissStaleReviewsOnPush() bool { return false }

// RequireCodeOwnerReview is false.
func (p *gqlPullRequestParams) RequireCodeOwnerReview() bool { return false }

// RequireLastPushApproval is false.
func (p *gqlPullRequestParams) RequireLastPushApproval() bool { return false }

// RequiredApprovingReviewCount is how many approvals the rule requires.
func (p *gqlPullRequestParams) RequiredApprovingReviewCount() int32 { return int32(p.n) }

// RequiredReviewThreadResolution is false.
func (p *gqlPullRequestParams) RequiredReviewThreadResolution() bool { return false }

// gqlChecksParams is RequiredStatusChecksParameters.
type gqlChecksParams struct {
	contexts []string
	strict   bool
}

// RequiredStatusChecks are the contexts required.
func (p *gqlChecksParams) RequiredStatusChecks() []*gqlCheckConfig {
	out := make([]*gqlCheckConfig, 0, len(p.contexts))
	for _, c := range p.contexts {
		out = append(out, &gqlCheckConfig{c})
	}
	return out
}

// StrictRequiredStatusChecksPolicy is whether the head must be up to date.
func (p *gqlChecksParams) StrictRequiredStatusChecksPolicy() bool { return p.strict }

// gqlCheckConfig is a StatusCheckConfiguration.
type gqlCheckConfig struct{ context string }

// Context is the required context.
func (c *gqlCheckConfig) Context() string { return c.context }

// IntegrationID is null: the stand-in's rules take a check from any app.
func (c *gqlCheckConfig) IntegrationID() *int32 { return nil }

// gqlGitObject is the GitObject interface; the stand-in's are commits.
type gqlGitObject struct{ c *gqlCommit }

// ID is the object's global ID.
func (o *gqlGitObject) ID() graphqlgo.ID { return o.c.ID() }

// Oid is the object's SHA.
func (o *gqlGitObject) Oid() gqlText { return o.c.Oid() }

// ToCommit is the object as a Commit.
func (o *gqlGitObject) ToCommit() (*gqlCommit, bool) { return o.c, true }

// ID is the ref's global ID.
func (r *gqlRef) ID() graphqlgo.ID { return graphqlgo.ID(r.id) }

// Name is the branch name.
func (r *gqlRef) Name() string { return r.name }

// Prefix is refs/heads/.
func (r *gqlRef) Prefix() string { return "refs/heads/" }

// gqlPull is a PullRequest.
type gqlPull struct {
	q         *gqlReq
	full      string
	p         pull
	headOwner string
	comments  int
	merge     sync.Once
	mergeable *bool
	mstate    string
	stat      sync.Once
	add, del  int
	files     int
}

func newPull(q *gqlReq, c *ctx, p *pull) *gqlPull {
	g := &gqlPull{q: q, full: c.full, p: *p, headOwner: c.headOwner(p)}
	for _, ic := range c.repo.Comments {
		if ic.Number == p.Number {
			g.comments++
		}
	}
	return g
}

// mergeability is computed once per object: GitHub's first read after a
// push is UNKNOWN for every field that asks in the same query.
func (p *gqlPull) mergeability() (*bool, string) {
	p.merge.Do(func() {
		p.q.view(p.full, func(c *ctx) {
			for _, live := range c.repo.Pulls {
				if live.Number == p.p.Number {
					p.mergeable, p.mstate = c.mergeability(live)
				}
			}
		})
	})
	return p.mergeable, p.mstate
}

func (p *gqlPull) diffstat() {
	p.stat.Do(func() {
		p.q.view(p.full, func(c *ctx) {
			if mb, ok := c.git.mergeBase(p.p.BaseSHA, p.p.HeadSHA); ok {
				files, _ := c.git.diff(mb, p.p.HeadSHA)
				p.files = len(files)
				for _, f := range files {
					p.add += f.Additions
					p.del += f.Deletions
				}
			}
		})
	})
}

// Additions counts added lines.
func (p *gqlPull) Additions() int32 { p.diffstat(); return int32(p.add) }

// Deletions counts deleted lines.
func (p *gqlPull) Deletions() int32 { p.diffstat(); return int32(p.del) }

// ChangedFiles counts changed files.
func (p *gqlPull) ChangedFiles() int32 { p.diffstat(); return int32(p.files) }

// Author is the user who opened it.
func (p *gqlPull) Author() *gqlUser { return p.q.user(p.p.User) }

// BaseRefName is the base branch.
func (p *gqlPull) BaseRefName() string { return p.p.Base }

// BaseRefOid is the base branch's commit.
func (p *gqlPull) BaseRefOid() gqlText { return gqlText(p.p.BaseSHA) }

// Body is the description, "" when there is none.
func (p *gqlPull) Body() string { return p.p.Body }

// Closed reports a closed or merged pull request.
func (p *gqlPull) Closed() bool { return p.p.State != "open" }

// ClosedAt is when it closed.
func (p *gqlPull) ClosedAt() *gqlTime { return timePtr(p.p.ClosedAt) }

// CreatedAt is when it was opened.
func (p *gqlPull) CreatedAt() gqlTime { return timeOf(p.p.CreatedAt) }

// DatabaseID is the REST id.
func (p *gqlPull) DatabaseID() *int32 { id := int32(p.p.ID); return &id }

// HeadRefName is the head branch.
func (p *gqlPull) HeadRefName() string { return p.p.Head }

// HeadRefOid is the head commit.
func (p *gqlPull) HeadRefOid() gqlText { return gqlText(p.p.HeadSHA) }

// HeadRepository is the repository of the head: this one or a fork.
func (p *gqlPull) HeadRepository() *gqlRepo {
	full := p.full
	if p.p.HeadRepo != "" {
		full = p.p.HeadRepo
	}
	var out *gqlRepo
	p.q.view(full, func(c *ctx) { out = &gqlRepo{q: p.q, full: c.full, r: c.repo} })
	return out
}

// HeadRepositoryOwner is the head repository's owner.
func (p *gqlPull) HeadRepositoryOwner() *gqlUser { return p.q.user(p.headOwner) }

// ID is REST's node_id.
func (p *gqlPull) ID() graphqlgo.ID { return graphqlgo.ID("PR_" + strconv.FormatInt(p.p.ID, 10)) }

// IsCrossRepository reports a head in a fork.
func (p *gqlPull) IsCrossRepository() bool { return p.p.HeadRepo != "" }

// IsDraft reports a draft.
func (p *gqlPull) IsDraft() bool { return p.p.Draft }

// MaintainerCanModify is as asked at creation.
func (p *gqlPull) MaintainerCanModify() bool { return p.p.MaintainerCanModify }

// MergeCommit is the merge's commit once merged.
func (p *gqlPull) MergeCommit() *gqlCommit {
	if !p.p.Merged || p.p.MergeCommitSHA == "" {
		return nil
	}
	return &gqlCommit{q: p.q, full: p.full, sha: p.p.MergeCommitSHA}
}

// MergeStateStatus is REST's mergeable_state in GitHub's GraphQL spelling.
func (p *gqlPull) MergeStateStatus() string {
	_, st := p.mergeability()
	return strings.ToUpper(st)
}

// Mergeable is REST's mergeable as MERGEABLE, CONFLICTING or UNKNOWN.
func (p *gqlPull) Mergeable() string {
	ok, _ := p.mergeability()
	switch {
	case ok == nil:
		return "UNKNOWN"
	case *ok:
		return "MERGEABLE"
	}
	return "CONFLICTING"
}

// Merged reports a merged pull request.
func (p *gqlPull) Merged() bool { return p.p.Merged }

// MergedAt is when it merged.
func (p *gqlPull) MergedAt() *gqlTime { return timePtr(p.p.MergedAt) }

// MergedBy is who merged it.
func (p *gqlPull) MergedBy() *gqlUser { return p.q.user(p.p.MergedBy) }

// Number is the number.
func (p *gqlPull) Number() int32 { return int32(p.p.Number) }

// Repository is the base repository.
func (p *gqlPull) Repository() *gqlRepo {
	var out *gqlRepo
	p.q.view(p.full, func(c *ctx) { out = &gqlRepo{q: p.q, full: c.full, r: c.repo} })
	return out
}

// ReviewDecision is null unless the base's protection requires
// approvals; then APPROVED when they are there, CHANGES_REQUESTED when a
// reviewer asked for changes, REVIEW_REQUIRED otherwise — the reviews
// that make REST's mergeable_state blocked.
func (p *gqlPull) ReviewDecision() *string {
	var out *string
	p.q.view(p.full, func(c *ctx) {
		prot := c.repo.Protection[p.p.Base]
		if prot == nil || prot.RequiredReviews == 0 {
			return
		}
		d := "REVIEW_REQUIRED"
		switch msg := c.reviewsMissing(&p.p, prot); {
		case msg == "":
			d = "APPROVED"
		case strings.HasPrefix(msg, "Changes"):
			d = "CHANGES_REQUESTED"
		}
		out = &d
	})
	return out
}

// State is OPEN, CLOSED or MERGED.
func (p *gqlPull) State() string { return pullState(&p.p) }

// Title is the title.
func (p *gqlPull) Title() string { return p.p.Title }

// UpdatedAt is the last change.
func (p *gqlPull) UpdatedAt() gqlTime { return timeOf(p.p.UpdatedAt) }

// URL is the pull request's page.
func (p *gqlPull) URL() gqlText {
	return gqlText(p.q.s.URL() + "/" + p.full + "/pull/" + strconv.Itoa(p.p.Number))
}

// ViewerMergeHeadlineText is the merge commit's default title.
func (p *gqlPull) ViewerMergeHeadlineText(args struct{ MergeType *string }) string {
	if args.MergeType != nil && *args.MergeType == "SQUASH" {
		return p.p.Title + " (#" + strconv.Itoa(p.p.Number) + ")"
	}
	return "Merge pull request #" + strconv.Itoa(p.p.Number) + " from " + p.headOwner + "/" + p.p.Head
}

// ViewerMergeBodyText is the merge commit's default message body.
func (p *gqlPull) ViewerMergeBodyText(args struct{ MergeType *string }) string {
	if args.MergeType != nil && *args.MergeType == "SQUASH" {
		return p.p.Body
	}
	return p.p.Title
}

// Comments are the pull request's issue comments, oldest first.
func (p *gqlPull) Comments(cx context.Context, a pageArgs) (*gqlConn[*gqlComment], error) {
	var all []*gqlComment
	p.q.view(p.full, func(c *ctx) {
		for _, ic := range c.repo.Comments {
			if ic.Number == p.p.Number {
				all = append(all, p.q.comment(c.full, ic, c.repo))
			}
		}
	})
	return connOf(cx, "comments", all, a)
}

// Commits are the head's commits not in the base, oldest first.
func (p *gqlPull) Commits(cx context.Context, a pageArgs) (*gqlConn[*gqlPullCommit], error) {
	var all []*gqlPullCommit
	p.q.view(p.full, func(c *ctx) {
		cs, _ := c.git.commitsBetween(p.p.BaseSHA, p.p.HeadSHA)
		if len(cs) == 0 && p.p.Merged {
			// A merged pull request keeps its head commit.
			if ci, err := c.git.commit(p.p.HeadSHA); err == nil {
				cs = []commitInfo{ci}
			}
		}
		for _, ci := range cs {
			all = append(all, &gqlPullCommit{pr: p, commit: &gqlCommit{q: p.q, full: c.full, sha: ci.SHA, info: &ci}})
		}
	})
	return connOf(cx, "commits", all, a)
}

// Labels are the pull request's labels, as REST lists them.
func (p *gqlPull) Labels(cx context.Context, a pageArgs) (*gqlConn[*gqlLabel], error) {
	var all []*gqlLabel
	p.q.view(p.full, func(c *ctx) {
		for _, name := range c.repo.Labels[strconv.Itoa(p.p.Number)] {
			l := c.s.labelJSON(c.repo, name)
			all = append(all, &gqlLabel{l})
		}
	})
	return connOf(cx, "labels", all, a)
}

// gqlLabel is a Label.
type gqlLabel struct{ l labelJSON }

// Color is the label's colour, hex without #.
func (l *gqlLabel) Color() string { return l.l.Color }

// Description is the label's description.
func (l *gqlLabel) Description() *string { return l.l.Description }

// ID is REST's node_id.
func (l *gqlLabel) ID() graphqlgo.ID { return graphqlgo.ID(l.l.NodeID) }

// Name is the label's name.
func (l *gqlLabel) Name() string { return l.l.Name }

// LatestReviews is each reviewer's latest submitted review.
func (p *gqlPull) LatestReviews(cx context.Context, a pageArgs) (*gqlConn[*gqlReview], error) {
	var all []*gqlReview
	p.q.view(p.full, func(c *ctx) {
		at := map[string]int{}
		for _, rv := range c.repo.Reviews {
			if rv.Number != p.p.Number || rv.State == "PENDING" {
				continue
			}
			g := &gqlReview{q: p.q, full: c.full, rv: *rv}
			if i, ok := at[strings.ToLower(rv.User)]; ok {
				all[i] = g
				continue
			}
			at[strings.ToLower(rv.User)] = len(all)
			all = append(all, g)
		}
	})
	return connOf(cx, "latestReviews", all, a)
}

// Reviews are the pull request's reviews, oldest first; another user's
// pending review is not shown.
func (p *gqlPull) Reviews(cx context.Context, args struct {
	After, Before *string
	First, Last   *int32
	States        *[]string
}) (*gqlConn[*gqlReview], error) {
	var all []*gqlReview
	p.q.view(p.full, func(c *ctx) {
		for _, rv := range c.repo.Reviews {
			if rv.Number != p.p.Number || rv.State == "PENDING" && !strings.EqualFold(rv.User, p.q.login) ||
				args.States != nil && !slices.Contains(*args.States, rv.State) {
				continue
			}
			all = append(all, &gqlReview{q: p.q, full: c.full, rv: *rv})
		}
	})
	return connOf(cx, "reviews", all, pageArgs{First: args.First, Last: args.Last, After: args.After, Before: args.Before})
}

// gqlPullCommit is a PullRequestCommit.
type gqlPullCommit struct {
	pr     *gqlPull
	commit *gqlCommit
}

// Commit is the commit.
func (c *gqlPullCommit) Commit() *gqlCommit { return c.commit }

// ID is the commit's place in the pull request.
func (c *gqlPullCommit) ID() graphqlgo.ID {
	return graphqlgo.ID("PURC_" + strconv.FormatInt(c.pr.p.ID, 10) + "_" + c.commit.sha)
}

// gqlCommit is a Commit.
type gqlCommit struct {
	q    *gqlReq
	full string
	sha  string
	once sync.Once
	info *commitInfo
}

func (c *gqlCommit) load() commitInfo {
	c.once.Do(func() {
		if c.info != nil {
			return
		}
		c.q.view(c.full, func(x *ctx) {
			if ci, err := x.git.commit(c.sha); err == nil {
				c.info = &ci
			}
		})
		if c.info == nil {
			c.info = &commitInfo{SHA: c.sha}
		}
	})
	return *c.info
}

// CommittedDate is the committer's date.
func (c *gqlCommit) CommittedDate() gqlTime { return timeOf(c.load().CommitterDate) }

// ID is the commit's global ID.
func (c *gqlCommit) ID() graphqlgo.ID { return graphqlgo.ID("C_" + c.sha) }

// MessageHeadline is the message's first line.
func (c *gqlCommit) MessageHeadline() string {
	h, _, _ := strings.Cut(c.load().Message, "\n")
	return h
}

// MessageBody is the message after its first line.
func (c *gqlCommit) MessageBody() string {
	_, b, _ := strings.Cut(c.load().Message, "\n")
	return strings.TrimLeft(b, "\n")
}

// Oid is the SHA.
func (c *gqlCommit) Oid() gqlText { return gqlText(c.sha) }

// StatusCheckRollup is the commit's statuses and check runs together,
// null when it has neither: the newest status of each context (in any
// case) and the latest run of each check name.
func (c *gqlCommit) StatusCheckRollup() *gqlRollup {
	r := &gqlRollup{q: c.q, full: c.full, sha: c.sha}
	c.q.view(c.full, func(x *ctx) {
		seen := map[string]bool{}
		for i := len(x.repo.Statuses) - 1; i >= 0; i-- {
			st := x.repo.Statuses[i]
			if st.SHA != c.sha || seen[strings.ToLower(st.Context)] {
				continue
			}
			seen[strings.ToLower(st.Context)] = true
			r.contexts = append(r.contexts, &gqlRollupContext{st: &gqlStatus{q: c.q, full: c.full, st: *st}})
		}
		for _, cr := range x.runsOf(c.sha) {
			r.contexts = append(r.contexts, &gqlRollupContext{run: &gqlCheckRun{q: c.q, full: c.full, cr: *cr}})
		}
	})
	if len(r.contexts) == 0 {
		return nil
	}
	return r
}

// gqlRollup is a StatusCheckRollup.
type gqlRollup struct {
	q        *gqlReq
	full     string
	sha      string
	contexts []*gqlRollupContext
}

// Contexts are the statuses and check runs.
func (r *gqlRollup) Contexts(cx context.Context, a pageArgs) (*gqlConn[*gqlRollupContext], error) {
	return connOf(cx, "contexts", r.contexts, a)
}

// ID is the rollup's global ID.
func (r *gqlRollup) ID() graphqlgo.ID { return graphqlgo.ID("SCR_" + r.sha) }

// State is the worst of the contexts: FAILURE (or ERROR) over PENDING
// over SUCCESS.
func (r *gqlRollup) State() string {
	state := "SUCCESS"
	for _, x := range r.contexts {
		s := x.state()
		switch {
		case s == "FAILURE" || s == "ERROR":
			return s
		case s == "PENDING":
			state = s
		}
	}
	return state
}

// gqlRollupContext is the StatusCheckRollupContext union.
type gqlRollupContext struct {
	run *gqlCheckRun
	st  *gqlStatus
}

func (x *gqlRollupContext) state() string {
	if x.st != nil {
		return x.st.State()
	}
	switch {
	case x.run.cr.Status != "completed":
		return "PENDING"
	case x.run.cr.Conclusion == "success" || x.run.cr.Conclusion == "neutral" || x.run.cr.Conclusion == "skipped":
		return "SUCCESS"
	}
	return "FAILURE"
}

// ToCheckRun is the context as a CheckRun.
func (x *gqlRollupContext) ToCheckRun() (*gqlCheckRun, bool) { return x.run, x.run != nil }

// ToStatusContext is the context as a StatusContext.
func (x *gqlRollupContext) ToStatusContext() (*gqlStatus, bool) { return x.st, x.st != nil }

// requiredArgs name the pull request whose base's protection says whether
// a context is required.
type requiredArgs struct {
	PullRequestID     *graphqlgo.ID
	PullRequestNumber *int32
}

// isRequired reports name among the required checks of the base of the
// pull request args names, in any case as GitHub matches contexts.
func (q *gqlReq) isRequired(full, name string, a requiredArgs) (bool, error) {
	if a.PullRequestID == nil && a.PullRequestNumber == nil {
		return false, &gqlError{"UNPROCESSABLE", "Either pullRequestId or pullRequestNumber must be provided"}
	}
	found, required := false, false
	q.view(full, func(c *ctx) {
		for _, p := range c.repo.Pulls {
			if a.PullRequestID != nil && string(*a.PullRequestID) != "PR_"+strconv.FormatInt(p.ID, 10) ||
				a.PullRequestNumber != nil && int(*a.PullRequestNumber) != p.Number {
				continue
			}
			found = true
			if prot := c.repo.Protection[p.Base]; prot != nil {
				required = slices.ContainsFunc(prot.RequiredContexts, func(r string) bool { return strings.EqualFold(r, name) })
			}
		}
	})
	if !found {
		return false, &gqlError{"NOT_FOUND", "Could not resolve to a PullRequest in " + full + "."}
	}
	return required, nil
}

// gqlStatus is a StatusContext.
type gqlStatus struct {
	q    *gqlReq
	full string
	st   commitStatus
}

// Context is the status's context.
func (s *gqlStatus) Context() string { return s.st.Context }

// CreatedAt is when it was set.
func (s *gqlStatus) CreatedAt() gqlTime { return timeOf(s.st.CreatedAt) }

// Description is the status's description.
func (s *gqlStatus) Description() *string {
	if s.st.Description == "" {
		return nil
	}
	return &s.st.Description
}

// ID is REST's node_id.
func (s *gqlStatus) ID() graphqlgo.ID { return graphqlgo.ID("SC_" + strconv.FormatInt(s.st.ID, 10)) }

// IsRequired reports a required status check.
func (s *gqlStatus) IsRequired(a requiredArgs) (bool, error) {
	return s.q.isRequired(s.full, s.st.Context, a)
}

// State is the state, upper-cased.
func (s *gqlStatus) State() string { return strings.ToUpper(s.st.State) }

// TargetURL is the status's link.
func (s *gqlStatus) TargetURL() *gqlText { return textPtr(s.st.TargetURL) }

// gqlCheckRun is a CheckRun.
type gqlCheckRun struct {
	q    *gqlReq
	full string
	cr   checkRun
}

// CheckSuite is the run's suite; the stand-in's runs belong to no
// workflow run.
func (r *gqlCheckRun) CheckSuite() *gqlCheckSuite {
	return &gqlCheckSuite{id: "CS_" + strconv.FormatInt(r.cr.ID, 10)}
}

// CompletedAt is when it completed.
func (r *gqlCheckRun) CompletedAt() *gqlTime { return timePtr(r.cr.CompletedAt) }

// Conclusion is the conclusion, upper-cased, once completed.
func (r *gqlCheckRun) Conclusion() *string {
	if r.cr.Conclusion == "" {
		return nil
	}
	c := strings.ToUpper(r.cr.Conclusion)
	return &c
}

// DatabaseID is the REST id.
func (r *gqlCheckRun) DatabaseID() *int32 { id := int32(r.cr.ID); return &id }

// DetailsURL is the run's link.
func (r *gqlCheckRun) DetailsURL() *gqlText { return textPtr(r.cr.DetailsURL) }

// ID is REST's node_id.
func (r *gqlCheckRun) ID() graphqlgo.ID { return graphqlgo.ID("CR_" + strconv.FormatInt(r.cr.ID, 10)) }

// IsRequired reports a required check.
func (r *gqlCheckRun) IsRequired(a requiredArgs) (bool, error) {
	return r.q.isRequired(r.full, r.cr.Name, a)
}

// Name is the check's name.
func (r *gqlCheckRun) Name() string { return r.cr.Name }

// StartedAt is when it started.
func (r *gqlCheckRun) StartedAt() *gqlTime { return timePtr(&r.cr.StartedAt) }

// Status is the status, upper-cased.
func (r *gqlCheckRun) Status() string { return strings.ToUpper(r.cr.Status) }

// gqlCheckSuite is a CheckSuite.
type gqlCheckSuite struct{ id string }

// ID is the suite's global ID.
func (s *gqlCheckSuite) ID() graphqlgo.ID { return graphqlgo.ID(s.id) }

// WorkflowRun is null: check runs made through the API have none.
func (s *gqlCheckSuite) WorkflowRun() *gqlWorkflowRun { return nil }

// gqlWorkflowRun is a WorkflowRun.
type gqlWorkflowRun struct {
	id       string
	workflow *gqlWorkflow
}

// ID is the run's global ID.
func (w *gqlWorkflowRun) ID() graphqlgo.ID { return graphqlgo.ID(w.id) }

// Workflow is the run's workflow.
func (w *gqlWorkflowRun) Workflow() *gqlWorkflow { return w.workflow }

// gqlWorkflow is a Workflow.
type gqlWorkflow struct{ id, name string }

// ID is the workflow's global ID.
func (w *gqlWorkflow) ID() graphqlgo.ID { return graphqlgo.ID(w.id) }

// Name is the workflow's name.
func (w *gqlWorkflow) Name() string { return w.name }

// reactionGroups are GitHub's eight, in GitHub's order, with the REST
// content each stands for.
var reactionGroups = []struct{ content, rest string }{{"THUMBS_UP", "+1"}, {"THUMBS_DOWN", "-1"}, {"LAUGH", "laugh"},
	{"HOORAY", "hooray"}, {"CONFUSED", "confused"}, {"HEART", "heart"}, {"ROCKET", "rocket"}, {"EYES", "eyes"}}

// gqlComment is an IssueComment.
type gqlComment struct {
	q         *gqlReq
	full      string
	ic        issueComment
	reactions map[string]int
}

// comment snapshots an issue comment with its reactions. The caller
// holds s.mu.
func (q *gqlReq) comment(full string, ic *issueComment, r *repo) *gqlComment {
	g := &gqlComment{q: q, full: full, ic: *ic, reactions: map[string]int{}}
	for _, x := range r.Reactions {
		if x.CommentID == ic.ID {
			g.reactions[x.Content]++
		}
	}
	return g
}

// Author is who wrote it.
func (c *gqlComment) Author() *gqlUser { return c.q.user(c.ic.User) }

// AuthorAssociation is MEMBER, as REST's author_association.
func (c *gqlComment) AuthorAssociation() string { return "MEMBER" }

// Body is the text.
func (c *gqlComment) Body() string { return c.ic.Body }

// CreatedAt is when it was written.
func (c *gqlComment) CreatedAt() gqlTime { return timeOf(c.ic.CreatedAt) }

// DatabaseID is the REST id.
func (c *gqlComment) DatabaseID() *int32 { id := int32(c.ic.ID); return &id }

// FullDatabaseID is the REST id as a BigInt.
func (c *gqlComment) FullDatabaseID() *gqlBigInt { return &gqlBigInt{c.ic.ID} }

// ID is REST's node_id.
func (c *gqlComment) ID() graphqlgo.ID { return graphqlgo.ID("IC_" + strconv.FormatInt(c.ic.ID, 10)) }

// IncludesCreatedEdit reports a comment edited since it was written.
func (c *gqlComment) IncludesCreatedEdit() bool { return c.ic.UpdatedAt.After(c.ic.CreatedAt) }

// IsMinimized is false: the stand-in hides no comment.
func (c *gqlComment) IsMinimized() bool { return false }

// MinimizedReason is null.
func (c *gqlComment) MinimizedReason() *string { return nil }

// ReactionGroups count the comment's reactions by content.
func (c *gqlComment) ReactionGroups() *[]*gqlReactionGroup {
	out := make([]*gqlReactionGroup, 0, len(reactionGroups))
	for _, g := range reactionGroups {
		out = append(out, &gqlReactionGroup{content: g.content, n: c.reactions[g.rest]})
	}
	return &out
}

// UpdatedAt is the last edit.
func (c *gqlComment) UpdatedAt() gqlTime { return timeOf(c.ic.UpdatedAt) }

// URL is the comment's place on the pull request's page.
func (c *gqlComment) URL() gqlText {
	return gqlText(c.q.s.URL() + "/" + c.full + "/pull/" + strconv.Itoa(c.ic.Number) + "#issuecomment-" + strconv.FormatInt(c.ic.ID, 10))
}

// ViewerDidAuthor reports the caller's own comment.
func (c *gqlComment) ViewerDidAuthor() bool { return strings.EqualFold(c.ic.User, c.q.login) }

// gqlReactionGroup is a ReactionGroup.
type gqlReactionGroup struct {
	content string
	n       int
}

// Content is the emoji.
func (g *gqlReactionGroup) Content() string { return g.content }

// Users counts who reacted.
func (g *gqlReactionGroup) Users(a pageArgs) *gqlCount { return &gqlCount{g.n} }

// gqlCount is a connection read for its totalCount only.
type gqlCount struct{ n int }

// TotalCount is the count.
func (c *gqlCount) TotalCount() int32 { return int32(c.n) }

// gqlReview is a PullRequestReview.
type gqlReview struct {
	q    *gqlReq
	full string
	rv   review
}

// Author is the reviewer.
func (r *gqlReview) Author() *gqlUser { return r.q.user(r.rv.User) }

// AuthorAssociation is MEMBER, as REST's author_association.
func (r *gqlReview) AuthorAssociation() string { return "MEMBER" }

// Body is the review's text.
func (r *gqlReview) Body() string { return r.rv.Body }

// Comments are the review's inline comments, oldest first.
func (r *gqlReview) Comments(cx context.Context, a pageArgs) (*gqlConn[*gqlReviewComment], error) {
	var all []*gqlReviewComment
	r.q.view(r.full, func(c *ctx) {
		for _, rc := range c.repo.ReviewCmts {
			if rc.ReviewID == r.rv.ID && rc.Number == r.rv.Number {
				all = append(all, &gqlReviewComment{q: r.q, rc: *rc})
			}
		}
	})
	return connOf(cx, "comments", all, a)
}

// gqlReviewComment is a PullRequestReviewComment.
type gqlReviewComment struct {
	q  *gqlReq
	rc reviewComment
}

// Author is who wrote it.
func (c *gqlReviewComment) Author() *gqlUser { return c.q.user(c.rc.User) }

// Body is the text.
func (c *gqlReviewComment) Body() string { return c.rc.Body }

// DatabaseID is the REST id.
func (c *gqlReviewComment) DatabaseID() *int32 { id := int32(c.rc.ID); return &id }

// FullDatabaseID is the REST id as a BigInt.
func (c *gqlReviewComment) FullDatabaseID() *gqlBigInt { return &gqlBigInt{c.rc.ID} }

// ID is REST's node_id.
func (c *gqlReviewComment) ID() graphqlgo.ID {
	return graphqlgo.ID("PRRC_" + strconv.FormatInt(c.rc.ID, 10))
}

// Path is the file commented on.
func (c *gqlReviewComment) Path() string { return c.rc.Path }

// UpdatedAt is the last edit.
func (c *gqlReviewComment) UpdatedAt() gqlTime { return timeOf(c.rc.UpdatedAt) }

// Commit is the commit reviewed.
func (r *gqlReview) Commit() *gqlCommit {
	if r.rv.CommitID == "" {
		return nil
	}
	return &gqlCommit{q: r.q, full: r.full, sha: r.rv.CommitID}
}

// DatabaseID is the REST id.
func (r *gqlReview) DatabaseID() *int32 { id := int32(r.rv.ID); return &id }

// ID is REST's node_id.
func (r *gqlReview) ID() graphqlgo.ID { return graphqlgo.ID("PRR_" + strconv.FormatInt(r.rv.ID, 10)) }

// ReactionGroups are empty groups: the stand-in keeps no reactions on
// reviews.
func (r *gqlReview) ReactionGroups() *[]*gqlReactionGroup {
	out := make([]*gqlReactionGroup, 0, len(reactionGroups))
	for _, g := range reactionGroups {
		out = append(out, &gqlReactionGroup{content: g.content})
	}
	return &out
}

// State is the review's state.
func (r *gqlReview) State() string { return r.rv.State }

// SubmittedAt is when it was submitted; null while pending.
func (r *gqlReview) SubmittedAt() *gqlTime { return timePtr(r.rv.SubmittedAt) }

// URL is the review's place on the pull request's page.
func (r *gqlReview) URL() gqlText {
	return gqlText(r.q.s.URL() + "/" + r.full + "/pull/" + strconv.Itoa(r.rv.Number) + "#pullrequestreview-" + strconv.FormatInt(r.rv.ID, 10))
}
