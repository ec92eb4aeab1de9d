package reconcile

import (
	"context"
	"slices"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
)

// The quiet mark of a pull request ready or waiting for CI watches its
// head's checks and its comments every pass (quiet.go checksHold). Read
// through REST, that is four conditional requests per pull request. A
// pass instead asks, at its start, one GraphQL query per repository for
// every pull request whose mark watches them and that its repository's
// list shows unchanged (githubapi.PullRequestRollups), with the heads and
// ruleset rules of the repository's base branches; the pass then does not
// read those heads again through REST. The mark of a wait for approvals
// the base requires, which watches no checks, watches the base's
// requirements (quiet.go requiredHolds): its repository's query asks its
// base even when no pull request in it watches checks. A mark the answer confirms holds with no other
// request; one it does not confirm (no answer, GraphQL refused, a page
// too short to hold everything, or a difference) is read through REST as
// before, and REST decides: GraphQL only ever saves requests, it never
// decides alone that something changed or that nothing did where it could
// not see all of it (docs/reconcile.md, "Requests to GitHub").

// rollupRead is one repository's rollup answer for the pass.
type rollupRead struct {
	r   githubapi.Rollups
	err error
}

// watched is a pull request whose mark the rollup query is asked about.
type watched struct {
	repo   string
	number int
	base   string
}

// watchedPulls returns, per repository, the pull requests of entries whose
// quiet mark watches their checks, is still fresh at now and still
// matches the repository's list (any other is read in full anyway), and
// the bases of the repository's reviewed entries. A repository whose
// fresh marks watch only what their bases require (quietMark.Required)
// is listed with no pull request: its query asks the bases alone, their
// heads and rules, in place of the base-head reads (requiredHolds).
func (o *observer) watchedPulls(ctx context.Context, entries []*entry, now time.Time) (map[string][]int, map[string][]string) {
	numbers, bases := map[string][]int{}, map[string][]string{}
	var reviewed []watched
	for _, e := range entries {
		if e.l == nil || e.spec == nil || e.leg != nil {
			continue
		}
		pr, ok := prOf(e.l)
		if ph := e.l.Phase(); !ok || ph != ledger.PhaseReview && ph != ledger.PhaseReady {
			continue
		}
		reviewed = append(reviewed, watched{pr.Repo, pr.Number, e.spec.Base})
		m, ok := readMark(o, pr.Repo, pr.Number)
		if !ok || m.Checks == "" && m.Required == "" || m.Head != e.l.Delivery.Head || m.Base != e.spec.Base ||
			!now.Before(m.Seen.Add(quietRefresh)) || now.Before(m.Seen) || !m.Until.IsZero() && !now.Before(m.Until) {
			continue
		}
		prs, err := o.pulls(ctx, pr.Repo)
		live, listed := prs[pr.Number]
		if err != nil || !listed || !live.UpdatedAt.Equal(m.UpdatedAt) || live.HeadSHA != m.Head || live.State != gatekeep.PROpen {
			continue
		}
		if m.Checks == "" {
			if _, asked := numbers[pr.Repo]; !asked {
				numbers[pr.Repo] = nil
			}
			continue
		}
		numbers[pr.Repo] = append(numbers[pr.Repo], pr.Number)
	}
	for _, w := range reviewed {
		if _, ok := numbers[w.repo]; ok && !slices.Contains(bases[w.repo], w.base) {
			bases[w.repo] = append(bases[w.repo], w.base)
		}
	}
	return numbers, bases
}

// prefetchRollups asks the rollup query of every repository with watched
// pull requests, at most width at a time, and answers the pass's reads of
// those repositories' base heads from it.
func (o *observer) prefetchRollups(ctx context.Context, entries []*entry, now time.Time, width int) {
	numbers, bases := o.watchedPulls(ctx, entries, now)
	repos := make([]string, 0, len(numbers))
	for repo := range numbers {
		repos = append(repos, repo)
	}
	slices.Sort(repos)
	eachBounded(repos, width, func(repo string) {
		r, err := o.PullRequestRollups(ctx, repo, numbers[repo], bases[repo], o.config)
		o.mu.Lock()
		defer o.mu.Unlock()
		o.rollups[repo] = &rollupRead{r: r, err: err}
		if err != nil {
			return
		}
		for base, head := range r.BaseHeads {
			if _, seen := o.bases[repo+" "+base]; !seen {
				o.bases[repo+" "+base] = baseHead{sha: head, ok: head != ""}
			}
		}
	})
}

// rollupHolds reports whether the repository's rollup answer confirms
// that the CI evidence and the comments a mark recorded are what GitHub
// reports now: it read the mark's head, all of its checks, all of its
// comments and its base's rules (required checks and approving reviews),
// and they hash as the mark's, with what the base's classic protection
// requires now. GitHub shows classic protection to administrators only,
// and does not document GraphQL's branchProtectionRule for other tokens,
// whose null would read as "unprotected". So the query asks that rule
// only of a base whose protection the token last read through REST with
// a 200 (githubapi.PullRequestRollups), and a rule it answered is the
// pass's protection for this comparison; any other base's protection
// (never read, remembered 404, the rule answered null or refused) is read
// through REST once per base that same pass: a conditional read, a free
// 304 while it is unchanged, and nothing at all while its 404 is
// remembered (required.go). A protection change is so seen at the next
// pass either way; a mark it breaks is read in full, through REST.
func (o *observer) rollupHolds(ctx context.Context, repo string, e *entry, m quietMark) bool {
	pr, ok := prOf(e.l)
	if !ok {
		return false
	}
	o.mu.Lock()
	rr := o.rollups[repo]
	o.mu.Unlock()
	if rr == nil || rr.err != nil {
		return false
	}
	r, ok := rr.r.PullRequests[pr.Number]
	if !ok || r.HeadSHA != m.Head || r.ChecksSHA != m.Head || !r.ChecksComplete || !r.CommentsComplete {
		return false
	}
	req, ok := o.rollupRequired(ctx, repo, m.Base)
	if !ok {
		return false
	}
	ch := r.Checks
	ch.Required = req.Checks
	if checksSum(checksOf(ch), req.Checks, req.Approvals) != m.Checks {
		return false
	}
	since := gatekeep.Since(e.l.Delivery.Since).FetchFrom()
	var ids []string
	for _, inline := range []bool{false, true} {
		cs := r.IssueComments
		if inline {
			cs = r.ReviewComments
		}
		for _, c := range cs {
			if !c.UpdatedAt.Before(since) {
				ids = append(ids, commentID(inline, c.ID, c.UpdatedAt))
			}
		}
	}
	return feedbackSum(ids) == m.Feedback
}

// rollupRequired returns what base requires in repo as the pass's rollup
// answer for repo read it: its rules, with the classic protection the
// answer holds or, for a base whose rule it did not ask or answer, the
// protection read through REST (rollupHolds). ok is false when the
// repository has no answer or the answer did not read base's rules.
func (o *observer) rollupRequired(ctx context.Context, repo, base string) (req githubapi.Required, ok bool) {
	o.mu.Lock()
	rr := o.rollups[repo]
	o.mu.Unlock()
	if rr == nil || rr.err != nil {
		return req, false
	}
	rules, ok := rr.r.BaseRules[base]
	if !ok {
		return req, false
	}
	prot, ok := rr.r.BaseProtection[base]
	if !ok {
		p, err := o.protection(ctx, repo, base)
		if err != nil {
			return req, false
		}
		prot = p
	}
	return githubapi.MergeRequired(githubapi.Required{Checks: rules, Approvals: rr.r.BaseApprovals[base]}, prot), true
}
