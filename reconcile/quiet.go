package reconcile

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Delivery entries are observed per repository too (docs/reconcile.md,
// "Request model"). A full read of a pull request in review costs about
// nine requests. When one ends with the entry only waiting (for its
// reviewer, or for a person to merge it) and nothing that could change
// without GitHub saying so, the pass records a quiet mark: the pull
// request's updated_at and head, its base's head, a hash of the entry's
// ledger, spec and gallivant.yaml, and the earliest clock rule that could
// fall due. A later pass reads one conditional pull-request list per
// repository (sorted by update time) and the base heads it already reads
// once per repository, and skips the detail reads of a pull request whose
// mark still holds. Anything in doubt is a full read.

// quietMargin is how long before the pass began a pull request must have
// last changed for a mark: GitHub's updated_at has one-second resolution,
// so a change in the same second as the read would not move it.
const quietMargin = 5 * time.Second

// quietRefresh bounds a mark's life: what moves neither updated_at, the
// head nor the base and that the mark does not watch (a check re-run on
// the same head of a wait for the reviewer, a person's permission) is
// seen at the latest this long after the last full read.
const quietRefresh = 30 * time.Minute

// quietMark is what the last full read of an idle pull request saw.
type quietMark struct {
	UpdatedAt time.Time `json:"updated_at"`
	Head      string    `json:"head"`
	Base      string    `json:"base"`
	BaseHead  string    `json:"base_head"`
	Sum       string    `json:"sum"`
	Seen      time.Time `json:"seen"`
	// Until is the earliest time a clock rule could be due; zero is never.
	Until time.Time `json:"until,omitzero"`
	Why   string    `json:"why"`
	// Step is the decision the mark's wait is (gatekeep.StepWait or
	// gatekeep.StepHoldReady); "" in a mark written before it was kept,
	// read as a wait.
	Step gatekeep.Step `json:"step,omitempty"`
	// Checks, set on the mark of a ready pull request or of one waiting
	// for CI, is checksSum of the CI evidence on Head and of what Base
	// requires (checks, approving reviews), read again every pass
	// (rollup.go: one GraphQL query per repository, or four conditional
	// REST requests per pull request): a check that reports or turns red
	// on the same head, or a base that starts requiring more, moves
	// neither updated_at nor the head, and a ready label must come off at
	// once (docs/reconcile.md).
	Checks string `json:"checks,omitempty"`
	// Feedback, set with Checks, is feedbackSum of the comments updated
	// since the feedback cursor: an edited comment is new feedback that
	// moves no pull request's updated_at.
	Feedback string `json:"feedback,omitempty"`
	// Required, set on a mark without Checks whose wait is for approving
	// reviews the base requires (requiredWatched), is requiredSum of what
	// Base required at the full read, compared every pass with what it
	// requires now, read once per base (requiredHolds): a base that comes
	// to require fewer approvals, which moves neither updated_at nor the
	// head, may make the pull request ready. Checks covers it otherwise.
	Required string `json:"required,omitempty"`
}

// prWatcher is the part of a GitHubClient that lets an observer skip idle
// pull requests: the per-repository list, and marks kept with the rest of
// its conditional state.
type prWatcher interface {
	DiscoverPullRequests(ctx context.Context, repo string) ([]githubapi.PullRequest, error)
	Mark(repo string, number int) (json.RawMessage, bool)
	SetMark(repo string, number int, m json.RawMessage)
}

type prList struct {
	once sync.Once
	prs  map[int]githubapi.PullRequest
	err  error
}

// readMark returns the quiet mark the client keeps for a pull request; a
// mark this version cannot read is no mark.
func readMark(w prWatcher, repo string, number int) (quietMark, bool) {
	data, ok := w.Mark(repo, number)
	if !ok {
		return quietMark{}, false
	}
	var m quietMark
	if err := json.Unmarshal(data, &m); err != nil {
		return quietMark{}, false
	}
	return m, true
}

// writeMark records m, or drops the mark when m is nil.
func writeMark(w prWatcher, repo string, number int, m *quietMark) {
	if m == nil {
		w.SetMark(repo, number, nil)
		return
	}
	data, err := json.Marshal(m)
	if err != nil {
		w.SetMark(repo, number, nil)
		return
	}
	w.SetMark(repo, number, data)
}

// Changed tells the reconciler that GitHub reported activity in repo (a
// webhook): its idle pull requests are read in full by the next pass.
func (r *Reconciler) Changed(repo string) {
	r.o.GitHub.ForgetMarks(repo)
}

// pulls returns a repository's pull requests by number, read once per pass.
func (o *observer) pulls(ctx context.Context, repo string) (map[int]githubapi.PullRequest, error) {
	o.mu.Lock()
	l := o.lists[repo]
	if l == nil {
		l = &prList{}
		o.lists[repo] = l
	}
	o.mu.Unlock()
	l.once.Do(func() {
		prs, err := o.DiscoverPullRequests(ctx, repo)
		l.err = err
		l.prs = make(map[int]githubapi.PullRequest, len(prs))
		for _, pr := range prs {
			l.prs[pr.Number] = pr
		}
	})
	return l.prs, l.err
}

// touched reports whether this pass wrote to the pull request or moved a
// branch of its repository.
func (o *observer) touched(repo string, number int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.wrote[prKey{repo, number}] || o.stale[repo] || o.pushed[repo]
}

// quietView is one review's use of the marks: what a skip compared, kept
// for recording a new mark after a full read.
type quietView struct {
	o        *observer
	pr       gatekeep.PR
	base     string
	baseHead string
	sum      string
	// step is the decision of the mark that holds, when quiet reports a
	// wait.
	step gatekeep.Step
}

// quiet decides whether the review of e can skip its detail reads this
// pass: why is the wait to report when it can, and q is how to record a
// mark after a full read (nil when marks do not apply).
func (p *passState) quiet(ctx context.Context, e *entry, pr gatekeep.PR) (why string, q *quietView) {
	o, ok := p.GitHub.(*observer)
	if !ok || e.leg != nil || e.spec == nil {
		return "", nil
	}
	if _, _, owed := gatekeep.Owed(e.l); owed {
		return "", nil
	}
	sum, ok := p.entrySum(e)
	if !ok {
		return "", nil
	}
	baseHead, found, err := o.BranchHead(ctx, pr.Repo, e.spec.Base)
	if err != nil || !found {
		return "", nil
	}
	q = &quietView{o: o, pr: pr, base: e.spec.Base, baseHead: baseHead, sum: sum}
	m, ok := readMark(o, pr.Repo, pr.Number)
	if !ok {
		return "", q
	}
	// Whatever happens next is a full read or a skip that keeps the mark:
	// a mark that does not hold is dropped now.
	if !p.markHolds(ctx, q, e, m) || !p.checksHold(ctx, o, e, pr.Repo, m) {
		writeMark(o, pr.Repo, pr.Number, nil)
		return "", q
	}
	q.step = m.Step
	if q.step == "" {
		q.step = gatekeep.StepWait
	}
	return fmt.Sprintf("%s (unchanged since %s)", m.Why, m.UpdatedAt.UTC().Format(time.RFC3339)), q
}

// markHolds reports whether a mark still describes the pull request: the
// entry, its head and base are what the mark recorded, the mark is fresh,
// nothing touched the pull request this pass, and GitHub's list shows it
// open and updated no later than the mark.
func (p *passState) markHolds(ctx context.Context, q *quietView, e *entry, m quietMark) bool {
	if m.Sum != q.sum || m.Head != e.l.Delivery.Head || m.Base != e.spec.Base || m.BaseHead != q.baseHead {
		return false
	}
	if !p.now.Before(m.Seen.Add(quietRefresh)) || p.now.Before(m.Seen) || (!m.Until.IsZero() && !p.now.Before(m.Until)) {
		return false
	}
	if q.o.touched(q.pr.Repo, q.pr.Number) {
		return false
	}
	prs, err := q.o.pulls(ctx, q.pr.Repo)
	if err != nil {
		return false
	}
	live, ok := prs[q.pr.Number]
	return ok && live.State == gatekeep.PROpen && !live.Merged && live.UpdatedAt.Equal(m.UpdatedAt) && live.HeadSHA == m.Head && live.BaseRef == m.Base
}

// checksHold reports whether the CI evidence a mark recorded is still what
// GitHub reports on its head. A mark that records none (an entry waiting
// for its reviewer, a steerer's re-review or approvals the base requires,
// with final checks) holds, unless the entry is ready (a ready mark always
// carries its checks) or it records what its base required
// (quietMark.Required) and the base requires something else now.
func (p *passState) checksHold(ctx context.Context, o *observer, e *entry, repo string, m quietMark) bool {
	if m.Checks == "" {
		return e.l.Phase() != ledger.PhaseReady && (m.Required == "" || o.requiredHolds(ctx, repo, m))
	}
	// The repository's rollup query answers it when it read everything
	// the mark compares and finds it the same; anything else (no answer,
	// a page that did not hold it all, a difference) is asked again
	// through REST, which decides.
	if o.rollupHolds(ctx, repo, e, m) {
		return true
	}
	ch, err := o.GetChecks(ctx, repo, m.Head, m.Base)
	if err != nil || checksSum(checksOf(ch), ch.Required, ch.RequiredApprovals) != m.Checks {
		return false
	}
	pr, _ := prOf(e.l)
	since := gatekeep.Since(e.l.Delivery.Since)
	var ids []string
	for _, inline := range []bool{false, true} {
		list := o.IssueComments
		if inline {
			list = o.ReviewComments
		}
		cs, err := list(ctx, repo, pr.Number, since.FetchFrom())
		if err != nil {
			return false
		}
		for _, c := range cs {
			ids = append(ids, commentID(inline, c.ID, c.UpdatedAt))
		}
	}
	return feedbackSum(ids) == m.Feedback
}

// commentID spells one comment for feedbackSum: whether it is inline, its
// id and when it was last updated, to the second, as GitHub keeps it
// (and as GraphQL reports it).
func commentID(inline bool, id int64, updated time.Time) string {
	return fmt.Sprintf("%v %d %s", inline, id, updated.UTC().Truncate(time.Second).Format(time.RFC3339))
}

// feedbackSum hashes which comments were updated since the cursor, and
// when, in no particular order: REST and GraphQL list them differently.
func feedbackSum(ids []string) string {
	ids = slices.Sorted(slices.Values(ids))
	h := sha256.Sum256([]byte(fmt.Sprint(ids)))
	return hex.EncodeToString(h[:])
}

// requiredHolds reports whether the base of a mark without checks still
// requires what the mark recorded (quietMark.Required). The repository's
// rollup answer, when it read the base's rules, answers for free;
// anything else, a difference included, is read through REST once per
// base per pass (rules and classic protection, conditional: 304s that
// cost no rate limit while unchanged, and nothing while a protection's
// 404 is remembered), and REST decides, as in checksHold.
func (o *observer) requiredHolds(ctx context.Context, repo string, m quietMark) bool {
	if req, ok := o.rollupRequired(ctx, repo, m.Base); ok && requiredSum(req) == m.Required {
		return true
	}
	req, err := o.required(ctx, repo, m.Base)
	return err == nil && requiredSum(req) == m.Required
}

// requiredSum hashes what a base requires as checksSum does, with no
// checks: a mark's Required.
func requiredSum(req githubapi.Required) string {
	return checksSum(nil, req.Checks, req.Approvals)
}

// requiredWatched reports whether the mark of a wait must carry what its
// base requires (quietMark.Required) when it carries no checks: the wait
// is for approving reviews the base requires, which a base requiring
// fewer ends. Of the other waits a mark without checks can be (a
// reviewer's approval, a steerer's re-review; its checks final), none
// ends by a change of what the base requires: a base requiring more
// checks or approvals, or fewer checks, only adds a wait or removes one
// it does not have, and the approval or review that ends it moves the
// pull request's updated_at.
func requiredWatched(v gatekeep.Verdict) bool {
	return slices.ContainsFunc(v.WaitsFor, func(w gatekeep.Wait) bool { return w.Kind == gatekeep.WaitApprovals })
}

// checksSum hashes a head's CI evidence as the gate reads it, in no
// particular order (REST and GraphQL list checks differently), with what
// the base requires: its required checks and how many approving reviews
// (a base that starts requiring more approvals blocks a ready pull
// request's merge while moving neither its updated_at nor its head).
func checksSum(cs []gatekeep.Check, required []string, approvals int) string {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b gatekeep.Check) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Status, b.Status),
			cmp.Compare(a.Conclusion, b.Conclusion), cmp.Compare(a.URL, b.URL))
	})
	if len(required) == 0 {
		required = nil
	}
	required = slices.Sorted(slices.Values(required))
	data, err := json.Marshal(struct {
		Checks    []gatekeep.Check
		Required  []string
		Approvals int
	}{cs, required, approvals})
	if err != nil {
		return ""
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// markQuiet records, after a full read that ended in why and nothing
// else, that the pull request can be skipped until it changes or until.
// With withChecks the mark carries the head's checks (quietMark.Checks),
// which then need not be final; without, they must be, and with
// withRequired it carries what the base requires (quietMark.Required).
func (p *passState) markQuiet(ctx context.Context, q *quietView, e *entry, live githubapi.PullRequest, d gatekeep.Digest, repolled bool, until time.Time, a gatekeep.Action, withChecks, withRequired bool) {
	if q == nil || p.DryRun {
		return
	}
	ok := digestSettled(d, repolled, withChecks) && p.liveSettled(q, e, live, d)
	// A ready pull request's mark always carries its checks: one without
	// would be dropped by the next pass (checksHold), a rewrite per pass.
	if !ok || !withChecks && e.l.Phase() == ledger.PhaseReady {
		writeMark(q.o, q.pr.Repo, q.pr.Number, nil)
		return
	}
	m := &quietMark{UpdatedAt: live.UpdatedAt.UTC(), Head: live.HeadSHA, Base: q.base, BaseHead: q.baseHead,
		Sum: q.sum, Seen: p.now, Until: until, Why: a.Detail, Step: a.Step}
	if withChecks {
		m.Checks = checksSum(d.Checks, d.Required, d.RequiredApprovals)
		m.Feedback = feedbackSum(commentIDs(d.Comments))
	} else if withRequired {
		m.Required = requiredSum(githubapi.Required{Checks: d.Required, Approvals: d.RequiredApprovals})
	}
	writeMark(q.o, q.pr.Repo, q.pr.Number, m)
}

// checksWatched reports whether the mark of a wait must carry the head's
// checks, read again every pass: while the verdict waits for CI (its first
// check or status, a check still running, a required check not yet
// reported) or any check on the head has not finished, a check that
// reports moves neither updated_at nor the head, and it may be what
// decides the pull request.
func checksWatched(v gatekeep.Verdict, d gatekeep.Digest) bool {
	for _, w := range v.WaitsFor {
		switch w.Kind {
		case gatekeep.WaitFirstCI, gatekeep.WaitCheck, gatekeep.WaitRequiredCheck:
			return true
		}
	}
	return !gatekeep.ChecksFinal(d)
}

// digestSettled reports whether a full read saw everything GitHub will
// say about the pull request: mergeability computed on the first poll,
// reviews, files and (with withChecks, or final) checks read.
func digestSettled(d gatekeep.Digest, repolled, withChecks bool) bool {
	return !repolled && d.Mergeable != nil && d.ReviewsKnown && d.FilesKnown && d.MergeState.Computed() &&
		(withChecks && d.ChecksKnown || gatekeep.ChecksFinal(d))
}

// liveSettled reports whether the live pull request is the one the
// digest and the ledger describe, open, unmerged, last updated more than
// quietMargin ago, and untouched by this pass.
func (p *passState) liveSettled(q *quietView, e *entry, live githubapi.PullRequest, d gatekeep.Digest) bool {
	return live.State == gatekeep.PROpen && !live.Merged && !live.UpdatedAt.IsZero() && live.UpdatedAt.Before(p.now.Add(-quietMargin)) &&
		live.HeadSHA == d.HeadSHA && live.HeadSHA == e.l.Delivery.Head && live.BaseRef == q.base &&
		!q.o.touched(q.pr.Repo, q.pr.Number)
}

// commentIDs spells the comments as checksHold reads them back: issue
// comments, then inline ones, each with the time it was last updated.
func commentIDs(cs []gatekeep.Comment) []string {
	var ids []string
	for _, inline := range []bool{false, true} {
		for _, c := range cs {
			if c.Inline == inline {
				ids = append(ids, commentID(inline, c.ID, c.UpdatedAt))
			}
		}
	}
	return ids
}

// entrySum hashes what a review judges besides GitHub: the entry's ledger
// as the pass holds it, its spec's file, gallivant.yaml and, for a chain
// milestone, its chain's file.
func (p *passState) entrySum(e *entry) (string, bool) {
	spec, ok := p.docs[e.specPath]
	if !ok {
		return "", false
	}
	h := sha256.New()
	parts := [][]byte{ledger.Format(e.l), []byte(e.specPath), spec, p.docs[specs.ConfigFile]}
	if cp, ok := p.repo.ChainOf[e.specPath]; ok {
		// Being chained, or the chain's status, changes what the review
		// may do: a ready milestone is unlabelled behind an
		// unmerged predecessor.
		parts = append(parts, []byte(cp.Chain.Path), p.docs[cp.Chain.Path])
	}
	for _, b := range parts {
		fmt.Fprintf(h, "%d\x00", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// docsByPath indexes the pass's documents, gallivant.yaml among them.
func docsByPath(config []byte, files []specs.File) map[string][]byte {
	out := make(map[string][]byte, len(files)+1)
	for _, f := range files {
		out[f.Path] = f.Data
	}
	out[specs.ConfigFile] = config
	return out
}

// prefetchPulls reads the pull-request lists of repos concurrently, at most
// width at a time; the entry that needs one reports a failure.
func (o *observer) prefetchPulls(ctx context.Context, repos []string, width int) {
	eachBounded(repos, width, func(repo string) { _, _ = o.pulls(ctx, repo) })
}
