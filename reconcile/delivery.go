package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/internal/wait"
	"github.com/gallivant/gallivant/ledger"
)

// The pull-request phases observe GitHub and call the pure transitions of
// gatekeep/loop.go; the state changes themselves live there. What stays
// here is the order of the steps and the ordering rules that make a crash
// harmless: a write the next step depends on goes to GitHub first, then
// its transition is committed.

// deliver runs the pull-request phases of an entry whose rows are all
// closed: open the pull request, then watch and answer it until it merges.
func (p *passState) deliver(ctx context.Context, e *entry) (stepResult, error) {
	if e.spec.Coordinated() && e.leg == nil {
		return p.deliverLegs(ctx, e)
	}
	switch e.l.Phase() {
	case ledger.PhaseImplement, ledger.PhaseVerify:
		return p.openPR(ctx, e)
	case ledger.PhaseReview, ledger.PhaseReady:
		return p.review(ctx, e)
	case ledger.PhaseDone:
		return p.learn(ctx, e) // learn.go
	}
	return finished, nil
}

// prOf returns the entry's recorded pull request.
func prOf(l *ledger.Ledger) (gatekeep.PR, bool) {
	v := l.Delivery.PRText()
	if v == "" {
		return gatekeep.PR{}, false
	}
	pr, err := gatekeep.ParsePR(v, "")
	return pr, err == nil
}

func (p *passState) identity(e *entry) gatekeep.Identity {
	return gatekeep.IdentityFor(p.ControlRepo, e.specPath, e.ledgerPath, e.l)
}

// body composes gallivant's regions into a pull request body.
func (p *passState) body(e *entry, body string) string {
	return gatekeep.Compose(body, p.identity(e), gatekeep.ReceiptFor(e.l, e.spec))
}

// summary is the body gallivant opens a pull request with.
func summary(e *entry) string {
	var b strings.Builder
	if e.leg != nil {
		fmt.Fprintf(&b, "Delivers leg **%s** of **%s** (`%s`), a coordinated spec: one pull request per leg, judged and labelled ready together.\n", e.leg.name, e.spec.Title, e.specPath)
		fmt.Fprintf(&b, "Every acceptance criterion of this leg is attested below.\n\n")
	} else {
		fmt.Fprintf(&b, "Delivers **%s** (`%s`), every acceptance criterion attested below.\n\n", e.spec.Title, e.specPath)
	}
	b.WriteString("gallivant opened this pull request and answers review feedback and failing checks in\n")
	b.WriteString("rounds; a person merges it. The receipt and identity regions below are gallivant's.\n")
	return b.String()
}

// observeHead builds the Head a transition records: when the loop saw it,
// and the reviewer clock from the head commit's committer date.
func (p *passState) observeHead(ctx context.Context, repo, sha string) gatekeep.Head {
	committed := time.Time{}
	if ci, err := p.GitHub.GetCommit(ctx, repo, sha); err == nil {
		committed = ci.CommittedAt
	}
	rereview := time.Hour
	if rc := p.cfg.Reviewer; rc != nil {
		rereview = time.Duration(rc.RereviewMinutes) * time.Minute
	}
	now := p.clock()
	return gatekeep.Head{SHA: sha, Seen: now, Asked: gatekeep.ReviewerClock(committed, now, rereview)}
}

// stop commits a stop of the pull-request phases.
func (p *passState) stop(e *entry, reason ledger.StopReason, detail string) error {
	n, c := ledger.Stop(e.l, reason, detail, 0)
	return p.apply(e, n, c)
}

// holdForChain reports whether a chain milestone must wait because its
// predecessor is not merged into the chain's base, with the waiting
// result that says why. It holds at every phase — dispatch, opening, the
// ready label — whenever the milestone was seeded.
func (p *passState) holdForChain(ctx context.Context, e *entry, what string) (stepResult, bool) {
	if ok, why := p.chainGate(ctx, e); !ok {
		return waitFor("not %s: %s", what, why), true
	}
	return finished, false
}

// adoptable reports whether a pull request found on the work branch is this
// entry's own: authored by gallivant's login, carrying an identity block
// that names this entry and, when merged, merged at the work branch's
// current head (so an old merged pull request of a reused spec path is
// never taken for new work). It returns why not.
func (p *passState) adoptable(ctx context.Context, e *entry, pr githubapi.PullRequest, head string) (bool, string, error) {
	self, err := p.self(ctx)
	if err != nil {
		return false, "", err
	}
	if !strings.EqualFold(pr.Author, self) {
		return false, fmt.Sprintf("%s is authored by @%s, not by gallivant (@%s)", pr.Ref(), pr.Author, self), nil
	}
	id, err := gatekeep.ParseIdentity(pr.Body)
	if err != nil {
		return false, fmt.Sprintf("%s carries no valid identity block: %v", pr.Ref(), err), nil
	}
	if id.Spec != e.specPath || id.Ledger != e.ledgerPath {
		return false, fmt.Sprintf("%s names %s, not this entry", pr.Ref(), id.Spec), nil
	}
	if id.Member != e.l.Member() {
		return false, fmt.Sprintf("%s names member %s of %s, not %s", pr.Ref(), id.Member, id.Spec, e.l.Member()), nil
	}
	return true, "", nil
}

// openPR ensures a pull request from the work branch exists, with the
// identity block and the receipt written first, then records it. A pull
// request the ledger lost (a crash between creating and recording it) is
// found again by its branch. A work branch with no change against the base
// — or none at all, as when every row is cut — has nothing to deliver and
// ends the entry without a pull request.
func (p *passState) openPR(ctx context.Context, e *entry) (stepResult, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return stopped, err
	}
	f, err := p.openFacts(ctx, e)
	if err != nil {
		return progressed, err
	}
	a := gatekeep.DecideOpen(f)
	p.decided(e, "", gatekeep.LookOpen, a, "")
	switch a.Step {
	case gatekeep.StepStop:
		return stopped, p.stop(e, a.Reason, a.Detail)
	case gatekeep.StepNothing:
		if a.Prove {
			// Rows an agent closed on a branch that changes nothing: their
			// evidence is replayed there as before a pull request opens,
			// and a claim that does not hold is repaired, not delivered.
			if res, ok, err := p.verify(ctx, e, f.Repo, f.Branch, f.Head); !ok || err != nil {
				return res, err
			}
		}
		return p.nothingToDeliver(e, a.Detail)
	}
	if res, held := p.holdForChain(ctx, e, "opened"); held {
		return res, nil
	}
	if res, ok, err := p.verify(ctx, e, f.Repo, f.Branch, f.Head); !ok || err != nil {
		return res, err
	}
	if a.Step == gatekeep.StepAdopt {
		return p.adoptPR(ctx, e, f)
	}
	return p.openOrAdopt(ctx, e, f.Repo, f.Branch, f.Base, f.Head)
}

// openFacts observes the work branch for gatekeep.DecideOpen: its head and,
// when it exists, its comparison with the base.
func (p *passState) openFacts(ctx context.Context, e *entry) (gatekeep.OpenFacts, error) {
	f := gatekeep.OpenFacts{Repo: p.pushRepo(e), Branch: p.branch(e), Base: e.spec.Base,
		HadPR: !e.l.Delivery.PR.IsZero(), AnyDone: anyDone(e.l.ViewRows()), Adopts: !e.spec.PR.IsZero() && e.leg == nil}
	var err error
	if f.Head, f.Exists, err = p.GitHub.BranchHead(ctx, f.Repo, f.Branch); err != nil || !f.Exists {
		return f, err
	}
	cmp, err := p.GitHub.Compare(ctx, f.Repo, f.Base, f.Head)
	if err != nil {
		return f, err
	}
	f.Unrelated, f.AheadBy, f.Files = cmp.Status == githubapi.CompareUnrelated, cmp.AheadBy, cmp.Files
	return f, nil
}

// openOrAdopt finds the work branch's pull request — adopting it when it
// is gallivant's own for this entry, stopping foreign-pr when it is not —
// or opens one with the identity block and the receipt, then records it.
func (p *passState) openOrAdopt(ctx context.Context, e *entry, repo, branch, base, head string) (stepResult, error) {
	found, ok, err := p.GitHub.FindPullRequest(ctx, repo, branch, base)
	if err != nil {
		return progressed, err
	}
	if ok && found.State == gatekeep.PRClosed && (!found.Merged || found.HeadSHA != head) {
		// A pull request closed unmerged, or merged at another head (the
		// spec path was reused), is not this delivery's: it gets a new one.
		ok = false
	}
	if ok {
		own, why, err := p.adoptable(ctx, e, found, head)
		if err != nil {
			return progressed, err
		}
		if !own {
			if p.DryRun {
				return waitFor("would stop foreign-pr: %s", why), nil
			}
			return stopped, p.stop(e, ledger.StopForeignPR, fmt.Sprintf("%s is open from the work branch %s; %s", found.Ref(), branch, why))
		}
	}
	if p.DryRun {
		if ok {
			return waitFor("would record pull request %s", found.Ref()), nil
		}
		return waitFor("would open a pull request from %s into %s in %s", branch, base, repo), nil
	}
	if ok && e.l.Delivery.PRText() == found.Ref() && found.State == gatekeep.PROpen {
		return p.reenter(ctx, e, found)
	}
	pr := found
	if ok {
		if want := p.body(e, found.Body); want != found.Body {
			if err := p.GitHub.EditPullRequestBody(ctx, repo, found.Number, want); err != nil {
				return p.writeFailed(ctx, e, gatekeep.WriteIdentity, found.Ref(), err)
			}
		}
	} else {
		pr, err = p.GitHub.CreatePullRequest(ctx, repo, branch, base, e.spec.Title, p.body(e, summary(e)))
		if err != nil {
			return p.writeFailed(ctx, e, gatekeep.WriteIdentity, repo+" "+branch, err)
		}
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = head
	}
	ref := gatekeep.PR{Repo: repo, Number: pr.Number}
	n, c := gatekeep.Opened(e.l, gatekeep.OpenInput{PR: ref, Branch: branch, Base: base, Created: pr.CreatedAt,
		Head: p.observeHead(ctx, repo, pr.HeadSHA), ReceiptHash: gatekeep.ReceiptHash(gatekeep.ReceiptFor(e.l, e.spec)), RecordedExists: ok})
	return progressed, p.apply(e, n, c)
}

// anyDone reports whether some row is done: work was delivered on a branch.
func anyDone(rows []ledger.Row) bool {
	for _, r := range rows {
		if r.Status == ledger.Done {
			return true
		}
	}
	return false
}

// nothingToDeliver ends an entry whose work branch has no change.
func (p *passState) nothingToDeliver(e *entry, why string) (stepResult, error) {
	if p.DryRun {
		return waitFor("would record done without a pull request: %s", why), nil
	}
	n, c := gatekeep.NothingToDeliver(e.l, why)
	return progressed, p.apply(e, n, c)
}

// reenter puts an entry whose rows were reopened back in review of the pull
// request it already has, removing the ready label first.
func (p *passState) reenter(ctx context.Context, e *entry, live githubapi.PullRequest) (stepResult, error) {
	pr := gatekeep.PR{Repo: live.Repo, Number: live.Number}
	for _, l := range live.Labels {
		if strings.EqualFold(l, p.cfg.Labels.Ready) { // GitHub: one label per name in any case
			if err := p.GitHub.RemoveLabel(ctx, pr.Repo, pr.Number, l); err != nil {
				return p.writeFailed(ctx, e, gatekeep.WriteUnreadyLabel, pr.String(), err)
			}
		}
	}
	n, c := gatekeep.Reentered(e.l, pr, p.observeHead(ctx, pr.Repo, live.HeadSHA))
	return progressed, p.apply(e, n, c)
}

// writeFailed counts a failed named write (gatekeep.WriteFailed). A rate
// limit or a cancelled pass is not the write's failure and is returned.
func (p *passState) writeFailed(ctx context.Context, e *entry, w gatekeep.Write, what string, werr error) (stepResult, error) {
	var rl *githubapi.RateLimitedError
	if errors.As(werr, &rl) || ctx.Err() != nil {
		return progressed, werr
	}
	msg := redact.URLs(werr.Error())
	n, c := gatekeep.WriteFailed(e.l, w, what, msg)
	_, count := gatekeep.Retry(n)
	p.Log.Warn("github write failed", "spec", e.specPath, "write", string(w), "count", count, "error", msg)
	if _, _, isStopped := n.Stop(); isStopped {
		return stopped, p.apply(e, n, c)
	}
	return waitFor("the %s write for %s failed (%s); it is tried again next pass", w, what, msg), p.apply(e, n, c)
}

// landed resets a named write's failure count once it lands.
func (p *passState) landed(e *entry, w gatekeep.Write, what string) error {
	n, c, ok := gatekeep.WriteLanded(e.l, w, what)
	if !ok {
		return nil
	}
	return p.apply(e, n, c)
}

// self is gallivant's own login, read once per pass.
func (p *passState) self(ctx context.Context) (string, error) {
	if p.login == "" {
		l, err := p.GitHub.CurrentUser(ctx)
		if err != nil {
			return "", err
		}
		p.login = l
	}
	return p.login, nil
}

// review watches a recorded pull request and performs what is due, in the
// order of docs/delivery.md "Each pass in review": settle a round, terminal states, an owed write, a
// retarget, a person's push, gallivant's body regions, the base, then the
// verdict — a round, the ready label, a nudge, or a stop.
func (p *passState) review(ctx context.Context, e *entry) (stepResult, error) {
	pr, ok := prOf(e.l)
	if !ok {
		return stopped, p.stop(e, ledger.StopBoundary, fmt.Sprintf("the ledger is in %s without a valid pr: line", e.l.Phase()))
	}
	if !e.l.Delivery.DispatchedAt.IsZero() {
		return p.settleRound(ctx, e, pr)
	}
	// An idle pull request that did not change since its last full read
	// is not read again (quiet.go).
	why, q := p.quiet(ctx, e, pr)
	if why != "" {
		p.decided(e, pr.String(), gatekeep.LookQuiet, gatekeep.Action{Step: q.step, Detail: why}, "")
		return waitFor("%s", why), nil
	}
	live, err := p.GitHub.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err != nil {
		return progressed, err
	}
	f, err := p.liveFacts(ctx, e, pr, live)
	if err != nil {
		return progressed, err
	}
	if a := gatekeep.DecideLive(f); a.Step != gatekeep.StepJudge {
		p.decided(e, pr.String(), gatekeep.LookLive, a, "")
		return p.performLive(ctx, e, pr, live, a)
	}
	return p.judged(ctx, e, pr, live, q)
}

// liveFacts observes what the first look decides on (gatekeep.DecideLive).
// The chain is asked about only for a ready entry: it is what may take a
// ready label off. A head the loop did not record is compared with
// the recorded one (observeMove, basemerge.go).
func (p *passState) liveFacts(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest) (gatekeep.LiveFacts, error) {
	f := gatekeep.LiveFacts{PR: pr, Phase: e.l.Phase(), Merged: live.Merged, Closed: live.State == gatekeep.PRClosed, Leg: e.leg != nil,
		BaseRef: live.BaseRef, SpecBase: e.spec.Base, Head: live.HeadSHA, LedgerHead: e.l.Delivery.Head, Draft: live.Draft, HeadRef: live.HeadRef}
	if f.LedgerHead != "" && f.Head != f.LedgerHead {
		m, err := p.observeMove(ctx, pr, f.LedgerHead, live)
		if err != nil {
			return f, err
		}
		f.Move = m
	}
	f.Owed, f.OwedArg, _ = gatekeep.Owed(e.l)
	if f.Phase == ledger.PhaseReady && !f.Merged && !f.Closed && f.Owed == "" {
		ok, why := p.chainGate(ctx, e)
		f.ChainHeld, f.ChainWhy = !ok, why
	}
	f.BodyDrift = p.body(e, live.Body) != live.Body
	return f, nil
}

// performLive performs the first look's action: at most one GitHub write,
// then the transition that records it.
func (p *passState) performLive(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest, a gatekeep.Action) (stepResult, error) {
	switch a.Step {
	case gatekeep.StepReopen:
		return p.reopen(ctx, e, pr, live)
	case gatekeep.StepDone:
		return progressed, p.done(ctx, e, pr, live)
	case gatekeep.StepLegClosed:
		return stopped, p.legClosed(e, pr)
	case gatekeep.StepStop:
		return stopped, p.stop(e, a.Reason, a.Detail)
	case gatekeep.StepPayOwed:
		return p.payOwed(ctx, e, pr, a.Write, a.Arg)
	case gatekeep.StepUnready:
		return p.unready(ctx, e, pr, a.Head, a.Detail)
	case gatekeep.StepFollow, gatekeep.StepBaseMerged, gatekeep.StepRewritten:
		return p.follow(ctx, e, pr, live, a.Step)
	case gatekeep.StepRewriteBody:
		if p.DryRun {
			return waitFor("would rewrite the identity block and receipt of %s", pr), nil
		}
		if err := p.GitHub.EditPullRequestBody(ctx, pr.Repo, pr.Number, p.body(e, live.Body)); err != nil {
			return p.writeFailed(ctx, e, gatekeep.WriteIdentity, pr.String(), err)
		}
		return progressed, p.landed(e, gatekeep.WriteIdentity, pr.String())
	case gatekeep.StepUndraft:
		// A draft is converted before the reviewer is asked: the
		// pull request is gallivant's own (it was adopted as such).
		if p.DryRun {
			return waitFor("would mark %s ready for review", pr), nil
		}
		if err := p.GitHub.MarkReadyForReview(ctx, pr.Repo, pr.Number, live.NodeID); err != nil {
			return p.writeFailed(ctx, e, gatekeep.WriteUndraft, pr.String(), err)
		}
		n, c := gatekeep.Undrafted(e.l, pr, p.observeHead(ctx, pr.Repo, live.HeadSHA))
		return progressed, p.apply(e, n, c)
	}
	return progressed, fmt.Errorf("review of %s: the first look chose %q, which it does not perform", pr, a.Step)
}

// reviewRead is the second look's observation: the digest, whether its
// mergeability was polled again, and the verdict on it.
type reviewRead struct {
	d        gatekeep.Digest
	repolled bool
	v        gatekeep.Verdict
}

// judge reads the pull request's digest from the feedback cursor, polls
// its mergeability once more when GitHub was still computing it, and
// judges it with the steerers and the completion gate.
func (p *passState) judge(ctx context.Context, e *entry, pr gatekeep.PR) (reviewRead, error) {
	since := gatekeep.Since(e.l.Delivery.Since)
	cur := gatekeep.Cursors{Since: since, Head: e.l.Delivery.Head,
		ChecksHead: e.l.Delivery.ChecksHead, Receipt: e.l.Delivery.Receipt}
	d, err := FetchDigest(ctx, p.GitHub, pr, cur.Since.FetchFrom())
	if err != nil {
		return reviewRead{}, err
	}
	r := reviewRead{d: d}
	if d.Mergeable == nil && d.State == gatekeep.PROpen {
		again, err := p.pollMergeable(ctx, pr)
		if err != nil {
			return reviewRead{}, err
		}
		r.d.Mergeable, r.d.MergeState, r.repolled = again.Mergeable, again.MergeableState, true
	}
	self, err := p.self(ctx)
	if err != nil {
		return reviewRead{}, err
	}
	in := gatekeep.Input{Self: self, Repolled: r.repolled, Cursors: &cur, NoCI: p.cfg.Checks.NoCI(pr.Repo),
		Gate: &gatekeep.GateInput{Identity: p.identity(e), Spec: e.spec, Ledger: e.l, CheckProof: gatekeep.ProofCheckFor(p.cfg, e.spec)}}
	if p.cfg.Reviewer != nil {
		in.Reviewer = p.cfg.Reviewer.Login
	}
	if in.Steerers, err = p.steerers(ctx, pr.Repo, r.d, self); err != nil {
		return reviewRead{}, err
	}
	r.v = gatekeep.Judge(r.d, in)
	return r, nil
}

// judged is the second look: judge the digest, decide
// (gatekeep.DecideJudged), perform.
func (p *passState) judged(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest, q *quietView) (stepResult, error) {
	r, err := p.judge(ctx, e, pr)
	if err != nil {
		return progressed, err
	}
	if a, changed := p.specChangedAtGate(e, r.v); changed {
		p.decided(e, pr.String(), gatekeep.LookJudged, a, "")
		_, err := p.contractChanged(e)
		return stopped, err
	}
	a := p.decideJudged(e, pr, r)
	p.decided(e, pr.String(), gatekeep.LookJudged, a, gatekeep.IgnoredNote(pr, r.v.Ignored))
	p.noteIgnored(e, pr, r.v.Ignored)
	switch a.Step {
	case gatekeep.StepStop:
		return stopped, p.stop(e, a.Reason, a.Detail)
	case gatekeep.StepMergeBase:
		return p.mergeBase(ctx, e, pr, r.d)
	case gatekeep.StepUnready:
		return p.unready(ctx, e, pr, live.HeadSHA, a.Detail)
	case gatekeep.StepRound:
		return p.round(ctx, e, pr, r.d, a.Findings)
	case gatekeep.StepReady:
		return p.ready(ctx, e, pr, r.d)
	case gatekeep.StepHoldReady:
		// The mark of a ready pull request carries its checks, read
		// again every pass: a check that turns red on the same head
		// moves neither updated_at nor the head, and the label must
		// come off at once.
		p.markQuiet(ctx, q, e, live, r.d, r.repolled, time.Time{}, a, true, false)
		return waitFor("%s", a.Detail), nil
	case gatekeep.StepChecksQuiet:
		return stopped, p.stop(e, ledger.StopChecksSilent, p.checksSilentDetail(ctx, e, pr, r.d.HeadSHA))
	case gatekeep.StepWait:
		return p.wait(ctx, e, pr, live, r, q, a)
	}
	return waitFor("%s", a.Detail), nil
}

// wait performs a waiting verdict: the reviewer's nudge and stall may fall
// due (silence); otherwise the pull request is marked quiet until the
// clock rules that can fall due with nothing new on GitHub — the
// reviewer's nudge and stall, and checks.wait while CI is waited for. A
// wait while CI has not finished (its first check, a running one) re-reads
// the head's checks every pass (quietMark.Checks): a check that reports
// changes nothing else.
func (p *passState) wait(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest, r reviewRead, q *quietView, a gatekeep.Action) (stepResult, error) {
	if res, acted, err := p.silence(ctx, e, pr, r.d); acted || err != nil {
		return res, err
	}
	var until time.Time
	if rc := p.cfg.Reviewer; rc != nil {
		until = gatekeep.SilenceNext(r.d, rc.Login, e.l.Delivery.ReviewerAsked, e.l.Delivery.Nudged,
			time.Duration(rc.RereviewMinutes)*time.Minute, time.Duration(rc.StallHours)*time.Hour)
	}
	if r.v.WaitsForCI() {
		if seen := e.l.Delivery.HeadAt; !seen.IsZero() {
			if silent := seen.Add(p.cfg.Checks.Wait); until.IsZero() || silent.Before(until) {
				until = silent
			}
		}
	}
	p.markQuiet(ctx, q, e, live, r.d, r.repolled, until, a, checksWatched(r.v, r.d), requiredWatched(r.v))
	return waitFor("%s", a.Detail), nil
}

// mergeBase merges the base into the work branch of a pull request that is
// behind it: GitHub's update-branch makes a merge commit, never a
// rebase or a force-push. A conflict becomes a conflict round on the next
// look; the new head is recorded as gallivant's own. A head that moved
// before GitHub took the request (ErrHeadMoved) is a wait, not a failed
// write.
func (p *passState) mergeBase(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (stepResult, error) {
	if p.DryRun {
		return waitFor("would merge %s into the work branch of %s", d.BaseRef, pr), nil
	}
	err := p.GitHub.UpdateBranch(ctx, pr.Repo, pr.Number, d.HeadSHA)
	if errors.Is(err, githubapi.ErrMergeConflict) {
		fs := []gatekeep.Finding{gatekeep.ConflictFinding(d.HeadRef, d.BaseRef)}
		return p.round(ctx, e, pr, d, fs)
	}
	if errors.Is(err, githubapi.ErrHeadMoved) {
		// A push, or the background merge of an earlier update-branch,
		// landed after the head was read: the next look reads it.
		return waitFor("the work branch of %s moved since it was read; it is read again next pass", pr), nil
	}
	if err != nil {
		return p.writeFailed(ctx, e, gatekeep.WriteUpdateBranch, pr.String(), err)
	}
	head, ok, err := p.GitHub.BranchHead(ctx, p.pushRepo(e), p.branch(e))
	if err != nil {
		return progressed, err
	}
	if !ok || head == d.HeadSHA {
		return waitFor("asked GitHub to merge %s into the work branch of %s", d.BaseRef, pr), nil
	}
	n, c := gatekeep.BaseMerged(e.l, pr, d.BaseRef, p.observeHead(ctx, pr.Repo, head))
	return progressed, p.apply(e, n, c)
}

// pollMergeable asks GitHub again, twice at most, for a mergeability it is
// still computing.
func (p *passState) pollMergeable(ctx context.Context, pr gatekeep.PR) (githubapi.PullRequest, error) {
	return RepollMergeable(ctx, p.GitHub, pr, p.MergePoll, 2)
}

// RepollMergeable asks GitHub again for a pull request whose mergeability
// it is still computing, apart, and at most times times, rather than a
// whole pass later (G-22). It returns the last read.
func RepollMergeable(ctx context.Context, c PullRequestReader, pr gatekeep.PR, apart time.Duration, times int) (githubapi.PullRequest, error) {
	var live githubapi.PullRequest
	for polls := 0; polls < times; polls++ {
		if err := wait.For(ctx, apart); err != nil {
			return live, err
		}
		var err error
		if live, err = c.GetPullRequest(ctx, pr.Repo, pr.Number); err != nil || live.Mergeable != nil {
			return live, err
		}
	}
	return live, nil
}

// done records a merge when it is a merge of this entry's own head into the
// spec's base; a merge into another base stops `retargeted`.
func (p *passState) done(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest) error {
	if live.BaseRef != e.spec.Base {
		return p.stop(e, ledger.StopRetargeted, fmt.Sprintf("%s was merged into %s, not the spec's base %s; the work is not delivered where the spec asks", pr, live.BaseRef, e.spec.Base))
	}
	n, c := p.merged(ctx, e, pr, live)
	return p.apply(e, n, c)
}

// follow records a head the loop did not push as the first look
// decided (gatekeep.DecideLive): a person's push is followed, the head
// cursor moving and the reviewer clock restarting; gallivant's own
// update-branch merge is recorded as the base merge it is; a head that
// does not contain the attested one is a rewritten history (issue 10),
// and the entry stops boundary on it (gatekeep.Rewritten).
func (p *passState) follow(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest, step gatekeep.Step) (stepResult, error) {
	if p.DryRun {
		return waitFor("would follow the new head %s of %s", short(live.HeadSHA), pr), nil
	}
	h := p.observeHead(ctx, pr.Repo, live.HeadSHA)
	switch step {
	case gatekeep.StepRewritten:
		n, c := gatekeep.Rewritten(e.l, pr, e.l.Delivery.Head, h)
		return stopped, p.apply(e, n, c)
	case gatekeep.StepBaseMerged:
		n, c := gatekeep.BaseMerged(e.l, pr, live.BaseRef, h)
		return progressed, p.apply(e, n, c)
	}
	n, c := gatekeep.Followed(e.l, pr, h)
	return progressed, p.apply(e, n, c)
}

// unready removes the ready label first, then records leaving ready.
func (p *passState) unready(ctx context.Context, e *entry, pr gatekeep.PR, head, why string) (stepResult, error) {
	if p.DryRun {
		return waitFor("would remove the %s label from %s: %s", p.cfg.Labels.Ready, pr, why), nil
	}
	if err := p.GitHub.RemoveLabel(ctx, pr.Repo, pr.Number, p.cfg.Labels.Ready); err != nil {
		return p.writeFailed(ctx, e, gatekeep.WriteUnreadyLabel, pr.String(), err)
	}
	var h *gatekeep.Head
	if head != e.l.Delivery.Head {
		o := p.observeHead(ctx, pr.Repo, head)
		h = &o
	}
	n, c := gatekeep.Unready(e.l, pr, p.cfg.Labels.Ready, why, h)
	return progressed, p.apply(e, n, c)
}

// ready applies the contract comparison, the chain and the completion gate
// (passed in Judge's verdict), writes the ready label first, then records
// ready and owes the notification.
func (p *passState) ready(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (stepResult, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return stopped, err
	}
	if res, held := p.holdForChain(ctx, e, "labelled ready"); held {
		return res, nil
	}
	if res, ok, err := p.prove(ctx, e, pr, d); !ok || err != nil {
		return res, err
	}
	if res, held := p.holdForLegs(e, d.HeadSHA); held {
		return res, nil
	}
	if p.DryRun {
		return waitFor("would label %s %s", pr, p.cfg.Labels.Ready), nil
	}
	if err := p.GitHub.AddLabel(ctx, pr.Repo, pr.Number, p.cfg.Labels.Ready); err != nil {
		return p.writeFailed(ctx, e, gatekeep.WriteReadyLabel, pr.String(), err)
	}
	n, c := gatekeep.Ready(e.l, pr, d.HeadSHA, p.cfg.Labels.Ready)
	return progressed, p.apply(e, n, c)
}

// reopen performs the reopening a `resume` after a `closed` stop owes:
// GitHub reopens the pull request, or, when it refuses (the branch was
// deleted or rewritten), the entry goes back to opening a new one.
func (p *passState) reopen(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest) (stepResult, error) {
	if p.DryRun {
		return waitFor("would reopen %s", pr), nil
	}
	if live.State == gatekeep.PROpen || live.Merged {
		n, c := gatekeep.Reopened(e.l, pr)
		return progressed, p.apply(e, n, c)
	}
	err := p.GitHub.ReopenPullRequest(ctx, pr.Repo, pr.Number)
	var rl *githubapi.RateLimitedError
	if errors.As(err, &rl) || ctx.Err() != nil {
		return progressed, err
	}
	if err != nil {
		n, c := gatekeep.Replaced(e.l, pr, redact.URLs(err.Error()))
		return progressed, p.apply(e, n, c)
	}
	n, c := gatekeep.Reopened(e.l, pr)
	return progressed, p.apply(e, n, c)
}

// payOwed posts the comment an earlier transition owes: idempotent
// against its marker, so a post that reached GitHub under a failed response
// is never made twice. While it is owed, nothing else happens.
func (p *passState) payOwed(ctx context.Context, e *entry, pr gatekeep.PR, w gatekeep.Write, arg string) (stepResult, error) {
	var marker, body string
	switch w {
	case gatekeep.WriteRoundComment:
		marker = githubapi.Marker("round-" + arg)
		body = fmt.Sprintf("gallivant pushed round %s to `%s`, answering the feedback and failing checks since the last round.", arg, short(e.l.Delivery.Head))
		if rc := p.cfg.Reviewer; rc != nil {
			body += fmt.Sprintf(" @%s, please review the new head.", rc.Login)
		}
	case gatekeep.WriteReadyComment:
		marker = githubapi.Marker("ready-" + arg)
		body = fmt.Sprintf("gallivant: `%s` is ready for a person to merge: checks are green on it, the reviewer is clear, and the receipt attests every acceptance criterion of `%s`.",
			short(arg), e.specPath)
	default:
		n, c := gatekeep.Announced(e.l, pr, w, arg)
		return progressed, p.apply(e, n, c)
	}
	if p.DryRun {
		return waitFor("would post the owed %s on %s", w, pr), nil
	}
	if _, err := p.GitHub.EnsureComment(ctx, pr.Repo, pr.Number, marker, body+"\n\n"+marker); err != nil {
		return p.writeFailed(ctx, e, w, pr.String(), err)
	}
	n, c := gatekeep.Announced(e.l, pr, w, arg)
	return progressed, p.apply(e, n, c)
}

// round dispatches a review/fix round for new findings: the round is
// recorded and pushed (write-ahead), then the executor gets a fix brief
// quoting the findings as data.
func (p *passState) round(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest, fs []gatekeep.Finding) (stepResult, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return stopped, err
	}
	if why, held := p.roundHeld(ctx, e); held {
		return waitFor("%s", why), nil
	}
	n, c, err := gatekeep.RoundStarted(e.l, gatekeep.RoundInput{PR: pr, MaxRounds: p.cfg.Defaults.MaxRounds, Head: d.HeadSHA, Findings: fs,
		Receipt: gatekeep.ReceiptHash(gatekeep.ReceiptFor(e.l, e.spec)), Now: p.clock()})
	if err != nil {
		return progressed, err
	}
	bl, err := p.roundLessons(e, pr, d)
	if err != nil {
		return progressed, err
	}
	carryLessons(&c, bl)
	if err := p.apply(e, n, c); err != nil {
		return progressed, err
	}
	if _, _, isStopped := n.Stop(); isStopped {
		return stopped, nil
	}
	if p.DryRun {
		return finished, nil
	}
	return progressed, p.runRound(ctx, e, pr, d, fs)
}

// recoverRound finds a round's agent whose reconciler died, through the
// run record its executor keeps (recoverTask).
func (p *passState) recoverRound(ctx context.Context, e *entry, pr gatekeep.PR, k int) (agent.Recovery, error) {
	return p.recoverTask(ctx, e, agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: p.pushRepo(e), Branch: p.branch(e), Round: k, Iteration: e.l.Iterations,
		DispatchedAt: ledger.TimeText(e.l.Delivery.DispatchedAt)})
}

// roundKey names a round's executor outcome.
func roundKey(ledgerPath string, k int) string { return fmt.Sprintf("%s|round %d", ledgerPath, k) }

// runRound pushes the recorded round and hands it to the executor.
func (p *passState) runRound(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest, fs []gatekeep.Finding) error {
	if p.Executor.Placement() == agent.Recorded {
		return nil
	}
	k := e.l.Delivery.Round
	bl, err := p.roundLessons(e, pr, d)
	if err != nil {
		return err
	}
	brief := gatekeep.FixBrief(gatekeep.FixBriefInput{PR: pr, Spec: e.specPath, Title: e.spec.Title, LedgerPath: e.ledgerPath,
		Branch: p.branch(e), Base: e.spec.Base, Head: d.HeadSHA, Round: k, MaxRounds: p.cfg.Defaults.MaxRounds,
		Verification: e.l.Verification, Findings: fs, Ledger: e.l, Lessons: bl})
	brief += p.ciSection(ctx, e, pr, d)
	task := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: p.pushRepo(e), Branch: p.branch(e), Base: d.HeadSHA, Round: k,
		Iteration: e.l.Iterations, Brief: brief, DefaultBranch: e.spec.Base, Harness: e.spec.Harness, DispatchedAt: ledger.TimeText(e.l.Delivery.DispatchedAt)}
	if p.CloneURL != nil {
		task.CloneURL = p.CloneURL(task.Repo)
	}
	if err := p.pushIntended(ctx, task); err != nil {
		return err
	}
	if err := p.crash("executor:before"); err != nil {
		p.abandon(task)
		return err
	}
	out, err := p.Executor.Run(ctx, task)
	p.moved(task.Repo, task.Branch)
	if err != nil {
		return err
	}
	p.outcomes[roundKey(e.key(), k)] = out
	switch {
	case out.Err != nil && out.Unpushed:
		p.Log.Warn("pushing the run's commits failed", "spec", e.specPath, "round", k, "error", out.Err.Error(), "kept", out.Kept)
	case out.Err != nil:
		p.Log.Warn("agent run failed", "spec", e.specPath, "round", k, "error", out.Err.Error(), "log", out.Log)
	}
	return p.crash("executor:after")
}

// settleRound observes the work branch after a round: a push settles it
// (counted, then announced); a run that ended without one charges nothing.
func (p *passState) settleRound(ctx context.Context, e *entry, pr gatekeep.PR) (stepResult, error) {
	k := e.l.Delivery.Round
	out, ranHere := p.outcomes[roundKey(e.key(), k)]
	delete(p.outcomes, roundKey(e.key(), k))
	if ranHere {
		p.consume(roundKey(e.key(), k), e.ledgerPath, out) // replan.go
	}
	recovered := false
	if !ranHere {
		// The round's agent may have outlived a reconciler killed during
		// it: its run record finds it, and its commit is pushed now.
		rc, err := p.recoverRound(ctx, e, pr, k)
		if err != nil {
			return progressed, err
		}
		if rc.Running > 0 {
			return waitFor("waiting for round %d of %s: its agent (pid %d) outlived the reconciler that started it and is still running", k, pr, rc.Running), nil
		}
		if rc.Known {
			out, ranHere, recovered = rc.Outcome, true, true
		}
	}
	if res, pushed, err := p.roundPush(ctx, e, pr); pushed || err != nil {
		return res, err
	}
	if ranHere && out.Unpushed && !out.Dirty {
		return p.unpushedRound(e, pr, k, out), nil // unpushed.go
	}
	dt := e.l.Delivery.DispatchedAt
	switch gatekeep.DecideRoundEnd(gatekeep.RoundEnd{Seen: ranHere, Finished: out.Finished, Overdue: !dt.IsZero() && !p.inFlight(dt), Failed: out.Err != nil, Dirty: out.Dirty,
		Recovered: recovered}) {
	case gatekeep.RoundWait:
		return waitFor("waiting for round %d of %s (dispatched %s)", k, pr, ledger.TimeText(dt)), nil
	case gatekeep.RoundFailed:
		// An agent that failed for the machine leaves the round due
		// again (roundenv.go).
		if unrun, err := p.roundUnrun(e, pr, k, out); unrun || err != nil {
			return progressed, err
		}
		return stopped, p.stop(e, ledger.StopHarnessError, fmt.Sprintf("round %d of %s: %v (log %s)", k, pr, out.Err, out.Log))
	case gatekeep.RoundDirty:
		return stopped, p.stop(e, ledger.StopBoundary, fmt.Sprintf("round %d of %s left uncommitted changes and pushed nothing: %s", k, pr, dirtyWhat(out)))
	case gatekeep.RoundUnanswered:
		// No answer from the round's agent: its feedback stays new and
		// the next look runs the round again.
		n, c := gatekeep.RoundInterrupted(e.l, pr)
		return progressed, p.apply(e, n, c)
	}
	n, c := gatekeep.RoundEmpty(e.l, pr)
	return progressed, p.apply(e, n, c)
}

// roundPush reads the work branch after a round: pushed is true when the
// round's push was recorded, or the branch is gone or rewritten (a
// boundary stop).
func (p *passState) roundPush(ctx context.Context, e *entry, pr gatekeep.PR) (res stepResult, pushed bool, err error) {
	fixed, branch := e.l.Delivery.Head, p.branch(e)
	head, ok, err := p.GitHub.BranchHead(ctx, p.pushRepo(e), branch)
	switch {
	case err != nil:
		return progressed, false, err
	case !ok:
		return stopped, true, p.stop(e, ledger.StopBoundary, fmt.Sprintf("the work branch %s of %s no longer exists", branch, pr))
	case head == fixed:
		return finished, false, nil
	}
	cmp, err := p.GitHub.Compare(ctx, p.pushRepo(e), fixed, head)
	if err != nil {
		return progressed, false, err
	}
	if cmp.Status != githubapi.CompareAhead {
		return stopped, true, p.stop(e, ledger.StopBoundary, fmt.Sprintf("the work branch %s was rewritten: it no longer contains %s", branch, short(fixed)))
	}
	n, c := gatekeep.RoundPushed(e.l, pr, p.observeHead(ctx, pr.Repo, head), len(cmp.Commits))
	return progressed, true, p.apply(e, n, c)
}

// silence acts on the reviewer clock (gatekeep.SilenceDue): the nudge is
// posted first (idempotent against its per-head marker), then recorded.
// acted is false when the clock asks for nothing.
func (p *passState) silence(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (res stepResult, acted bool, err error) {
	rc := p.cfg.Reviewer
	if rc == nil {
		return finished, false, nil
	}
	asked := e.l.Delivery.ReviewerAsked
	switch gatekeep.SilenceDue(d, rc.Login, asked, e.l.Delivery.Nudged, p.now,
		time.Duration(rc.RereviewMinutes)*time.Minute, time.Duration(rc.StallHours)*time.Hour) {
	case gatekeep.Stall:
		return stopped, true, p.stop(e, ledger.StopReviewerSilent, fmt.Sprintf("@%s has not answered %s since %s (reviewer.stall_hours is %d)", rc.Login, pr, asked.Format(time.RFC3339), rc.StallHours))
	case gatekeep.Quiet:
		return finished, false, nil
	}
	if p.DryRun {
		return waitFor("would nudge @%s on %s", rc.Login, pr), true, nil
	}
	marker := githubapi.Marker("nudge-" + d.HeadSHA)
	body := fmt.Sprintf("@%s, `%s` has been waiting for your review since %s.\n\n%s", rc.Login, short(d.HeadSHA), asked.Format(time.RFC3339), marker)
	if _, err := p.GitHub.EnsureComment(ctx, pr.Repo, pr.Number, marker, body); err != nil {
		res, err := p.writeFailed(ctx, e, gatekeep.WriteNudge, pr.String(), err)
		return res, true, err
	}
	n, c := gatekeep.Nudged(e.l, pr, rc.Login, d.HeadSHA, asked)
	return progressed, true, p.apply(e, n, c)
}

// observeStopped watches the pull request of a stopped entry: a merge of
// the entry's head into its base is recorded whatever the stop, and a
// conflict or close that a person resolved resumes the entry.
func (p *passState) observeStopped(ctx context.Context, e *entry) error {
	reason, _, stopped := e.l.Stop()
	if stopped && e.spec != nil && e.spec.Coordinated() && e.leg == nil {
		return p.observeStoppedLegs(ctx, e)
	}
	pr, ok := prOf(e.l)
	if !stopped || !ok || e.spec == nil {
		return nil
	}
	switch e.l.Phase() {
	case ledger.PhaseReview, ledger.PhaseReady:
	default:
		return nil
	}
	live, err := p.GitHub.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err != nil {
		return err
	}
	if reason == ledger.StopConflict && live.State == gatekeep.PROpen && live.Mergeable == nil {
		if live, err = p.pollMergeable(ctx, pr); err != nil {
			return err
		}
	}
	if live.Merged && live.BaseRef == e.spec.Base {
		n, c := p.merged(ctx, e, pr, live)
		return p.apply(e, n, c)
	}
	why := resolvedOnGitHub(reason, pr, live, e.spec.Base)
	if why == "" || !stopNames(e, pr) {
		return nil
	}
	n, c := gatekeep.Resumed(e.l, pr, why)
	return p.apply(e, n, c)
}

// stopNames reports whether e's stop is about pr. A coordinated entry's
// stop is shared by its legs and names the leg pull request it is about;
// another leg's pull request being open, free of conflicts or on its base
// resolves nothing. An entry of one pull request is always about it.
func stopNames(e *entry, pr gatekeep.PR) bool {
	if e.leg == nil {
		return true
	}
	_, detail, _ := e.l.Stop()
	return strings.Contains(detail, pr.String())
}

// resolvedOnGitHub says how a person resolved a pull-request stop on
// GitHub (a reopened pull request, a resolved conflict, a base pointed
// back at the spec's), or "" when the stop still holds.
func resolvedOnGitHub(reason ledger.StopReason, pr gatekeep.PR, live githubapi.PullRequest, base string) string {
	open := live.State == gatekeep.PROpen
	switch {
	case (reason == ledger.StopClosed || reason == ledger.StopLegClosed) && open:
		return pr.String() + " was reopened"
	case reason == ledger.StopConflict && live.Mergeable != nil && *live.Mergeable:
		return fmt.Sprintf("GitHub reports %s free of conflicts again", pr)
	case reason == ledger.StopRetargeted && open && live.BaseRef == base:
		return fmt.Sprintf("%s targets %s again", pr, base)
	}
	return ""
}

// mergedIntoBase reports whether a chain milestone is delivered: its pull
// request is, according to GitHub now, merged into the chain's base, and
// the base contains the merge commit — or it ended with nothing to
// deliver. A local `done` is not enough: it would also describe a pull
// request merged elsewhere.
func (p *passState) mergedIntoBase(ctx context.Context, spec string, l *ledger.Ledger) (bool, string) {
	if l.View == "" && len(l.Delivery.Legs()) > 0 {
		return p.legsMergedIntoBase(ctx, spec, l)
	}
	if gatekeep.NothingDelivered(l) {
		return true, ""
	}
	pr, ok := prOf(l)
	if !ok {
		return false, spec + " is done without a recorded pull request"
	}
	sp := p.repo.Specs[spec]
	base := p.cfg.Defaults.Base
	if sp != nil {
		base = sp.Base
	}
	live, err := p.GitHub.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err != nil {
		return false, fmt.Sprintf("could not confirm that %s is merged: %v", pr, err)
	}
	if !live.Merged {
		return false, fmt.Sprintf("waits for %s (%s) to be merged; GitHub reports it %s", pr, spec, live.State)
	}
	if live.BaseRef != base {
		return false, fmt.Sprintf("%s was merged into %s, not the chain's base %s", pr, live.BaseRef, base)
	}
	cmp, err := p.GitHub.Compare(ctx, pr.Repo, live.MergeCommitSHA, base)
	if err != nil {
		return false, fmt.Sprintf("could not confirm that %s contains %s: %v", base, short(live.MergeCommitSHA), err)
	}
	if !cmp.Status.Contains() {
		return false, fmt.Sprintf("%s does not contain the merge commit %s of %s", base, short(live.MergeCommitSHA), pr)
	}
	return true, ""
}

// steerers returns the lower-cased logins among the pull request's
// reviewers and commenters whose text counts as feedback: the configured
// reviewer, and people GitHub reports as having write or admin access to
// the target. A drive-by comment can neither start a round nor unlabel a
// ready pull request. Permissions are read once per login per pass.
func (p *passState) steerers(ctx context.Context, repo string, d gatekeep.Digest, self string) (map[string]bool, error) {
	out := map[string]bool{}
	check := func(login string) error {
		key := strings.ToLower(login)
		if _, seen := out[key]; seen || login == "" || strings.EqualFold(login, self) {
			return nil
		}
		if rc := p.cfg.Reviewer; rc != nil && strings.EqualFold(rc.Login, login) {
			out[key] = true
			return nil
		}
		if p.perms == nil {
			p.perms = map[string]githubapi.Permission{}
		}
		perm, ok := p.perms[repo+" "+key]
		if !ok {
			var err error
			if perm, err = p.GitHub.Permission(ctx, repo, login); err != nil {
				return err
			}
			p.perms[repo+" "+key] = perm
		}
		out[key] = perm.Writes()
		return nil
	}
	for _, r := range d.Reviews {
		if err := check(r.User); err != nil {
			return nil, err
		}
	}
	for _, c := range d.Comments {
		if err := check(c.User); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// short is a commit's 7-character abbreviation, as people read it.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
