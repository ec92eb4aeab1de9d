package reconcile

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync/atomic"

	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// GitHubClient is what the reconciler needs from GitHub, every method
// listed: *GitHub implements it, and tests use the same adapter against the
// stand-in. Errors are classified as the adapter documents (a
// *RateLimitedError, *NotFoundError, *CredentialsError or *UnreachableError
// where the caller branches on them).
type GitHubClient interface {
	// CurrentUser is the token's login.
	CurrentUser(ctx context.Context) (string, error)
	// Permission reports a login's permission on a repository: "admin",
	// "write", "read" or "none". It decides whose text may steer the loop.
	Permission(ctx context.Context, repo, login string) (string, error)

	// BranchHead is a branch's head commit; ok is false when the branch
	// does not exist.
	BranchHead(ctx context.Context, repo, branch string) (sha string, ok bool, err error)
	CreateBranch(ctx context.Context, repo, branch, sha string) error
	// Compare lists the commits head has that base lacks.
	Compare(ctx context.Context, repo, base, head string) (Comparison, error)
	GetCommit(ctx context.Context, repo, sha string) (CommitInfo, error)

	GetPullRequest(ctx context.Context, repo string, number int) (PullRequest, error)
	// FindPullRequest finds the pull request from head into base, open or
	// not; ok is false when there is none.
	FindPullRequest(ctx context.Context, repo, head, base string) (pr PullRequest, ok bool, err error)
	CreatePullRequest(ctx context.Context, repo, head, base, title, body string) (PullRequest, error)
	EditPullRequestBody(ctx context.Context, repo string, number int, body string) error
	ReopenPullRequest(ctx context.Context, repo string, number int) error
	// MarkReadyForReview converts a draft (GraphQL; nodeID is the pull
	// request's global id).
	MarkReadyForReview(ctx context.Context, repo string, number int, nodeID string) error
	// UpdateBranch merges the base into the pull request's head branch
	// (a merge commit), only at expectedHead; ErrMergeConflict when they
	// conflict.
	UpdateBranch(ctx context.Context, repo string, number int, expectedHead string) error
	PullRequestFiles(ctx context.Context, repo string, number int) ([]string, error)
	Reviews(ctx context.Context, repo string, number int) ([]Review, error)
	IssueComments(ctx context.Context, repo string, number int, since time.Time) ([]Comment, error)
	ReviewComments(ctx context.Context, repo string, number int, since time.Time) ([]Comment, error)
	// GetChecks reads the check runs and statuses on sha, with what the
	// base branch requires.
	GetChecks(ctx context.Context, repo, sha, base string) (Checks, error)
	// HeldWorkflowRuns names the workflow runs on sha that GitHub holds
	// for a maintainer's approval (conclusion action_required).
	HeldWorkflowRuns(ctx context.Context, repo, sha string) ([]string, error)

	// EnsureComment posts body unless a comment of gallivant's own login
	// already carries marker; created reports a new comment.
	EnsureComment(ctx context.Context, repo string, number int, marker, body string) (created bool, err error)
	AddLabel(ctx context.Context, repo string, number int, label string) error
	RemoveLabel(ctx context.Context, repo string, number int, label string) error

	// ReadWorkflowDispatch reads what a workflow file on ref declares.
	ReadWorkflowDispatch(ctx context.Context, repo, workflow, ref string) (WorkflowDispatch, error)
	DispatchWorkflow(ctx context.Context, repo, workflow, ref string, inputs map[string]string) error
}

// Options configure a Reconciler.
type Options struct {
	Store    *Store
	GitHub   GitHubClient
	Executor Executor
	// Clock is the time source; time.Now when nil. It is read at every
	// event that records a time (a dispatch, a commit date, a request), so
	// that a record says when its event happened, not when the pass began.
	Clock func() time.Time
	Log   *slog.Logger
	// DryRun plans without applying: no commit, no push, no GitHub write,
	// no executor.
	DryRun bool
	// CloneURL maps owner/name to where git reaches it.
	CloneURL func(repo string) string
	// Crash, when set, is called at every step boundary of a pass (after
	// each commit, before and after each push, before and after each
	// executor run); a non-nil error aborts the pass there. Tests use it to
	// prove that a pass can die anywhere.
	Crash func(point string) error
	// PushAttempts bounds how often a pass re-plans after a rejected push;
	// 10 when 0.
	PushAttempts int
	// ControlRepo names the control repository (owner/name) in the
	// identity block of every pull request; "local/control" when empty.
	ControlRepo string
	// MergePoll is how long a pass waits before asking GitHub again for a
	// mergeability it is still computing; 2s when 0.
	MergePoll time.Duration
	// Shard, when set, limits every pass to the entries of one shard, so
	// that several reconcilers share one control repository in parallel.
	Shard Shard
}

// Reconciler runs passes over one control repository.
type Reconciler struct {
	o Options
	// draining is set once the process is stopping: passes start no new
	// executor run.
	draining atomic.Bool
	// docs are the control documents of the last pass, parsed.
	docs *parseCache
}

// Drain makes this and every later pass start no new agent: a dispatch or
// a pull request's delivery step that would run the executor is left due
// for the next process, with a note. Runs already started finish. A
// stopping daemon calls it on its first signal.
func (r *Reconciler) Drain() { r.draining.Store(true) }

// New returns a reconciler.
func New(o Options) *Reconciler {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.PushAttempts == 0 {
		o.PushAttempts = 10
	}
	if o.Executor == nil {
		o.Executor = NoneExecutor{}
	}
	if o.ControlRepo == "" {
		o.ControlRepo = "local/control"
	}
	if o.MergePoll == 0 {
		o.MergePoll = 2 * time.Second
	}
	return &Reconciler{o: o, docs: newParseCache()}
}

// Transition is one transition a pass performed (or, in a dry run, would).
type Transition struct {
	Spec     string `json:"spec"`
	Ledger   string `json:"ledger"`
	Subject  string `json:"subject"`
	Sentence string `json:"sentence"`
	Commit   string `json:"commit,omitempty"`
}

// Refusal is a request the current state does not accept.
type Refusal struct {
	Spec    string `json:"spec"`
	Ledger  string `json:"ledger"`
	Request string `json:"request"`
	Reason  string `json:"reason"`
}

// Note is something a pass wants a person to know about an entry: what it
// waits for, or why it could not act.
type Note struct {
	Spec    string `json:"spec"`
	Message string `json:"message"`
	// Problem marks a failure (GitHub unreachable, a broken ledger) as
	// opposed to an ordinary wait.
	Problem bool `json:"problem"`
}

// Report is what one pass did.
type Report struct {
	Control     string            `json:"control"`
	Transitions []Transition      `json:"transitions"`
	Refusals    []Refusal         `json:"refusals"`
	Notes       []Note            `json:"notes"`
	Diagnostics parse.Diagnostics `json:"diagnostics"`
	// Retries counts passes re-planned after a rejected push.
	Retries int `json:"retries"`
	// Uncommitted are files of an in-place control checkout that differ
	// from its committed tree: the pass planned without them.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Unrecorded are transitions the pass committed locally but could not
	// push before it failed: they are not on the control branch, and the
	// next pass plans them again.
	Unrecorded []Transition `json:"unrecorded,omitempty"`
	// Requests is what the pass asked GitHub and the budget left; nil
	// when the GitHub client does not count.
	Requests *RequestStats `json:"requests,omitempty"`
	// pushed counts the leading Transitions that reached the control
	// branch: a write-ahead dispatch pushes in the middle of a pass.
	pushed int
}

// Pass runs one reconcile pass: load the control repository at its head,
// observe GitHub, perform the due transitions as commits, and push with
// compare-and-swap. A rejected push re-plans from the new head, a bounded
// number of times. The error is non-nil only when the pass could not run;
// it matches ErrCredentials or ErrUnreachable when GitHub rejected the token
// or could not be reached, and the report then holds the transitions
// committed before that.
func (r *Reconciler) Pass(ctx context.Context) (rep *Report, err error) {
	defer r.account()(&rep)
	var retries int
	// Outcomes of executors that ran survive a re-plan: the agent's work is
	// on the work branch either way, and a re-planned pass must not think
	// the run is still going.
	outcomes := map[string]Outcome{}
	// landed holds the transitions earlier attempts pushed before they lost
	// a race: they are on the control branch, so they are reported even
	// though the re-planned attempt does not perform them again.
	var landed []Transition
	// doubtful are transitions an attempt committed but whose push was
	// rejected: a rejection can come after the remote took the commits
	// (a lost answer, a race on the answer), so the next attempt, which
	// fetched the branch, looks for them there before calling them lost.
	var doubtful []Transition
	for {
		rep, err := r.pass(ctx, outcomes)
		for _, t := range doubtful {
			if t.Commit != "" && r.o.Store.Landed(t.Commit) {
				landed = append(landed, t)
			}
		}
		doubtful = nil
		if rep == nil && len(landed) == 0 {
			// The pass could not start (the control fetch failed).
			return nil, err
		}
		if rep == nil {
			rep = &Report{Control: r.o.Store.Head()}
		}
		rep.Retries = retries
		if err != nil && !r.o.DryRun {
			// Only what reached the control branch was performed.
			rep.Unrecorded = rep.Transitions[rep.pushed:]
			rep.Transitions = rep.Transitions[:rep.pushed]
		}
		rep.Transitions = append(landed, rep.Transitions...)
		if !errors.Is(err, ErrPushRejected) || retries+1 >= r.o.PushAttempts {
			if err != nil && len(rep.Transitions) > 0 {
				r.o.Log.Warn("pass ended early; the transitions it pushed stand", "pushed", len(rep.Transitions), "error", err.Error())
			}
			return rep, err
		}
		landed = rep.Transitions
		doubtful = rep.Unrecorded
		retries++
		wait := time.Duration(20+rand.IntN(100<<min(retries, 5))) * time.Millisecond
		r.o.Log.Info("control branch moved; re-planning", "attempt", retries+1, "wait", wait.String())
		if err := sleepCtx(ctx, wait); err != nil {
			return rep, err
		}
	}
}

// pass is one attempt; its state lives in a passState.
func (r *Reconciler) pass(ctx context.Context, outcomes map[string]Outcome) (*Report, error) {
	st := r.o.Store
	if err := st.Sync(ctx); err != nil {
		return nil, err
	}
	p := &passState{Options: r.o, r: r, rep: &Report{Control: st.Head(), Uncommitted: st.Uncommitted()}, now: r.o.Clock().UTC(), outcomes: outcomes,
		dispatchID: newDispatchID()}
	data, ok, err := st.ReadFile(st.Head(), specs.ConfigFile)
	if err != nil {
		return p.rep, err
	}
	cfg := specs.DefaultConfig()
	if ok {
		var ds parse.Diagnostics
		cfg, ds = specs.ParseConfig(specs.ConfigFile, data)
		p.rep.Diagnostics = append(p.rep.Diagnostics, ds...)
		if ds.HasErrors() {
			return p.rep, fmt.Errorf("gallivant.yaml at %s has errors; fix them (gallivant check) before a pass can run", short(st.Head()))
		}
	}
	p.cfg = cfg
	files, repo, ds, err := r.docs.load(st, cfg, cfg.ScanDirs())
	if err != nil {
		return p.rep, err
	}
	p.rep.Diagnostics = append(p.rep.Diagnostics, ds...)
	p.docs = docsByPath(data, files)
	// Plans are checked without a target tree: the paths rule needs a
	// checkout and is gallivant check --target's.
	p.rep.Diagnostics = append(p.rep.Diagnostics, repo.CheckPlans(nil)...)
	p.repo = repo
	// fatal is a GitHub failure no entry can get past (rejected
	// credentials, GitHub unreachable): the pass stops at it, keeps what it
	// committed, and returns it as the pass's error.
	var fatal error
	if n := cfg.Executor.MaxParallel; n > 1 && !r.o.DryRun {
		p.sched = newScheduler(n, cfg.Executor.MaxParallelPerRepo)
	}
	entries := p.inShard(p.entries())
	p.observe(ctx, entries)
	p.forEntries(entries, func(e *entry) {
		if err := p.entry(ctx, e); err != nil && !errors.Is(err, errAborted) {
			if errors.Is(err, ErrPushRejected) || errors.Is(err, errCrash) || ctx.Err() != nil {
				p.abortWith(err)
				return
			}
			if errors.Is(err, ErrCredentials) || errors.Is(err, ErrUnreachable) {
				if fatal == nil {
					fatal = err
				}
				p.haltWith()
				return
			}
			var rl *RateLimitedError
			p.note(e.specPath, true, "%v", err)
			if errors.As(err, &rl) {
				// Every further request would fail the same way.
				p.haltWith()
			}
		}
	})
	if p.aborted != nil {
		return p.rep, p.aborted
	}
	if r.o.DryRun {
		return p.rep, fatal
	}
	if err := p.push(ctx); err != nil {
		return p.rep, err
	}
	return p.rep, fatal
}

// errCrash wraps an error returned by the Crash hook.
var errCrash = errors.New("pass aborted")

// passState is one pass's working state.
// newDispatchID is a random name for one pass's write-ahead dispatches
// (ledger.TrailerDispatch).
func newDispatchID() string {
	b := make([]byte, 6)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

type passState struct {
	// dispatchID makes this pass's dispatch commits its own (newDispatchID).
	dispatchID string
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
	outcomes map[string]Outcome
	// login is gallivant's own GitHub login, read once per pass.
	login string
	// tails keeps the output tail of a verification that failed this pass,
	// for the repair's brief.
	tails map[string]string
	// perms caches each author's permission on a repository for the pass,
	// keyed repo + " " + lower-cased login.
	perms map[string]string
	// sched runs agents of different entries at once (schedule.go); nil
	// runs them one at a time. aborted and halt end the pass early.
	sched   *scheduler
	aborted error
	halt    bool
	// legPassed records the head on which a coordinated member's pull
	// request passed its gate this pass, keyed by entry.key().
	legPassed map[string]string
	// versions is the pass's one walk for the tampered check (tamper.go).
	versions *LedgerVersions
	// docs holds the pass's documents by path, for quiet marks (quiet.go).
	docs map[string][]byte
}

// entry is one spec and its ledger.
type entry struct {
	specPath   string
	spec       *specs.Spec // nil when the spec is gone
	ledgerPath string
	l          *ledger.Ledger // nil before seeding
	// leg is set on one member's view of a coordinated entry (legs.go).
	leg *legOf
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
	data, ok, err := p.Store.ReadFile(p.Store.Tip(), path)
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
	t := Transition{Spec: e.specPath, Ledger: e.ledgerPath, Subject: c.Subject, Sentence: c.Sentence}
	p.oweNotifications(e.l, n) // in the transition's own commit: owed exactly when it happened
	if !p.DryRun {
		extra := []ledger.Trailer{{Key: ledger.TrailerSpec, Value: e.specPath}, {Key: ledger.TrailerControl, Value: p.rep.Control}}
		if at := n.Delivery.Get(ledger.KeyDispatchedAt); at != "" && (e.l == nil || at != e.l.Delivery.Get(ledger.KeyDispatchedAt)) {
			// A write-ahead dispatch: its commit must be this pass's own.
			extra = append(extra, ledger.Trailer{Key: ledger.TrailerDispatch, Value: p.dispatchID})
		}
		msg := c.Message(extra...)
		sha, err := p.Store.Commit(e.ledgerPath, ledger.Format(n), msg, p.clock())
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
		return err
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
	return p.stopUnlessStopped(e, "spec-gone", fmt.Sprintf("%s no longer exists at %s", e.specPath, short(p.rep.Control)))
}

func (p *passState) specIllegal(e *entry) error {
	if e.l == nil {
		p.note(e.specPath, true, "the spec has errors (gallivant check); it is not seeded")
		return nil
	}
	return p.stopUnlessStopped(e, "spec-illegal", fmt.Sprintf("%s has grammar errors at %s", e.specPath, short(p.rep.Control)))
}

// autoResume clears stops whose condition was a document and no longer
// holds: the spec is back, valid again, or its contract was reverted.
func (p *passState) autoResume(ctx context.Context, e *entry) error {
	reason, _, stopped := e.l.Stop()
	if !stopped {
		return nil
	}
	why := ""
	switch reason {
	case "spec-gone":
		why = "the spec exists again"
	case "spec-illegal":
		why = "the spec is valid again"
	case "spec-changed":
		if e.l.Delivery.Get(ledger.KeyContract) == e.spec.Contract().Fingerprint() {
			why = "the spec's contract is the approved one again"
		}
	case "interrupted":
		// The stop says the run ended without a return. An agent that
		// outlived its reconciler can still deliver one (pushed by this
		// pass when its checkout is in this cache, or by another
		// machine's): then the stop no longer holds and the return is
		// settled like any other.
		if e.l.Pending == nil || p.DryRun {
			return nil
		}
		for _, rs := range e.l.RequestStates() {
			if rs.Err == nil && rs.Request.Kind == ledger.RequestResume {
				// A person asked already; the request performs the same
				// check and consumes the request line.
				return nil
			}
		}
		rc, err := p.recoverRun(ctx, e)
		if err != nil {
			return err
		}
		arrived, err := p.returnArrived(ctx, e)
		if err != nil {
			return err
		}
		if !arrived {
			delete(p.outcomes, outcomeKey(e.ledgerPath, *e.l.Pending))
			if rc.Known && rc.Running == 0 && rc.Outcome.Commits == 0 && e.l.Delivery.Int(ledger.KeyReruns) < ledger.MaxReruns {
				// Another reconciler, which could not see this cache's
				// run record, called the dispatch over; the record proves
				// its agent never answered: the loop reruns it itself,
				// exactly as it would have before the stop.
				n, c := ledger.Rerun(e.l, p.clock())
				if err := p.apply(e, n, c); err != nil {
					return err
				}
				return p.run(ctx, e)
			}
			return nil
		}
		why = "the return of the interrupted dispatch arrived on the work branch"
	}
	if why == "" {
		return nil
	}
	n := e.l.Clone()
	n.Delivery.Set(ledger.KeyStop, "")
	return p.apply(e, n, ledger.Commit{Subject: "loop: resume", Sentence: "Resumed: " + why + "."})
}

// chainGate reports whether a chain milestone may start, and why not.
func (p *passState) chainGate(ctx context.Context, e *entry) (bool, string) {
	cp, ok := p.repo.ChainOf[e.specPath]
	if !ok || cp.K == 1 {
		return true, ""
	}
	if cp.Chain.Status != specs.StatusActive {
		return false, fmt.Sprintf("chain %s is %s", cp.Chain.Path, cp.Chain.Status)
	}
	for _, m := range cp.Chain.Milestones[:cp.K-1] {
		if msg := p.repo.ChainChanged(m.Path); msg != "" {
			return false, "refused: " + msg
		}
	}
	if sp := p.repo.Specs[cp.Chain.Milestones[cp.K-2].Path]; sp != nil && sp.Status == specs.StatusCancelled {
		return false, fmt.Sprintf("chain %s is stopped: milestone %d (%s) is cancelled", cp.Chain.Path, cp.K-1, sp.Path)
	}
	prev := cp.Chain.Milestones[cp.K-2].Path
	pl := p.repo.Ledgers[prev]
	if pl == nil {
		return false, fmt.Sprintf("waits for milestone %d of %s (%s) to be seeded and merged", cp.K-1, cp.Chain.Path, prev)
	}
	if reason, _, stopped := pl.Stop(); stopped {
		return false, fmt.Sprintf("chain %s is stopped: milestone %d (%s) stopped %s", cp.Chain.Path, cp.K-1, prev, reason)
	}
	if pl.Phase() != ledger.PhaseDone {
		pr := ""
		if v := pl.Delivery.Get(ledger.KeyPR); v != "" {
			pr = ", " + v
		}
		return false, fmt.Sprintf("waits for milestone %d of %s (%s%s) to be merged", cp.K-1, cp.Chain.Path, prev, pr)
	}
	return p.mergedIntoBase(ctx, prev, pl)
}

// seed creates the ledger of an approved spec.
func (p *passState) seed(ctx context.Context, e *entry) error {
	if ok, why := p.chainGate(ctx, e); !ok {
		p.note(e.specPath, false, "%s", why)
		return nil
	}
	if e.spec.Engine == specs.EngineWaves {
		switch plan := p.repo.PlanFor(e.specPath); {
		case plan == nil:
			p.note(e.specPath, true, "a waves spec needs a plan (%s, with **Spec:** `%s`); it is not seeded", p.cfg.PlanPath(e.specPath), e.specPath)
			return nil
		case p.repo.PlanErrors[e.specPath]:
			p.note(e.specPath, true, "the plan %s has errors (gallivant check); the waves spec is not seeded until it passes", plan.Path)
			return nil
		}
	}
	if _, taken := p.repo.Orphans[e.ledgerPath]; taken {
		p.note(e.specPath, true, "%s already holds another spec's ledger; rename one of the specs", e.ledgerPath)
		return nil
	}
	bases := map[string]string{}
	for _, m := range e.spec.Members() {
		repo, _ := e.spec.MemberRepo(m)
		sha, ok, err := p.GitHub.BranchHead(ctx, repo, e.spec.Base)
		if err != nil {
			return err
		}
		if !ok {
			p.note(e.specPath, true, "base branch %s does not exist in %s; the spec is not seeded", e.spec.Base, repo)
			return nil
		}
		bases[m] = sha
	}
	n, c := ledger.Seed(ledger.SeedInput{Spec: e.spec, SpecCommit: p.rep.Control, Bases: bases, Allowance: p.cfg.Defaults.Allowance})
	if cp, ok := p.repo.ChainOf[e.specPath]; ok {
		pos := fmt.Sprintf("%s %d/%d", cp.Chain.Name(), cp.K, len(cp.Chain.Milestones))
		n.Delivery.Set(ledger.KeyChain, pos)
		c.Trailers = append(c.Trailers, ledger.Trailer{Key: ledger.TrailerChain, Value: pos})
	}
	return p.apply(e, n, c)
}

// requests performs every accepted request in order and reports the rest.
func (p *passState) requests(ctx context.Context, e *entry) error {
	for round := 0; round < 16; round++ {
		applied := false
		for _, rs := range e.l.RequestStates() {
			if rs.Err != nil {
				p.rep.Refusals = append(p.rep.Refusals, Refusal{Spec: e.specPath, Ledger: e.ledgerPath, Request: rs.Request.Line, Reason: "malformed: " + rs.Err.Error()})
				continue
			}
			if rs.Refusal != "" {
				continue
			}
			var (
				n   *ledger.Ledger
				c   ledger.Commit
				err error
			)
			if rs.Request.Kind == ledger.RequestResnapshot {
				approved, aerr := p.approvedSpec(e)
				if aerr != nil {
					return aerr
				}
				n, c, err = ledger.Amend(e.l, approved, e.spec, p.rep.Control, rs.Request)
			} else {
				n, c, err = ledger.ApplyRequest(e.l, rs.Request, p.clock())
			}
			var rf *ledger.Refusal
			if errors.As(err, &rf) {
				p.rep.Refusals = append(p.rep.Refusals, Refusal{Spec: e.specPath, Ledger: e.ledgerPath, Request: rf.Request, Reason: rf.Reason})
				continue
			}
			if err != nil {
				return err
			}
			interrupted := e.l.Pending != nil && n.Pending != nil
			if err := p.apply(e, n, c); err != nil {
				return err
			}
			if interrupted && rs.Request.Kind == ledger.RequestResume {
				// `resume` at an interrupted stop runs the same dispatch
				// again: the commit above is its write-ahead record. A
				// return that arrived meanwhile (an orphaned agent's, pushed
				// late) is admitted instead of running the attempt twice.
				rc, err := p.recoverRun(ctx, e)
				if err != nil {
					return err
				}
				// A live orphan is waited for and its commit admitted; an
				// orphan that ended without one is run again, as asked.
				arrived := rc.Running > 0 || rc.Outcome.Commits > 0
				if rc.Known && !arrived {
					delete(p.outcomes, outcomeKey(e.ledgerPath, *e.l.Pending))
				}
				if !arrived {
					if arrived, err = p.returnArrived(ctx, e); err != nil {
						return err
					}
				}
				if !arrived {
					if err := p.run(ctx, e); err != nil {
						return err
					}
				}
			}
			applied = true
			break
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

// approvedSpec reads the spec as it was at the ledger's spec-commit.
func (p *passState) approvedSpec(e *entry) (*specs.Spec, error) {
	commit := e.l.Delivery.Get(ledger.KeySpecCommit)
	data, ok, err := p.Store.ReadFile(commit, e.specPath)
	if err != nil {
		return nil, fmt.Errorf("read the approved spec at %s: %w", short(commit), err)
	}
	if !ok {
		return nil, fmt.Errorf("the approved spec %s is not in control commit %s", e.specPath, short(commit))
	}
	sp, _ := specs.ParseSpec(parse.Parse(e.specPath, data), specs.Defaults{Repo: p.cfg.Defaults.Repo, Base: p.cfg.Defaults.Base})
	return sp, nil
}

// contractChanged stops the entry spec-changed when the spec's contract is
// no longer the approved one, at the points it would certify something.
func (p *passState) contractChanged(e *entry) (bool, error) {
	approved := e.l.Delivery.Get(ledger.KeyContract)
	if approved == "" || approved == e.spec.Contract().Fingerprint() {
		return false, nil
	}
	text := "the approved spec could not be read"
	if old, err := p.approvedSpec(e); err == nil {
		text = specs.DiffContracts(old.Contract(), e.spec.Contract()).String()
	}
	n, c := ledger.Stop(e.l, "spec-changed", fmt.Sprintf("the contract of %s changed from %s to %s", e.specPath, approved, e.spec.Contract().Fingerprint()), 0)
	c.Text = text + "\n\n" + c.Text
	return true, p.apply(e, n, c)
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
	base = e.l.Base
	if mm, ok := e.l.MemberMeta(m); ok {
		base = mm.Base
	}
	return repo, base
}

func (p *passState) branch(e *entry) string { return e.l.WorkBranch() }

// dispatch records a dispatch, pushes it (write-ahead), then runs the executor.
func (p *passState) dispatch(ctx context.Context, e *entry, a ledger.Action) (stepResult, error) {
	if why, over := ledger.OverBudget(e.l, e.spec); over {
		return stopped, p.stop(e, ledger.StopBudget, why)
	}
	repo, base := p.member(e, a.Member)
	branch := p.branch(e)
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil {
		return progressed, err
	}
	if !ok {
		if !p.DryRun {
			if err := p.GitHub.CreateBranch(ctx, repo, branch, base); err != nil {
				return progressed, err
			}
		}
		head = base
	}
	n, c := ledger.Dispatch(e.l, a, head, p.clock())
	if err := p.apply(e, n, c); err != nil {
		return progressed, err
	}
	if p.DryRun {
		return finished, nil
	}
	return progressed, p.run(ctx, e)
}

// run pushes the outstanding dispatch and hands it to the executor. If the
// push loses the race, the executor is not started.
func (p *passState) run(ctx context.Context, e *entry) error {
	if p.DryRun {
		return nil
	}
	if ro, ok := p.Executor.(recordOnly); ok && ro.RecordOnly() {
		return nil
	}
	pd := *e.l.Pending
	repo, base := p.member(e, pd.Member)
	brief, err := ledger.Brief(ledger.BriefInput{Ledger: e.l, Spec: e.spec, LedgerPath: e.ledgerPath, Repo: repo, Branch: p.branch(e),
		Model: e.l.Delivery.Get(ledger.KeyModel), Plan: p.repo.PlanPathFor(e.specPath)})
	if err != nil {
		return err
	}
	task := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: p.branch(e), Base: base, Pending: pd,
		Iteration: e.l.Iterations - 1, Brief: brief, Model: e.l.Delivery.Get(ledger.KeyModel), DefaultBranch: e.spec.Base, Harness: e.spec.Harness,
		DispatchedAt: e.l.Delivery.Get(ledger.KeyDispatchedAt)}
	if p.CloneURL != nil {
		task.CloneURL = p.CloneURL(repo)
	}
	if err := p.pushIntended(ctx, task); err != nil {
		return err
	}
	if err := p.crash("executor:before"); err != nil {
		p.abandon(task)
		return err
	}
	var out Outcome
	ran := false
	aerr := p.runAgent(ctx, e, repo, func() { out, err = p.Executor.Run(ctx, task); ran = true })
	if ran {
		// The run may have pushed the work branch: later reads in this
		// pass ask GitHub rather than the pass's snapshot.
		p.moved(task.Repo, task.Branch)
	}
	if !ran {
		// The dispatch landed and no agent started: its intent stays, so
		// the next pass reruns it.
		p.abandon(task)
	}
	if err != nil || !ran {
		return errors.Join(err, aerr)
	}
	p.outcomes[outcomeKey(e.ledgerPath, pd)] = out
	if out.Kept != "" {
		p.note(e.specPath, true, "an earlier run's unpushed commits were kept on %s", out.Kept)
	}
	if out.Err != nil {
		p.Log.Warn("agent run failed", "spec", e.specPath, "error", out.Err.Error(), "log", out.Log)
	}
	if aerr != nil {
		return aerr
	}
	return p.crash("executor:after")
}

// settle observes the work branch after the pending SHA and settles the
// outstanding dispatch.
func (p *passState) settle(ctx context.Context, e *entry) (stepResult, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	branch := p.branch(e)
	out, ranHere := p.outcomes[outcomeKey(e.ledgerPath, pd)]
	delete(p.outcomes, outcomeKey(e.ledgerPath, pd))
	// observed: this process ran the agent and saw it end; recovered: this
	// cache's run record proves the agent of this dispatch has ended.
	observed, recovered := ranHere, false
	if !ranHere {
		rc, err := p.recoverRun(ctx, e)
		if err != nil {
			return progressed, err
		}
		if rc.Running > 0 {
			return waitFor("waiting for the return of %s: its agent (pid %d) outlived the reconciler that started it and is still running", describe(pd), rc.Running), nil
		}
		if rc.Known {
			out, ranHere, recovered = rc.Outcome, true, true
			delete(p.outcomes, outcomeKey(e.ledgerPath, pd))
		}
	}
	obs := ledger.Observation{RunOver: ranHere && out.Finished, Dirty: ranHere && out.Dirty, Now: p.clock(),
		// This cache's run record proves the agent ended without a commit,
		// and no process saw it end: it was killed with its reconciler. A
		// dispatch the cache knows nothing of may have an agent elsewhere.
		Orphaned: !observed && recovered && out.Commits == 0}
	if dt := e.l.Delivery.Time(ledger.KeyDispatchedAt); !dt.IsZero() && !p.inFlight(dt) {
		obs.RunOver = true
	}
	if obs.Orphaned || obs.RunOver {
		// A rerun or a stop is decided on what the branch holds now, not
		// on the pass's snapshot: another reconciler may have pushed the
		// return since the pass began.
		p.moved(repo, branch)
	}
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil {
		return progressed, err
	}
	var boundary string
	switch {
	case !ok:
		boundary = fmt.Sprintf("the work branch %s no longer exists in %s", branch, repo)
	case head != pd.SHA:
		cmp, err := p.GitHub.Compare(ctx, repo, pd.SHA, head)
		if err != nil {
			return progressed, err
		}
		if cmp.Status != "ahead" {
			boundary = fmt.Sprintf("the work branch %s was rewritten: it no longer contains %s", branch, short(pd.SHA))
			break
		}
		for _, c := range cmp.Commits {
			obs.Commits = append(obs.Commits, ledger.Return{SHA: c.SHA, Subject: c.Subject, Body: c.Body})
		}
		if len(obs.Commits) == 1 {
			obs.Commits[0].ChangedFiles = cmp.Files
		}
	}
	if boundary != "" {
		n, c := ledger.Stop(e.l, "boundary", boundary, pd.Target)
		return progressed, p.apply(e, n, c)
	}
	if ranHere && out.Err != nil && len(obs.Commits) == 0 && !obs.Dirty {
		n, c := ledger.Stop(e.l, "harness-error", fmt.Sprintf("iteration %d: %v (log %s)", e.l.Iterations-1, out.Err, out.Log), pd.Target)
		return progressed, p.apply(e, n, c)
	}
	n, c, changed, err := ledger.Settle(e.l, obs)
	if err != nil {
		return progressed, err
	}
	if !changed {
		return waitFor("waiting for the return of %s (dispatched %s)", describe(pd), e.l.Delivery.Get(ledger.KeyDispatchedAt)), nil
	}
	if n.Delivery.Int(ledger.KeyReruns) > e.l.Delivery.Int(ledger.KeyReruns) {
		// Settle reran the dispatch: the rerun is write-ahead like any
		// dispatch, so two reconcilers never both run it.
		if err := p.apply(e, n, c); err != nil {
			return progressed, err
		}
		return progressed, p.run(ctx, e)
	}
	return progressed, p.apply(e, n, c)
}

// recoverer is implemented by executors that can find an agent a crashed
// reconciler started on this machine.
type recoverer interface {
	Recover(ctx context.Context, t Task) (Recovery, error)
}

// recoverRun asks the executor about the outstanding dispatch of e, which
// this pass did not run: an agent whose reconciler died may still be at
// work, or may have finished with its return unpushed. A finished run's
// outcome is remembered for settling, its return pushed.
func (p *passState) recoverRun(ctx context.Context, e *entry) (Recovery, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	rc, err := p.recoverTask(ctx, e, Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: p.branch(e), Pending: pd, Iteration: e.l.Iterations - 1,
		DispatchedAt: e.l.Delivery.Get(ledger.KeyDispatchedAt)})
	if err == nil && rc.Known && rc.Running == 0 {
		p.outcomes[outcomeKey(e.ledgerPath, pd)] = rc.Outcome
	}
	return rc, err
}

// recoverTask asks the executor about task t, which a reconciler that is
// gone started on this cache: its agent may still run, or may have ended
// with its commits unpushed, which are pushed now (never forcing).
func (p *passState) recoverTask(ctx context.Context, e *entry, t Task) (Recovery, error) {
	rv, ok := p.Executor.(recoverer)
	if !ok || p.DryRun {
		return Recovery{}, nil
	}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(t.Repo)
	}
	rc, err := rv.Recover(ctx, t)
	p.moved(t.Repo, t.Branch)
	if err != nil {
		return Recovery{}, err
	}
	if rc.Known && len(rc.Controls) > 0 && !slices.ContainsFunc(rc.Controls, p.Store.Landed) {
		// Intents whose dispatches never landed: the dispatch the ledger
		// holds is another reconciler's, made in the same second.
		p.Log.Info("ignoring intents of dispatches that never landed", "spec", e.specPath, "intents", len(rc.Controls))
		return Recovery{}, nil
	}
	if rc.Known && rc.Running == 0 {
		p.Log.Info("found the run of a crashed reconciler", "spec", e.specPath, "task", t.What(), "commits", rc.Outcome.Commits)
	}
	if rc.Kept != "" {
		p.note(e.specPath, true, "the commits of a crashed reconciler's agent could not be pushed; they are kept on %s", rc.Kept)
	}
	return rc, nil
}

// returnArrived reports whether the work branch moved past the outstanding
// dispatch's pending SHA: some agent answered it, and settling decides what
// the answer means.
func (p *passState) returnArrived(ctx context.Context, e *entry) (bool, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	// Read now, not from the pass's snapshot: a rerun may follow.
	p.moved(repo, p.branch(e))
	head, ok, err := p.GitHub.BranchHead(ctx, repo, p.branch(e))
	if err != nil {
		return false, err
	}
	return ok && head != pd.SHA, nil
}

// outcomeKey names one dispatch: an outcome only ever settles the dispatch
// it came from, never a later one another reconciler started.
func outcomeKey(ledgerPath string, pd ledger.Pending) string { return ledgerPath + "|" + pd.String() }

func describe(pd ledger.Pending) string {
	if pd.Target == ledger.SeedTarget {
		return "the seed of " + pd.Member
	}
	return fmt.Sprintf("row %d on %s", pd.Target, pd.Member)
}

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
