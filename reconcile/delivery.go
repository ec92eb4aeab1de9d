package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// deliveryClient is what the pull-request phases need from GitHub.
type deliveryClient interface {
	digestReader
	CurrentUser(ctx context.Context) (string, error)
	FindPullRequest(ctx context.Context, repo, head, base string) (PullRequest, bool, error)
	CreatePullRequest(ctx context.Context, repo, head, base, title, body string) (PullRequest, error)
	EditPullRequestBody(ctx context.Context, repo string, number int, body string) error
	EnsureComment(ctx context.Context, repo string, number int, marker, body string) (bool, error)
	AddLabel(ctx context.Context, repo string, number int, label string) error
	RemoveLabel(ctx context.Context, repo string, number int, label string) error
}

// Named GitHub writes whose consecutive failures are counted.
const (
	writeIdentity     = "identity"
	writeReadyLabel   = "ready-label"
	writeUnreadyLabel = "unready-label"
	writeRoundComment = "round-comment"
	writeReadyComment = "ready-comment"
	writeNudge        = "nudge"
)

// stuckAfter is how many consecutive failures of one named write stop an
// entry `stuck`: a constant, not a setting, so that a token that
// cannot write never loops forever and never stops on one bad minute.
const stuckAfter = 5

// deliver runs the pull-request phases of an entry whose rows are all
// closed: open the pull request, then watch and answer it until it merges.
func (p *passState) deliver(e *entry) (bool, error) {
	if e.spec.Coordinated() {
		p.note(e.specPath, false, "every row is closed; a coordinated spec's pull requests are opened by a person (docs/delivery.md)")
		return true, nil
	}
	switch e.l.Phase() {
	case ledger.PhaseImplement, ledger.PhaseVerify:
		return p.openPR(e)
	case ledger.PhaseReview, ledger.PhaseReady:
		return p.review(e)
	}
	return true, nil
}

// prOf returns the entry's recorded pull request.
func prOf(l *ledger.Ledger) (gatekeep.PR, bool) {
	v := l.Delivery.Get(ledger.KeyPR)
	if v == "" {
		return gatekeep.PR{}, false
	}
	pr, err := gatekeep.ParsePR(v, "")
	return pr, err == nil
}

func (p *passState) identity(e *entry) gatekeep.Identity {
	return gatekeep.IdentityFor(p.r.o.ControlRepo, e.specPath, e.ledgerPath, e.l)
}

// body composes gallivant's regions into a pull request body.
func (p *passState) body(e *entry, body string) string {
	return gatekeep.Compose(body, p.identity(e), gatekeep.ReceiptFor(e.l, e.spec))
}

// summary is the body gallivant opens a pull request with.
func summary(e *entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Delivers **%s** (`%s`), every acceptance criterion attested below.\n\n", e.spec.Title, e.specPath)
	b.WriteString("gallivant opened this pull request and answers review feedback and failing checks in\n")
	b.WriteString("rounds; a person merges it. The receipt and identity regions below are gallivant's.\n")
	return b.String()
}

func (p *passState) reviewerClock(committed time.Time) time.Time {
	rereview := time.Hour
	if rc := p.cfg.Reviewer; rc != nil {
		rereview = time.Duration(rc.RereviewMinutes) * time.Minute
	}
	return gatekeep.ReviewerClock(committed, p.now, rereview)
}

// openPR ensures a pull request from the work branch exists, with the
// identity block and the receipt written first, then records it. A pull
// request the ledger lost (a crash between creating and recording it) is
// found again by its branch.
func (p *passState) openPR(e *entry) (bool, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return false, err
	}
	repo, base, branch := e.spec.Repo, e.spec.Base, p.branch(e)
	head, ok, err := p.r.o.GitHub.BranchHead(p.ctx, repo, branch)
	if err != nil {
		return false, err
	}
	if !ok {
		n, c := ledger.Stop(e.l, "boundary", fmt.Sprintf("every row is closed but the work branch %s no longer exists in %s", branch, repo), 0)
		return false, p.apply(e, n, c)
	}
	found, ok, err := p.r.o.GitHub.FindPullRequest(p.ctx, repo, branch, base)
	if err != nil {
		return false, err
	}
	if ok && found.State == "closed" && !found.Merged {
		// An earlier pull request from this branch was closed unmerged; the
		// delivery gets a new one.
		ok = false
	}
	if ok {
		// Recovery trusts the branch only as far as the identity block
		// agrees: a pull request that names another entry is not ours.
		if id, err := gatekeep.ParseIdentity(found.Body); err == nil && (id.Spec != e.specPath || id.Ledger != e.ledgerPath) {
			p.note(e.specPath, true, "%s comes from %s but its identity block names %s; close it or fix its body, then the next pass opens or records the right one", found.Ref(), branch, id.Spec)
			return true, nil
		}
	}
	if p.r.o.DryRun {
		if ok {
			p.note(e.specPath, false, "would record pull request %s", found.Ref())
		} else {
			p.note(e.specPath, false, "would open a pull request from %s into %s in %s", branch, base, repo)
		}
		return true, nil
	}
	if ok && e.l.Delivery.Get(ledger.KeyPR) == found.Ref() && found.State == "open" {
		return p.reenter(e, found)
	}
	pr := found
	if ok {
		if want := p.body(e, found.Body); want != found.Body {
			if err := p.r.o.GitHub.EditPullRequestBody(p.ctx, repo, found.Number, want); err != nil {
				return p.writeFailed(e, writeIdentity, found.Ref(), err)
			}
		}
	} else {
		pr, err = p.r.o.GitHub.CreatePullRequest(p.ctx, repo, branch, base, e.spec.Title, p.body(e, summary(e)))
		if err != nil {
			return p.writeFailed(e, writeIdentity, repo+" "+branch, err)
		}
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = head
	}
	n := e.l.Clone()
	d := n.Delivery
	d.Set(ledger.KeyPhase, ledger.PhaseReview)
	d.Set(ledger.KeyPR, pr.Ref())
	d.Set(ledger.KeySince, gatekeep.Since{At: pr.CreatedAt.UTC().Truncate(time.Second)}.String())
	d.Set(ledger.KeyReceipt, gatekeep.ReceiptHash(gatekeep.ReceiptFor(e.l, e.spec)))
	d.SetInt(ledger.KeyRound, 0)
	d.Set(ledger.KeyRetry, "")
	p.restartClock(n, gatekeep.PR{Repo: repo, Number: pr.Number}, pr.HeadSHA)
	verb := "Opened"
	if ok {
		verb = "Recorded the existing"
	}
	return false, p.apply(e, n, ledger.Commit{Subject: "loop: open pr " + pr.Ref(),
		Sentence: fmt.Sprintf("%s pull request %s from %s into %s with the identity block and the receipt.", verb, pr.Ref(), branch, base),
		Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: pr.Ref()}, {Key: ledger.TrailerHead, Value: pr.HeadSHA}}})
}

// reenter puts an entry whose rows were reopened (an accepted spec change)
// back in review of the pull request it already has, keeping its rounds
// and cursors so that no answered feedback counts as new again.
func (p *passState) reenter(e *entry, live PullRequest) (bool, error) {
	pr := gatekeep.PR{Repo: live.Repo, Number: live.Number}
	for _, l := range live.Labels {
		if l == p.cfg.Labels.Ready {
			if err := p.r.o.GitHub.RemoveLabel(p.ctx, pr.Repo, pr.Number, l); err != nil {
				return p.writeFailed(e, writeUnreadyLabel, pr.String(), err)
			}
		}
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyPhase, ledger.PhaseReview)
	n.Delivery.Set(ledger.KeyRetry, "")
	p.restartClock(n, pr, live.HeadSHA)
	return false, p.commitPR(e, n, pr, live.HeadSHA, "loop: follow",
		fmt.Sprintf("Every row is closed again; the loop watches %s again at %s.", pr, short(live.HeadSHA)))
}

// commitPR commits a delivery transition of a pull request.
func (p *passState) commitPR(e *entry, n *ledger.Ledger, pr gatekeep.PR, head, subject, sentence string) error {
	ts := []ledger.Trailer{{Key: ledger.TrailerPR, Value: pr.String()}}
	if head != "" {
		ts = append(ts, ledger.Trailer{Key: ledger.TrailerHead, Value: head})
	}
	return p.apply(e, n, ledger.Commit{Subject: subject + " " + pr.String(), Sentence: sentence, Trailers: ts})
}

// writeFailed counts a failed named write: consecutive failures of
// the same write add up, another write starts its own count, and the fifth
// stops the entry `stuck` naming the write and what GitHub said. A rate
// limit or a cancelled pass is not the write's failure and is returned.
func (p *passState) writeFailed(e *entry, write, what string, werr error) (bool, error) {
	var rl *RateLimitedError
	if errors.As(werr, &rl) || p.ctx.Err() != nil {
		return false, werr
	}
	msg := strings.Join(strings.Fields(redact(werr.Error())), " ")
	count := 1
	if w, _, ok := strings.Cut(e.l.Delivery.Get(ledger.KeyRetry), " | "); ok {
		f := strings.Fields(w)
		if len(f) == 2 && f[0] == write {
			c, _ := strconv.Atoi(f[1])
			count = c + 1
		}
	}
	p.r.o.Log.Warn("github write failed", "spec", e.specPath, "write", write, "count", count, "error", msg)
	if count >= stuckAfter {
		n, c := ledger.Stop(e.l, "stuck", fmt.Sprintf("the %s write for %s failed %d times in a row; GitHub said: %s", write, what, count, msg), 0)
		n.Delivery.Set(ledger.KeyRetry, fmt.Sprintf("%s %d | %s", write, count, msg))
		return false, p.apply(e, n, c)
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyRetry, fmt.Sprintf("%s %d | %s", write, count, msg))
	return true, p.apply(e, n, ledger.Commit{Subject: "loop: write failed " + write,
		Sentence: fmt.Sprintf("The %s write for %s failed (%d of %d before a stuck stop): %s.", write, what, count, stuckAfter, strings.TrimSuffix(msg, "."))})
}

// landed resets a named write's failure count once it lands.
func (p *passState) landed(e *entry, write, what string) error {
	w, _, _ := strings.Cut(e.l.Delivery.Get(ledger.KeyRetry), " | ")
	if f := strings.Fields(w); len(f) != 2 || f[0] != write {
		return nil
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyRetry, "")
	return p.apply(e, n, ledger.Commit{Subject: "loop: write landed " + write,
		Sentence: fmt.Sprintf("The %s write for %s landed; its failure count is cleared.", write, what)})
}

// self is gallivant's own login, read once per pass.
func (p *passState) self() (string, error) {
	if p.login == "" {
		l, err := p.r.o.GitHub.CurrentUser(p.ctx)
		if err != nil {
			return "", err
		}
		p.login = l
	}
	return p.login, nil
}

// review watches a recorded pull request and performs what is due, in the
// order of lifecycle.md: settle a round, terminal states, an owed comment,
// a person's push, gallivant's body regions, mergeability, then the
// verdict — a round, the ready label, a nudge, or a stop.
func (p *passState) review(e *entry) (bool, error) {
	pr, ok := prOf(e.l)
	if !ok {
		n, c := ledger.Stop(e.l, "boundary", fmt.Sprintf("the ledger is in %s without a valid pr: line", e.l.Phase()), 0)
		return false, p.apply(e, n, c)
	}
	if e.l.Delivery.Get(ledger.KeyDispatchedAt) != "" {
		return p.settleRound(e, pr)
	}
	live, err := p.r.o.GitHub.GetPullRequest(p.ctx, pr.Repo, pr.Number)
	if err != nil {
		return false, err
	}
	switch {
	case live.Merged:
		return false, p.done(e, pr, live)
	case live.State == "closed":
		n, c := ledger.Stop(e.l, "closed", fmt.Sprintf("%s was closed without merging", pr), 0)
		return false, p.apply(e, n, c)
	}
	if owed := e.l.Delivery.Get(ledger.KeyOwed); owed != "" {
		return p.payOwed(e, pr, owed)
	}
	if live.HeadSHA != e.l.Delivery.Get(ledger.KeyHead) {
		return p.follow(e, pr, live)
	}
	if want := p.body(e, live.Body); want != live.Body {
		if p.r.o.DryRun {
			p.note(e.specPath, false, "would rewrite the identity block and receipt of %s", pr)
			return true, nil
		}
		if err := p.r.o.GitHub.EditPullRequestBody(p.ctx, pr.Repo, pr.Number, want); err != nil {
			return p.writeFailed(e, writeIdentity, pr.String(), err)
		}
		return false, p.landed(e, writeIdentity, pr.String())
	}
	cur, err := p.cursors(e)
	if err != nil {
		return false, err
	}
	d, err := FetchDigest(p.ctx, p.r.o.GitHub, pr, cur.Since.FetchFrom())
	if err != nil {
		return false, err
	}
	repolled := false
	if d.Mergeable == nil && d.State == "open" {
		again, err := p.pollMergeable(pr)
		if err != nil {
			return false, err
		}
		d.Mergeable, d.MergeState, repolled = again.Mergeable, strings.ToLower(again.MergeableState), true
	}
	self, err := p.self()
	if err != nil {
		return false, err
	}
	in := gatekeep.Input{Self: self, Repolled: repolled, Cursors: &cur,
		Gate: &gatekeep.GateInput{Identity: p.identity(e), Spec: e.spec, Ledger: e.l}}
	if p.cfg.Reviewer != nil {
		in.Reviewer = p.cfg.Reviewer.Login
	}
	v := gatekeep.Judge(d, in)
	if b, stop := v.LoopStop(); stop {
		n, c := ledger.Stop(e.l, b.Code, fmt.Sprintf("%s: %s", pr, b.Reason), 0)
		return false, p.apply(e, n, c)
	}
	if v.BlockedBy(gatekeep.BlockGate) {
		if changed, err := p.contractChanged(e); changed || err != nil {
			return false, err
		}
	}
	if fs := v.ForRound(); len(fs) > 0 {
		if e.l.Phase() == ledger.PhaseReady {
			return p.unready(e, pr, live.HeadSHA, "new feedback arrived after it was marked ready")
		}
		return p.round(e, pr, d, cur, fs)
	}
	switch v.Kind {
	case gatekeep.Mergeable:
		if e.l.Phase() == ledger.PhaseReady {
			p.note(e.specPath, false, "%s is ready; waits for a person to merge it", pr)
			return true, nil
		}
		return p.ready(e, pr, d)
	case gatekeep.Waiting:
		if done, err := p.silence(e, pr, d); done || err != nil {
			return done, err
		}
		p.note(e.specPath, false, "%s waits for %s", pr, strings.Join(v.Waits, "; "))
	default:
		p.note(e.specPath, false, "%s is %s", pr, v.Line())
	}
	return true, nil
}

// pollMergeable asks GitHub again, twice at most, for a mergeability it is
// still computing.
func (p *passState) pollMergeable(pr gatekeep.PR) (PullRequest, error) {
	return RepollMergeable(p.ctx, p.r.o.GitHub, pr, p.r.o.MergePoll, 2)
}

// RepollMergeable asks GitHub again for a pull request whose mergeability
// it is still computing, wait apart and at most times times, rather than a
// whole pass later (G-22). It returns the last read.
func RepollMergeable(ctx context.Context, c interface {
	GetPullRequest(ctx context.Context, repo string, number int) (PullRequest, error)
}, pr gatekeep.PR, wait time.Duration, times int) (PullRequest, error) {
	var live PullRequest
	for polls := 0; polls < times; polls++ {
		if err := sleepCtx(ctx, wait); err != nil {
			return live, err
		}
		var err error
		if live, err = c.GetPullRequest(ctx, pr.Repo, pr.Number); err != nil || live.Mergeable != nil {
			return live, err
		}
	}
	return live, nil
}

// cursors reads the four cursors from the ledger.
func (p *passState) cursors(e *entry) (gatekeep.Cursors, error) {
	since, err := gatekeep.ParseSince(e.l.Delivery.Get(ledger.KeySince))
	if err != nil {
		return gatekeep.Cursors{}, err
	}
	return gatekeep.Cursors{Since: since, Head: e.l.Delivery.Get(ledger.KeyHead),
		ChecksHead: e.l.Delivery.Get(ledger.KeyChecksHead), Receipt: e.l.Delivery.Get(ledger.KeyReceipt)}, nil
}

// setCursors writes cursors into a ledger's delivery section.
func setCursors(d *ledger.Delivery, c gatekeep.Cursors) {
	d.Set(ledger.KeySince, c.Since.String())
	d.Set(ledger.KeyHead, c.Head)
	d.Set(ledger.KeyChecksHead, c.ChecksHead)
	d.Set(ledger.KeyReceipt, c.Receipt)
}

// done records a merge.
func (p *passState) done(e *entry, pr gatekeep.PR, live PullRequest) error {
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyPhase, ledger.PhaseDone)
	n.Delivery.Set(ledger.KeyStop, "")
	n.Delivery.Set(ledger.KeyDispatchedAt, "")
	n.Delivery.Set(ledger.KeyOwed, "")
	return p.commitPR(e, n, pr, live.MergeCommitSHA, "loop: done",
		fmt.Sprintf("%s was merged into %s as %s.", pr, live.BaseRef, short(live.MergeCommitSHA)))
}

// follow handles a head the loop did not push: the head cursor
// follows it and the reviewer clock restarts; a ready entry leaves ready.
func (p *passState) follow(e *entry, pr gatekeep.PR, live PullRequest) (bool, error) {
	if e.l.Phase() == ledger.PhaseReady {
		return p.unready(e, pr, live.HeadSHA, "its head moved to "+short(live.HeadSHA))
	}
	if p.r.o.DryRun {
		p.note(e.specPath, false, "would follow the new head %s of %s", short(live.HeadSHA), pr)
		return true, nil
	}
	n := e.l.Clone()
	p.restartClock(n, pr, live.HeadSHA)
	return false, p.commitPR(e, n, pr, live.HeadSHA, "loop: follow",
		fmt.Sprintf("A push the loop did not make moved %s to %s; the reviewer clock restarts.", pr, short(live.HeadSHA)))
}

func (p *passState) restartClock(n *ledger.Ledger, pr gatekeep.PR, head string) {
	committed := time.Time{}
	if ci, err := p.r.o.GitHub.GetCommit(p.ctx, pr.Repo, head); err == nil {
		committed = ci.CommittedAt
	}
	n.Delivery.Set(ledger.KeyHead, head)
	n.Delivery.SetTime(ledger.KeyReviewerAsked, p.reviewerClock(committed))
	n.Delivery.Set(ledger.KeyNudged, "")
}

// unready removes the ready label first, then records leaving ready.
func (p *passState) unready(e *entry, pr gatekeep.PR, head, why string) (bool, error) {
	if p.r.o.DryRun {
		p.note(e.specPath, false, "would remove the %s label from %s: %s", p.cfg.Labels.Ready, pr, why)
		return true, nil
	}
	if err := p.r.o.GitHub.RemoveLabel(p.ctx, pr.Repo, pr.Number, p.cfg.Labels.Ready); err != nil {
		return p.writeFailed(e, writeUnreadyLabel, pr.String(), err)
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyPhase, ledger.PhaseReview)
	n.Delivery.Set(ledger.KeyRetry, "")
	if head != e.l.Delivery.Get(ledger.KeyHead) {
		p.restartClock(n, pr, head)
	}
	return false, p.commitPR(e, n, pr, head, "loop: unready",
		fmt.Sprintf("%s left ready (label %s removed): %s.", pr, p.cfg.Labels.Ready, why))
}

// ready applies the contract comparison and the completion gate (both
// passed in Judge's verdict), writes the ready label first, then records
// ready and owes the notification.
func (p *passState) ready(e *entry, pr gatekeep.PR, d gatekeep.Digest) (bool, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return false, err
	}
	if p.r.o.DryRun {
		p.note(e.specPath, false, "would label %s %s", pr, p.cfg.Labels.Ready)
		return true, nil
	}
	if err := p.r.o.GitHub.AddLabel(p.ctx, pr.Repo, pr.Number, p.cfg.Labels.Ready); err != nil {
		return p.writeFailed(e, writeReadyLabel, pr.String(), err)
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyPhase, ledger.PhaseReady)
	n.Delivery.Set(ledger.KeyRetry, "")
	n.Delivery.Set(ledger.KeyOwed, writeReadyComment+" "+d.HeadSHA)
	return false, p.commitPR(e, n, pr, d.HeadSHA, "loop: ready",
		fmt.Sprintf("%s passed the completion gate on %s and is labelled %s for a person to merge.", pr, short(d.HeadSHA), p.cfg.Labels.Ready))
}

// payOwed posts the comment an earlier transition owes: idempotent
// against its marker, so a post that reached GitHub under a failed response
// is never made twice. While it is owed, nothing else happens.
func (p *passState) payOwed(e *entry, pr gatekeep.PR, owed string) (bool, error) {
	write, arg, _ := strings.Cut(owed, " ")
	var marker, body, subject, sentence string
	switch write {
	case writeRoundComment:
		marker = Marker("round-" + arg)
		body = fmt.Sprintf("gallivant pushed round %s to `%s`, answering the feedback and failing checks since the last round.", arg, short(e.l.Delivery.Get(ledger.KeyHead)))
		if rc := p.cfg.Reviewer; rc != nil {
			body += fmt.Sprintf(" @%s, please review the new head.", rc.Login)
		}
		subject, sentence = "loop: announced round "+arg, fmt.Sprintf("Round %s of %s was announced on the pull request.", arg, pr)
	case writeReadyComment:
		marker = Marker("ready-" + arg)
		body = fmt.Sprintf("gallivant: `%s` is ready for a person to merge: checks are green on it, the reviewer is clear, and the receipt attests every acceptance criterion of `%s`.",
			short(arg), e.specPath)
		subject, sentence = "loop: announced ready", fmt.Sprintf("The ready notification for %s was posted once.", pr)
	default:
		n := e.l.Clone()
		n.Delivery.Set(ledger.KeyOwed, "")
		return false, p.commitPR(e, n, pr, "", "loop: announced "+write, fmt.Sprintf("An owed %s write gallivant does not know was dropped.", write))
	}
	if p.r.o.DryRun {
		p.note(e.specPath, false, "would post the owed %s on %s", write, pr)
		return true, nil
	}
	if _, err := p.r.o.GitHub.EnsureComment(p.ctx, pr.Repo, pr.Number, marker, body+"\n\n"+marker); err != nil {
		return p.writeFailed(e, write, pr.String(), err)
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyOwed, "")
	n.Delivery.Set(ledger.KeyRetry, "")
	return false, p.commitPR(e, n, pr, "", subject, sentence)
}

// round dispatches a review/fix round for new findings: the cursors move
// past what it answers, the round is recorded and pushed (write-ahead),
// then the executor gets a fix brief quoting the findings as data.
func (p *passState) round(e *entry, pr gatekeep.PR, d gatekeep.Digest, cur gatekeep.Cursors, fs []gatekeep.Finding) (bool, error) {
	k := e.l.Delivery.Int(ledger.KeyRound) + 1
	if k > p.cfg.Defaults.MaxRounds {
		n, c := ledger.Stop(e.l, "iterations", fmt.Sprintf("%s has new findings but %d rounds (defaults.max_rounds) are spent", pr, p.cfg.Defaults.MaxRounds), 0)
		return false, p.apply(e, n, c)
	}
	if changed, err := p.contractChanged(e); changed || err != nil {
		return false, err
	}
	m := gatekeep.MoveFor(fs)
	m.Head = d.HeadSHA
	m.Receipt = gatekeep.ReceiptHash(gatekeep.ReceiptFor(e.l, e.spec))
	for _, f := range fs {
		if f.Source == gatekeep.SourceCheck {
			m.ChecksHead = d.HeadSHA
		}
	}
	next, err := cur.Advance(m)
	if err != nil {
		return false, err
	}
	n := e.l.Clone()
	setCursors(n.Delivery, next)
	n.Delivery.SetInt(ledger.KeyRound, k)
	n.Delivery.SetTime(ledger.KeyDispatchedAt, p.clock())
	var lines []string
	for _, f := range fs {
		lines = append(lines, "- "+findingLine(f))
	}
	c := ledger.Commit{Subject: fmt.Sprintf("loop: round %d %s", k, pr),
		Sentence: fmt.Sprintf("Round %d of %d answers %s on %s.", k, p.cfg.Defaults.MaxRounds, plural(len(fs), "new finding"), short(d.HeadSHA)),
		Text:     strings.Join(lines, "\n"),
		Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: pr.String()}, {Key: ledger.TrailerHead, Value: d.HeadSHA}}}
	if err := p.apply(e, n, c); err != nil {
		return false, err
	}
	if p.r.o.DryRun {
		return true, nil
	}
	return false, p.runRound(e, pr, d, fs)
}

// findingLine is a finding's one-line audit entry: its source, id and
// author, never its untrusted text.
func findingLine(f gatekeep.Finding) string {
	clean := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	switch f.Source {
	case gatekeep.SourceCheck:
		return fmt.Sprintf("check %q %s", clean(f.Text), f.State)
	case gatekeep.SourceReview:
		return fmt.Sprintf("review %d by @%s (%s)", f.ID, f.Author, f.State)
	case gatekeep.SourceGate:
		return "completion gate " + f.Where
	}
	return fmt.Sprintf("comment %d by @%s at %s", f.ID, f.Author, clean(f.Where))
}

// roundKey names a round's executor outcome.
func roundKey(ledgerPath string, k int) string { return fmt.Sprintf("%s|round %d", ledgerPath, k) }

// runRound pushes the recorded round and hands it to the executor.
func (p *passState) runRound(e *entry, pr gatekeep.PR, d gatekeep.Digest, fs []gatekeep.Finding) error {
	if ro, ok := p.r.o.Executor.(recordOnly); ok && ro.RecordOnly() {
		return nil
	}
	if err := p.push(); err != nil {
		return err
	}
	k := e.l.Delivery.Int(ledger.KeyRound)
	brief := gatekeep.FixBrief(gatekeep.FixBriefInput{PR: pr, Spec: e.specPath, Title: e.spec.Title, LedgerPath: e.ledgerPath,
		Branch: p.branch(e), Base: e.spec.Base, Head: d.HeadSHA, Round: k, MaxRounds: p.cfg.Defaults.MaxRounds,
		Verification: e.l.Verification, Findings: fs})
	task := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: pr.Repo, Branch: p.branch(e), Base: d.HeadSHA, Round: k,
		Iteration: e.l.Iterations, Brief: brief, DefaultBranch: e.spec.Base}
	if p.r.o.CloneURL != nil {
		task.CloneURL = p.r.o.CloneURL(pr.Repo)
	}
	if err := p.crash("executor:before"); err != nil {
		return err
	}
	out, err := p.r.o.Executor.Run(p.ctx, task)
	if err != nil {
		return err
	}
	p.outcomes[roundKey(e.ledgerPath, k)] = out
	if out.Err != nil {
		p.r.o.Log.Warn("agent run failed", "spec", e.specPath, "round", k, "error", out.Err.Error(), "log", out.Log)
	}
	return p.crash("executor:after")
}

// settleRound observes the work branch after a round: a push settles it
// (counted, then announced); a run that ended without one charges nothing.
func (p *passState) settleRound(e *entry, pr gatekeep.PR) (bool, error) {
	k := e.l.Delivery.Int(ledger.KeyRound)
	fixed := e.l.Delivery.Get(ledger.KeyHead)
	branch := p.branch(e)
	out, ranHere := p.outcomes[roundKey(e.ledgerPath, k)]
	delete(p.outcomes, roundKey(e.ledgerPath, k))
	head, ok, err := p.r.o.GitHub.BranchHead(p.ctx, pr.Repo, branch)
	if err != nil {
		return false, err
	}
	if !ok {
		n, c := ledger.Stop(e.l, "boundary", fmt.Sprintf("the work branch %s of %s no longer exists", branch, pr), 0)
		return false, p.apply(e, n, c)
	}
	if head != fixed {
		cmp, err := p.r.o.GitHub.Compare(p.ctx, pr.Repo, fixed, head)
		if err != nil {
			return false, err
		}
		if cmp.Status != "ahead" {
			n, c := ledger.Stop(e.l, "boundary", fmt.Sprintf("the work branch %s was rewritten: it no longer contains %s", branch, short(fixed)), 0)
			return false, p.apply(e, n, c)
		}
		n := e.l.Clone()
		n.Delivery.Set(ledger.KeyDispatchedAt, "")
		n.Delivery.Set(ledger.KeyOwed, fmt.Sprintf("%s %d", writeRoundComment, k))
		p.restartClock(n, pr, head)
		return false, p.commitPR(e, n, pr, head, fmt.Sprintf("loop: pushed round %d", k),
			fmt.Sprintf("Round %d pushed %s to %s; its announcement is owed.", k, plural(len(cmp.Commits), "commit"), short(head)))
	}
	over := ranHere && out.Finished
	if dt := e.l.Delivery.Time(ledger.KeyDispatchedAt); !dt.IsZero() && p.now.After(dt.Add(p.cfg.Executor.Timeout)) {
		over = true
	}
	if !over {
		p.note(e.specPath, false, "waiting for round %d of %s (dispatched %s)", k, pr, e.l.Delivery.Get(ledger.KeyDispatchedAt))
		return true, nil
	}
	if ranHere && out.Err != nil {
		n, c := ledger.Stop(e.l, "harness-error", fmt.Sprintf("round %d of %s: %v (log %s)", k, pr, out.Err, out.Log), 0)
		return false, p.apply(e, n, c)
	}
	if ranHere && out.Dirty {
		n, c := ledger.Stop(e.l, "boundary", fmt.Sprintf("round %d of %s left uncommitted changes and pushed nothing", k, pr), 0)
		return false, p.apply(e, n, c)
	}
	// no push, no round charged.
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyDispatchedAt, "")
	n.Delivery.SetInt(ledger.KeyRound, k-1)
	return false, p.commitPR(e, n, pr, "", fmt.Sprintf("loop: empty round %d", k),
		fmt.Sprintf("Round %d of %s ended without a push; no round is charged and the loop watches again.", k, pr))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// silence acts on the reviewer clock (gatekeep.SilenceDue): the nudge is
// posted first (idempotent against its per-head marker), then recorded.
func (p *passState) silence(e *entry, pr gatekeep.PR, d gatekeep.Digest) (bool, error) {
	rc := p.cfg.Reviewer
	if rc == nil {
		return false, nil
	}
	asked := e.l.Delivery.Time(ledger.KeyReviewerAsked)
	switch gatekeep.SilenceDue(d, rc.Login, asked, e.l.Delivery.Get(ledger.KeyNudged), p.now,
		time.Duration(rc.RereviewMinutes)*time.Minute, time.Duration(rc.StallHours)*time.Hour) {
	case gatekeep.Stall:
		n, c := ledger.Stop(e.l, "reviewer-silent", fmt.Sprintf("@%s has not answered %s since %s (reviewer.stall_hours is %d)", rc.Login, pr, asked.Format(time.RFC3339), rc.StallHours), 0)
		return false, p.apply(e, n, c)
	case gatekeep.Quiet:
		return false, nil
	}
	if p.r.o.DryRun {
		p.note(e.specPath, false, "would nudge @%s on %s", rc.Login, pr)
		return true, nil
	}
	marker := Marker("nudge-" + d.HeadSHA)
	body := fmt.Sprintf("@%s, `%s` has been waiting for your review since %s.\n\n%s", rc.Login, short(d.HeadSHA), asked.Format(time.RFC3339), marker)
	if _, err := p.r.o.GitHub.EnsureComment(p.ctx, pr.Repo, pr.Number, marker, body); err != nil {
		return p.writeFailed(e, writeNudge, pr.String(), err)
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyNudged, d.HeadSHA)
	n.Delivery.Set(ledger.KeyRetry, "")
	return false, p.commitPR(e, n, pr, d.HeadSHA, "loop: nudge",
		fmt.Sprintf("Nudged @%s about %s once; the reviewer has been quiet since %s.", rc.Login, short(d.HeadSHA), asked.Format(time.RFC3339)))
}

// observeStopped watches the pull request of a stopped entry: a merge is
// recorded whatever the stop, and a conflict or close that a person
// resolved resumes the entry.
func (p *passState) observeStopped(e *entry) error {
	reason, _, stopped := e.l.Stop()
	pr, ok := prOf(e.l)
	if !stopped || !ok || e.spec == nil {
		return nil
	}
	switch e.l.Phase() {
	case ledger.PhaseReview, ledger.PhaseReady:
	default:
		return nil
	}
	live, err := p.r.o.GitHub.GetPullRequest(p.ctx, pr.Repo, pr.Number)
	if err != nil {
		return err
	}
	if reason == "conflict" && live.State == "open" && live.Mergeable == nil {
		if live, err = p.pollMergeable(pr); err != nil {
			return err
		}
	}
	why := ""
	switch {
	case live.Merged:
		return p.done(e, pr, live)
	case reason == "closed" && live.State == "open":
		why = pr.String() + " was reopened"
	case reason == "conflict" && live.Mergeable != nil && *live.Mergeable:
		why = fmt.Sprintf("GitHub reports %s free of conflicts again", pr)
	}
	if why == "" {
		return nil
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyStop, "")
	return p.apply(e, n, ledger.Commit{Subject: "loop: resume", Sentence: "Resumed: " + why + ".",
		Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: pr.String()}}})
}

// mergedIntoBase reports whether a chain milestone's pull request is,
// according to GitHub now, merged into the chain's base, and the base
// contains the merge commit. A local `done` is not enough: it would
// also describe a pull request merged elsewhere.
func (p *passState) mergedIntoBase(spec string, l *ledger.Ledger) (bool, string) {
	pr, ok := prOf(l)
	if !ok {
		return false, spec + " is done without a recorded pull request"
	}
	sp := p.repo.Specs[spec]
	base := p.cfg.Defaults.Base
	if sp != nil {
		base = sp.Base
	}
	live, err := p.r.o.GitHub.GetPullRequest(p.ctx, pr.Repo, pr.Number)
	if err != nil {
		return false, fmt.Sprintf("could not confirm that %s is merged: %v", pr, err)
	}
	if !live.Merged {
		return false, fmt.Sprintf("waits for %s (%s) to be merged; GitHub reports it %s", pr, spec, live.State)
	}
	if live.BaseRef != base {
		return false, fmt.Sprintf("%s was merged into %s, not the chain's base %s", pr, live.BaseRef, base)
	}
	cmp, err := p.r.o.GitHub.Compare(p.ctx, pr.Repo, live.MergeCommitSHA, base)
	if err != nil {
		return false, fmt.Sprintf("could not confirm that %s contains %s: %v", base, short(live.MergeCommitSHA), err)
	}
	if cmp.Status != "ahead" && cmp.Status != "identical" {
		return false, fmt.Sprintf("%s does not contain the merge commit %s of %s", base, short(live.MergeCommitSHA), pr)
	}
	return true, ""
}
