package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// A pass's state and its walk of one entry, whatever the phase: the
// checks every entry gets (spec gone, illegal, broken ledger, tampered,
// stopped, requests) and step, which picks the entry's next transition and
// hands it to the row loop (rowloop.go) or to the pull-request phases
// (delivery.go). The pass itself is driven by Reconciler.Pass
// (reconcile.go).

type passState struct {
	// dispatchID makes this pass's dispatch commits its own (newDispatchID).
	dispatchID string
	// replan is what the Pass's earlier attempts observed (replan.go).
	replan *replan
	// Options are the reconciler's, read directly: the pass's dependencies
	// (GitHub, the store, the executor, the log) are its own fields.
	Options
	r    *Reconciler
	cfg  *specs.Config
	repo *ledger.Repo
	rep  *Report
	// now is when the pass began: the one reference point for judgments
	// made while planning. Records use clock() instead.
	now time.Time
	// outcomes holds what a synchronous executor reported this pass, keyed
	// by outcomeKey, for settling the same dispatch in the same pass.
	outcomes map[string]agent.Outcome
	// login is gallivant's own GitHub login, read once per pass.
	login string
	// tails keeps the output tail of a verification that failed this pass,
	// for the repair's brief.
	tails map[string]string
	// perms caches each author's permission on a repository for the pass,
	// keyed repo + " " + lower-cased login.
	perms map[string]githubapi.Permission
	// sched runs agents of different entries at once (schedule.go); nil
	// runs them one at a time. aborted and halt end the pass early.
	sched   *scheduler
	aborted error
	halt    bool
	// legPassed records the head on which a coordinated member's pull
	// request passed its gate this pass, keyed by entry.key().
	legPassed map[string]string
	// versions is the pass's one walk for the tampered check (tamper.go).
	versions *store.LedgerVersions
	// docs holds the pass's documents by path, for quiet marks (quiet.go).
	docs map[string][]byte
	// env is what the pass knows of the agents' environment (envfail.go).
	env agentEnv
	// ctx is the pass's context, for the store reads of methods that are
	// not handed one (begin sets it).
	ctx context.Context
}

// entry is one spec and its ledger.
type entry struct {
	specPath   string
	spec       *specs.Spec // nil when the spec is gone
	ledgerPath string
	l          *ledger.Ledger // nil before seeding
	// leg is set on one member's view of a coordinated entry (legs.go).
	leg *legOf
	// push is an adopted fork's repository, holding the work branch
	// (adoptfork.go); pushRead: it was read this pass.
	push     string
	pushRead bool
}

func (p *passState) entries() []*entry {
	var out []*entry
	seen := map[string]bool{}
	for _, sp := range p.repo.SpecPaths() {
		seen[sp] = true
		e := &entry{specPath: sp, spec: p.repo.Specs[sp], l: p.repo.Ledgers[sp]}
		e.ledgerPath = p.repo.LedgerPaths[sp]
		if e.ledgerPath == "" {
			e.ledgerPath = p.cfg.LedgerPath(sp)
		}
		out = append(out, e)
	}
	// A chain's milestones go in chain order, so that a milestone merged
	// this pass lets its successor start in the same pass.
	key := func(e *entry) (string, int) {
		if cp, ok := p.repo.ChainOf[e.specPath]; ok {
			return cp.Chain.Milestones[0].Path, cp.K
		}
		return e.specPath, 0
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, ak := key(out[i])
		b, bk := key(out[j])
		if a != b {
			return a < b
		}
		return ak < bk
	})
	var orphans []string
	for lp, sp := range p.repo.Orphans {
		if !seen[sp] {
			orphans = append(orphans, lp)
		}
	}
	sort.Strings(orphans)
	for _, lp := range orphans {
		sp := p.repo.Orphans[lp]
		out = append(out, &entry{specPath: sp, ledgerPath: lp, l: p.orphanLedger(lp)})
	}
	return out
}

// orphanLedger re-reads a ledger whose spec is gone, so it can be stopped.
func (p *passState) orphanLedger(path string) *ledger.Ledger {
	data, ok, err := p.Store.ReadFile(p.ctx, p.Store.Tip(), path)
	if err != nil || !ok {
		return nil
	}
	l, ds := ledger.Parse(path, data)
	if ledger.Fatal(ds) {
		return nil
	}
	return l
}

// clock reads the time of an event the pass records: a long pass (an agent
// run takes minutes) must not date its later records at its start, or
// another reconciler would judge a fresh dispatch as long overdue.
func (p *passState) clock() time.Time { return p.Clock().UTC() }

// inFlight reports whether a dispatch that started at dispatched may still
// be running somewhere: its executor's timeout and the grace period have
// not both passed. A pass that did not run the agent itself never calls
// such a dispatch over.
func (p *passState) inFlight(dispatched time.Time) bool {
	return !p.clock().After(dispatched.Add(p.cfg.Executor.Timeout + p.cfg.Executor.Grace))
}

func (p *passState) note(spec string, problem bool, format string, args ...any) {
	p.rep.Notes = append(p.rep.Notes, Note{Spec: spec, Message: fmt.Sprintf(format, args...), Problem: problem})
}

// noteOnce is note for a fact several entries or steps of one pass may
// meet (a full disk, a stranger's comments read twice): the pass reports
// it once.
func (p *passState) noteOnce(spec string, problem bool, format string, args ...any) {
	n := Note{Spec: spec, Message: fmt.Sprintf(format, args...), Problem: problem}
	for _, had := range p.rep.Notes {
		if had == n {
			return
		}
	}
	p.rep.Notes = append(p.rep.Notes, n)
}

func (p *passState) crash(point string) error {
	if p.Crash == nil {
		return nil
	}
	if err := p.Crash(point); err != nil {
		return fmt.Errorf("%w at %s: %w", errCrash, point, err)
	}
	return nil
}

// apply commits one transition of e's ledger.
func (p *passState) apply(e *entry, n *ledger.Ledger, c ledger.Commit) error {
	if e.leg != nil {
		return p.applyLeg(e, n, c)
	}
	p.oweNotifications(e.l, n) // in the transition's own commit: owed exactly when it happened
	return p.record(e, n, c)
}

// record commits n, a transition of e's ledger that owes no notification
// of its own (apply's, and Notify's record of deliveries).
func (p *passState) record(e *entry, n *ledger.Ledger, c ledger.Commit) error {
	t := Transition{Spec: e.specPath, Ledger: e.ledgerPath, Subject: c.Subject, Sentence: c.Sentence}
	if !p.DryRun {
		extra := []ledger.Trailer{{Key: ledger.TrailerSpec, Value: e.specPath}, {Key: ledger.TrailerControl, Value: p.rep.Control}}
		if at := n.Delivery.DispatchedAt; !at.IsZero() && (e.l == nil || !at.Equal(e.l.Delivery.DispatchedAt)) {
			// A write-ahead dispatch: its commit must be this pass's own.
			extra = append(extra, ledger.Trailer{Key: ledger.TrailerDispatch, Value: p.dispatchID})
		}
		msg := c.Message(extra...)
		sha, err := p.Store.Commit(p.ctx, e.ledgerPath, ledger.Format(n), msg, p.clock())
		if err != nil {
			return err
		}
		t.Commit = sha
		p.Log.Info("transition", "spec", e.specPath, "subject", c.Subject, "commit", short(sha))
	}
	p.rep.Transitions = append(p.rep.Transitions, t)
	e.l = n
	if e.spec != nil {
		// Later entries of this pass (a chain's next milestone) see it.
		p.repo.Ledgers[e.specPath] = n
	}
	return p.crash("commit")
}

// push publishes the pass's commits.
func (p *passState) push(ctx context.Context) error {
	if p.DryRun {
		return nil
	}
	if !p.Store.Unpushed() {
		p.rep.pushed = len(p.rep.Transitions)
		return nil
	}
	if err := p.crash("push:before"); err != nil {
		return err
	}
	if err := p.Store.Push(ctx); err != nil {
		if !p.Store.PushLanded(ctx, err) {
			return err
		}
		// The push landed and its answer was lost (a 502, a reset): the
		// branch holds the pass's commits, and the pass goes on.
		p.Log.Warn("the control push landed although its answer failed", "error", err.Error())
	}
	p.rep.pushed = len(p.rep.Transitions)
	return p.crash("push:after")
}

func (p *passState) settings() ledger.Settings {
	return ledger.Settings{EscalateAfter: p.cfg.Defaults.EscalateAfter, EscalationModel: p.cfg.Executor.EscalationModel, Allowance: p.cfg.Defaults.Allowance}
}

// maxSteps bounds the transitions one entry makes in one pass, a guard
// against a rule that never settles.
const maxSteps = 24

// entry evaluates one entry and performs its due transitions.
func (p *passState) entry(ctx context.Context, e *entry) error {
	if e.spec == nil {
		return p.specGone(e)
	}
	switch e.spec.Status {
	case specs.StatusDraft, specs.StatusPaused:
		// Like Flux's suspend: no reads, no writes.
		return nil
	case specs.StatusCancelled:
		if e.l != nil {
			p.note(e.specPath, false, "cancelled: no further transition")
		}
		return nil
	}
	if path, broken := p.brokenLedger(e); broken {
		p.note(e.specPath, true, "ledger %s has grammar errors (gallivant check); the entry is skipped until it is repaired", path)
		return nil
	}
	if p.repo.Invalid[e.specPath] {
		return p.specIllegal(e)
	}
	if e.l == nil {
		if err := p.seed(ctx, e); err != nil || e.l == nil {
			return err
		}
	}
	if _, err := p.tampered(e); err != nil {
		return err
	}
	if err := p.autoResume(ctx, e); err != nil {
		return err
	}
	if err := p.observeStopped(ctx, e); err != nil {
		return err
	}
	if err := p.requests(ctx, e); err != nil {
		return err
	}
	if err := p.commands(ctx, e); err != nil {
		return err
	}
	if p.pausedHold(e) {
		return nil
	}
	if err := p.resolvePush(ctx, e); err != nil {
		return err
	}
	for step := 0; step < maxSteps; step++ {
		res, err := p.step(ctx, e)
		if err != nil {
			return err
		}
		if res.kind == stepWaiting {
			p.note(e.specPath, false, "%s", res.why)
		}
		if !res.more() {
			return nil
		}
	}
	p.note(e.specPath, true, "the entry made %d transitions in one pass and was paused until the next", maxSteps)
	return nil
}

func (p *passState) brokenLedger(e *entry) (string, bool) {
	for lp, sp := range p.repo.Broken {
		if sp == e.specPath || lp == e.ledgerPath {
			return lp, true
		}
	}
	return "", false
}

// stopUnlessStopped records a stop once.
func (p *passState) stopUnlessStopped(e *entry, reason ledger.StopReason, detail string) error {
	if r, _, stopped := e.l.Stop(); stopped && r == reason {
		return nil
	}
	n, c := ledger.Stop(e.l, reason, detail, 0)
	return p.apply(e, n, c)
}

func (p *passState) specGone(e *entry) error {
	if e.l == nil {
		return nil
	}
	return p.stopUnlessStopped(e, ledger.StopSpecGone, fmt.Sprintf("%s no longer exists at %s", e.specPath, short(p.rep.Control)))
}

func (p *passState) specIllegal(e *entry) error {
	if e.l == nil {
		p.note(e.specPath, true, "the spec has errors (gallivant check); it is not seeded")
		return nil
	}
	return p.stopUnlessStopped(e, ledger.StopSpecIllegal, fmt.Sprintf("%s has grammar errors at %s", e.specPath, short(p.rep.Control)))
}

// autoResume clears stops whose condition was a document and no longer
// holds: the spec is back, valid again, or its contract was reverted; and
// an interrupted stop whose return arrived after all.
func (p *passState) autoResume(ctx context.Context, e *entry) error {
	reason, _, stopped := e.l.Stop()
	if !stopped {
		return nil
	}
	why := ledger.DocumentResume(e.l, e.spec.Contract().Fingerprint())
	if reason == ledger.StopInterrupted {
		var err error
		if why, err = p.interruptedReturn(ctx, e); err != nil {
			return err
		}
	}
	if why == "" {
		return nil
	}
	n, c, err := ledger.Resumed(e.l, why)
	if err != nil {
		return err
	}
	return p.apply(e, n, c)
}

// interruptedReturn is why an interrupted stop no longer holds, or "". The
// stop says the run ended without a return. An agent that outlived its
// reconciler can still deliver one (pushed by this pass when its checkout
// is in this cache, or by another machine's): then the stop no longer
// holds and the return is settled like any other. A dispatch another
// reconciler called over, whose run record here proves its agent never
// answered, is rerun.
func (p *passState) interruptedReturn(ctx context.Context, e *entry) (string, error) {
	if e.l.Pending == nil || p.DryRun || ledger.ResumeAsked(e.l) {
		// A person who asked already gets the same check from the
		// request, which consumes the request line.
		return "", nil
	}
	rc, err := p.recoverRun(ctx, e)
	if err != nil {
		return "", err
	}
	arrived, err := p.returnArrived(ctx, e)
	if err != nil {
		return "", err
	}
	if arrived {
		return "the return of the interrupted dispatch arrived on the work branch", nil
	}
	delete(p.outcomes, outcomeKey(e.ledgerPath, *e.l.Pending))
	if rc.Known && rc.Running == 0 && rc.Outcome.Commits == 0 && e.l.Delivery.Reruns < ledger.MaxReruns {
		// Another reconciler, which could not see this cache's run
		// record, called the dispatch over; the record proves its agent
		// never answered: the loop reruns it itself, exactly as it would
		// have before the stop.
		n, c := ledger.Rerun(e.l, p.clock())
		if err := p.withRowLessons(e, n, &c); err != nil {
			return "", err
		}
		if err := p.apply(e, n, c); err != nil {
			return "", err
		}
		return "", p.run(ctx, e)
	}
	return "", nil
}

// chainGate reports whether a chain milestone may start, and why not
// (chainHold, then GitHub's word on the predecessor's merge).
func (p *passState) chainGate(ctx context.Context, e *entry) (bool, string) {
	cp, ok := p.repo.ChainOf[e.specPath]
	if !ok {
		return true, ""
	}
	f := chainFacts{Pos: cp, Seeded: e.l != nil}
	if cp.K > 1 {
		for _, m := range cp.Chain.Milestones[:cp.K-1] {
			if msg := p.repo.ChainChanged(m.Path); msg != "" {
				f.Changed = msg
				break
			}
		}
		prev := cp.Chain.Milestones[cp.K-2].Path
		f.Prev, f.PrevLedger = p.repo.Specs[prev], p.repo.Ledgers[prev]
	}
	held, why, merge := chainHold(f)
	if held {
		return false, why
	}
	if !merge {
		return true, ""
	}
	prev := cp.Chain.Milestones[cp.K-2].Path
	return p.mergedIntoBase(ctx, prev, f.PrevLedger)
}

// requests performs every accepted request in order and reports the rest.
func (p *passState) requests(ctx context.Context, e *entry) error {
	for round := 0; round < 16; round++ {
		applied, err := p.nextRequest(ctx, e)
		if err != nil {
			return err
		}
		if !applied {
			break
		}
	}
	for _, rs := range e.l.RequestStates() {
		if rs.Err == nil && rs.Refusal != "" {
			p.rep.Refusals = append(p.rep.Refusals, Refusal{Spec: e.specPath, Ledger: e.ledgerPath, Request: rs.Request.Line, Reason: rs.Refusal})
		}
	}
	return nil
}

// nextRequest performs the first accepted request the ledger's transition
// admits, reporting the malformed and refused ones before it; applied is
// false when none was.
func (p *passState) nextRequest(ctx context.Context, e *entry) (applied bool, err error) {
	for _, rs := range e.l.RequestStates() {
		if rs.Err != nil {
			p.rep.Refusals = append(p.rep.Refusals, Refusal{Spec: e.specPath, Ledger: e.ledgerPath, Request: rs.Request.Line, Reason: "malformed: " + rs.Err.Error(), Malformed: true})
			continue
		}
		if rs.Refusal != "" {
			continue
		}
		n, c, err := p.requestTransition(e, rs.Request)
		var rf *ledger.Refusal
		if errors.As(err, &rf) {
			p.rep.Refusals = append(p.rep.Refusals, Refusal{Spec: e.specPath, Ledger: e.ledgerPath, Request: rf.Request, Reason: rf.Reason})
			continue
		}
		if err != nil {
			return false, err
		}
		interrupted := e.l.Pending != nil && n.Pending != nil
		if err := p.apply(e, n, c); err != nil {
			return false, err
		}
		if interrupted && rs.Request.Kind == ledger.RequestResume {
			return true, p.resumeInterrupted(ctx, e)
		}
		return true, nil
	}
	return false, nil
}

// requestTransition is the transition of one accepted request: a
// resnapshot amends the ledger to the spec as it is now; every other
// request is the ledger's own.
func (p *passState) requestTransition(e *entry, r ledger.Request) (*ledger.Ledger, ledger.Commit, error) {
	if r.Kind != ledger.RequestResnapshot {
		return ledger.ApplyRequest(e.l, r, p.clock())
	}
	approved, err := p.approvedSpec(e)
	if err != nil {
		return nil, ledger.Commit{}, err
	}
	return ledger.Amend(e.l, approved, e.spec, p.rep.Control, r)
}

// resumeInterrupted runs the dispatch of an interrupted stop again, as
// `resume` asked: the resume's commit is its write-ahead record. A return
// that arrived meanwhile (an orphaned agent's, pushed late) is admitted
// instead of running the attempt twice: a live orphan is waited for and
// its commit admitted; an orphan that ended without one is run again.
func (p *passState) resumeInterrupted(ctx context.Context, e *entry) error {
	rc, err := p.recoverRun(ctx, e)
	if err != nil {
		return err
	}
	arrived := rc.Running > 0 || rc.Outcome.Commits > 0
	if rc.Known && !arrived {
		delete(p.outcomes, outcomeKey(e.ledgerPath, *e.l.Pending))
	}
	if !arrived {
		if arrived, err = p.returnArrived(ctx, e); err != nil {
			return err
		}
	}
	if arrived {
		return nil
	}
	return p.run(ctx, e)
}

// step performs the next transition of the row loop, or reports that the
// entry is done for this pass.
func (p *passState) step(ctx context.Context, e *entry) (stepResult, error) {
	a := ledger.Next(e.l, p.settings())
	switch a.Kind {
	case ledger.ActNone:
		return finished, nil
	case ledger.ActSettle:
		return p.settle(ctx, e)
	case ledger.ActMigrate:
		n, c := ledger.MigrateAllowance(e.l, p.cfg.Defaults.Allowance)
		return progressed, p.apply(e, n, c)
	case ledger.ActStop:
		n, c := ledger.Stop(e.l, a.Reason, a.Detail, a.Target)
		return progressed, p.apply(e, n, c)
	case ledger.ActEscalate:
		if changed, err := p.contractChanged(e); changed || err != nil {
			return stopped, err
		}
		n, c := ledger.Escalate(e.l, a.Target, a.Model)
		return progressed, p.apply(e, n, c)
	case ledger.ActDispatch:
		if changed, err := p.contractChanged(e); changed || err != nil {
			return stopped, err
		}
		if res, held := p.holdForChain(ctx, e, "dispatched"); held {
			// Chains hold at every phase, whenever the milestone was
			// seeded (a spec seeded before it was chained included).
			return res, nil
		}
		if p.r.draining.Load() {
			return waitFor("dispatch left for the next pass: gallivant is stopping"), nil
		}
		if why, held := p.agentsHeld(ctx, e); held {
			return waitFor("%s", why), nil
		}
		if res, handled, err := p.waveStep(ctx, e); handled || err != nil {
			// A waves spec's tasks run before its rows (waves.go).
			return res, err
		}
		return p.dispatch(ctx, e, a)
	case ledger.ActVerify:
		// The pull-request phases may start a review round's agent.
		if p.r.draining.Load() {
			return waitFor("pull request left for the next pass: gallivant is stopping"), nil
		}
		return p.deliver(ctx, e)
	}
	return finished, fmt.Errorf("unknown action %v", a.Kind)
}

// member returns a member's repository and base commit.
func (p *passState) member(e *entry, m string) (repo, base string) {
	repo, _ = e.spec.MemberRepo(m)
	if e.push != "" && m == specs.HomeMember {
		repo = e.push
	}
	base = e.l.Base
	if mm, ok := e.l.MemberMeta(m); ok {
		base = mm.Base
	}
	return repo, base
}

func (p *passState) branch(e *entry) string { return e.l.WorkBranch() }

// stepResult says what one step of an entry did, so that the entry's loop
// knows whether to evaluate it again and what to tell a person.
type stepResult struct {
	kind stepKind
	// why is what a waiting entry waits for; the pass notes it.
	why string
}

// stepKind tells step results apart.
type stepKind int

const (
	// stepProgressed: a transition was committed; the entry is evaluated
	// again.
	stepProgressed stepKind = iota
	// stepWaiting: nothing is due until something outside changes; why
	// says what.
	stepWaiting
	// stepStopped: the entry stopped; the stop is committed.
	stepStopped
	// stepFinished: nothing more for this entry in this pass (nothing due,
	// or a dry run that only reports).
	stepFinished
)

var (
	progressed = stepResult{kind: stepProgressed}
	stopped    = stepResult{kind: stepStopped}
	finished   = stepResult{kind: stepFinished}
)

// waitFor is a waiting result; its text becomes the pass's note.
func waitFor(format string, args ...any) stepResult {
	return stepResult{kind: stepWaiting, why: fmt.Sprintf(format, args...)}
}

// more reports whether the entry's loop evaluates the entry again.
func (r stepResult) more() bool { return r.kind == stepProgressed }
