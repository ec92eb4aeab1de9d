package reconcile

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/internal/wait"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// GitHubClient is what the reconciler needs from GitHub, every method
// listed: *githubapi.Client implements it, and tests use the same adapter against the
// stand-in. Errors are classified as the adapter documents (a
// *RateLimitedError, *NotFoundError, *CredentialsError or *UnreachableError
// where the caller branches on them).
type GitHubClient interface {
	// CurrentUser is the token's login.
	CurrentUser(ctx context.Context) (string, error)
	// Permission reports a login's permission on a repository: "admin",
	// "write", "read" or "none". It decides whose text may steer the loop.
	Permission(ctx context.Context, repo, login string) (githubapi.Permission, error)

	// BranchHead is a branch's head commit; ok is false when the branch
	// does not exist.
	BranchHead(ctx context.Context, repo, branch string) (sha string, ok bool, err error)
	CreateBranch(ctx context.Context, repo, branch, sha string) error
	// Compare lists the commits head has that base lacks.
	Compare(ctx context.Context, repo, base, head string) (githubapi.Comparison, error)
	GetCommit(ctx context.Context, repo, sha string) (githubapi.CommitInfo, error)

	GetPullRequest(ctx context.Context, repo string, number int) (githubapi.PullRequest, error)
	// FindPullRequest finds the pull request from head into base, open or
	// not; ok is false when there is none.
	FindPullRequest(ctx context.Context, repo, head, base string) (pr githubapi.PullRequest, ok bool, err error)
	CreatePullRequest(ctx context.Context, repo, head, base, title, body string) (githubapi.PullRequest, error)
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
	Reviews(ctx context.Context, repo string, number int) ([]githubapi.Review, error)
	IssueComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
	ReviewComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
	// GetChecks reads the check runs and statuses on sha, with what the
	// base branch requires.
	GetChecks(ctx context.Context, repo, sha, base string) (githubapi.Checks, error)
	// HeldWorkflowRuns names the workflow runs on sha that GitHub holds
	// for a maintainer's approval (conclusion action_required).
	HeldWorkflowRuns(ctx context.Context, repo, sha string) ([]string, error)
	// CIFailures reads why the failing checks on sha fail: descriptions,
	// check run output and the tails of Actions job logs.
	CIFailures(ctx context.Context, repo, sha string) ([]githubapi.CIFailure, error)

	// EnsureComment posts body unless a comment of gallivant's own login
	// already carries marker; created reports a new comment.
	EnsureComment(ctx context.Context, repo string, number int, marker, body string) (created bool, err error)
	// ReactToComment leaves a reaction on an issue comment; repeating it
	// is harmless (GitHub answers 200 with the one already there).
	ReactToComment(ctx context.Context, repo string, id int64, reaction githubapi.Reaction) (created bool, err error)
	AddLabel(ctx context.Context, repo string, number int, label string) error
	RemoveLabel(ctx context.Context, repo string, number int, label string) error

	// FindIssue finds the issue creator opened whose body carries marker;
	// CreateIssue opens one; EditIssueBody replaces its body; IssueEdits
	// reads the versions of its body, oldest first (GraphQL). The
	// dashboard issue (dashboard.go) uses them.
	FindIssue(ctx context.Context, repo, creator, marker string) (issue githubapi.Issue, ok bool, err error)
	CreateIssue(ctx context.Context, repo, title, body string) (githubapi.Issue, error)
	EditIssueBody(ctx context.Context, repo string, number int, body string) error
	IssueEdits(ctx context.Context, repo string, number int) ([]githubapi.IssueEdit, error)

	// WorkflowFile reads a workflow file on ref, for the workflow
	// executor to check what it declares.
	WorkflowFile(ctx context.Context, repo, workflow, ref string) ([]byte, error)
	DispatchWorkflow(ctx context.Context, repo, workflow, ref string, inputs map[string]string) error
	// ProveResult reads the result branch of the workflow executor's prove
	// dispatch of head (gatekeep.ProveBranch) and the result file on it;
	// DeleteBranch deletes a branch, that one once its result is admitted.
	ProveResult(ctx context.Context, repo, head string) (githubapi.ProveReturn, error)
	DeleteBranch(ctx context.Context, repo, branch string) error
	// FileAt reads one file of repo at ref, at most limit bytes: a learn
	// task's return on the control repository's lessons branch
	// (learn.go).
	FileAt(ctx context.Context, repo, path, ref string, limit int) (data []byte, ok bool, err error)
	// CheckEvidence reads a head's check runs and statuses without the
	// base's requirements; RulesetRequirements and ProtectionRequirements
	// what a base's rulesets and its classic protection require, the
	// latter asked under key (the base's head and the pass's
	// gallivant.yaml) so that an unreadable protection is asked again only
	// when one of them changes: the observer reads each base's
	// requirements once per pass (required.go).
	CheckEvidence(ctx context.Context, repo, sha string) (githubapi.Checks, error)
	RulesetRequirements(ctx context.Context, repo, base string) (githubapi.Required, error)
	ProtectionRequirements(ctx context.Context, repo, base, key string) (githubapi.Required, error)

	// MatchingBranches lists the branches whose names start with prefix,
	// with their heads: a pass's first read of a work branch comes from
	// its repository's one snapshot (observe.go).
	MatchingBranches(ctx context.Context, repo, prefix string) (map[string]string, error)
	// DiscoverPullRequests lists a repository's pull requests updated
	// since the last pass; Mark and SetMark read and record a pull
	// request's quiet mark, kept with the client's conditional state;
	// ForgetMarks drops a repository's marks when a webhook reports
	// activity in it (quiet.go).
	DiscoverPullRequests(ctx context.Context, repo string) ([]githubapi.PullRequest, error)
	// PullRequestRollups reads, in one GraphQL query per repository (per
	// 20 pull requests), the heads, checks and comment times of the pull
	// requests whose quiet marks watch their checks, and the heads of
	// bases (rollup.go). GraphQL is not optional here but may fail, as on
	// a GitHub Enterprise that refuses it: the pass then reads the same
	// through REST, and a refusal of GraphQL itself is remembered under
	// key (the pass's gallivant.yaml) for an hour, asking nothing
	// (githubapi.ErrGraphQLRefused).
	PullRequestRollups(ctx context.Context, repo string, numbers []int, bases []string, key string) (githubapi.Rollups, error)
	Mark(repo string, number int) (json.RawMessage, bool)
	SetMark(repo string, number int, m json.RawMessage)
	ForgetMarks(repo string)

	// Requests counts what the client asked GitHub since it was made, for
	// a pass's report; SaveState writes its conditional state where the
	// next process finds it, and does nothing when it keeps none
	// (account.go).
	Requests() githubapi.RequestStats
	SaveState() error
}

// Options configure a Reconciler.
type Options struct {
	Store    *store.Store
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
	// KeepGoodConfig, when set (the daemon), makes a pass whose
	// gallivant.yaml has errors run on the last configuration this
	// reconciler read without errors, and note the refused change as a
	// problem; with no good configuration yet the pass cannot run, as
	// without it.
	KeepGoodConfig bool
}

// Reconciler runs passes over one control repository.
type Reconciler struct {
	o Options
	// draining is set once the process is stopping: passes start no new
	// executor run.
	draining atomic.Bool
	// docs are the control documents of the last pass, parsed.
	docs *parseCache
	// good is the last configuration read without errors and goodAt the
	// control commit it came from (KeepGoodConfig).
	good   *specs.Config
	goodAt string
}

// SetExecutor replaces the executor for the passes that start after it:
// the daemon applies a changed executor: section without a restart. It
// must not be called while a pass runs.
func (r *Reconciler) SetExecutor(e Executor) { r.o.Executor = e }

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
		o.Executor = agent.NoneExecutor{}
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
	// Malformed is set when the line is no request at all (what `check`
	// reports as an error), as opposed to a request refused in this state.
	Malformed bool `json:"malformed,omitempty"`
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
	Control     string       `json:"control"`
	Transitions []Transition `json:"transitions"`
	Refusals    []Refusal    `json:"refusals"`
	Notes       []Note       `json:"notes"`
	// Decisions are the pull-request loop's decisions, in the order the
	// pass took them (decision.go): what `gallivant why --live` and the
	// dashboard show.
	Decisions   []Decision        `json:"decisions"`
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
	Requests *githubapi.RequestStats `json:"requests,omitempty"`
	// pushed counts the leading Transitions that reached the control
	// branch: a write-ahead dispatch pushes in the middle of a pass.
	pushed int
	// consumed are the run outcomes the attempt settled (replan.go).
	consumed []consumedRun
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
	outcomes := map[string]agent.Outcome{}
	// landed holds the transitions earlier attempts pushed before they lost
	// a race: they are on the control branch, so they are reported even
	// though the re-planned attempt does not perform them again.
	var landed []Transition
	// doubtful are transitions an attempt committed but whose push was
	// rejected: a rejection can come after the remote took the commits
	// (a lost answer, a race on the answer), so the next attempt, which
	// fetched the branch, looks for them there before calling them lost.
	var doubtful []Transition
	// carry is what an attempt observed that a re-plan may trust (replan.go).
	carry := &replan{}
	for {
		rep, err := r.pass(ctx, outcomes, carry)
		if rep != nil && errors.Is(err, store.ErrPushRejected) {
			restoreConsumed(outcomes, rep)
		}
		for _, t := range doubtful {
			if t.Commit != "" && r.o.Store.Landed(ctx, t.Commit) {
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
		if !errors.Is(err, store.ErrPushRejected) || retries+1 >= r.o.PushAttempts {
			if err != nil && len(rep.Transitions) > 0 {
				r.o.Log.Warn("pass ended early; the transitions it pushed stand", "pushed", len(rep.Transitions), "error", err.Error())
			}
			return rep, err
		}
		landed = rep.Transitions
		doubtful = rep.Unrecorded
		retries++
		d := replanWait(retries)
		r.o.Log.Info("control branch moved; re-planning", "attempt", retries+1, "wait", d.String())
		if err := wait.For(ctx, d); err != nil {
			return rep, err
		}
	}
}

// pass is one attempt; its state lives in a passState.
func (r *Reconciler) pass(ctx context.Context, outcomes map[string]agent.Outcome, carry *replan) (*Report, error) {
	p, err := r.begin(ctx, outcomes)
	if err != nil {
		if p == nil {
			return nil, err
		}
		return p.rep, err
	}
	p.replan = carry
	// fatal is a GitHub failure no entry can get past (rejected
	// credentials, GitHub unreachable): the pass stops at it, keeps what it
	// committed, and returns it as the pass's error.
	var fatal error
	if n := p.cfg.Executor.MaxParallel; n > 1 && !r.o.DryRun {
		p.sched = newScheduler(n, p.cfg.Executor.MaxParallelPerRepo)
	}
	entries := p.inShard(p.entries())
	p.observe(ctx, entries)
	dash, err := p.dashboardRead(ctx, entries)
	if err != nil {
		if errors.Is(err, store.ErrPushRejected) || errors.Is(err, errCrash) || ctx.Err() != nil {
			return p.rep, err
		}
		p.note(specs.ConfigFile, true, "the dashboard issue: %v", err)
		dash = nil
	}
	p.forEntries(entries, func(e *entry) {
		err := p.entry(ctx, e)
		if err == nil || errors.Is(err, errAborted) {
			return
		}
		switch entryFailureOf(err, ctx.Err() != nil) {
		case failAbort:
			p.abortWith(err)
		case failFatal:
			if fatal == nil {
				fatal = err
			}
			p.haltWith()
		case failRateLimited:
			p.note(e.specPath, true, "%v", err)
			// Every further request would fail the same way.
			p.haltWith()
		default:
			p.note(e.specPath, true, "%v", err)
		}
	})
	if p.aborted != nil {
		return p.rep, p.aborted
	}
	if r.o.DryRun {
		return p.rep, fatal
	}
	if dash != nil && fatal == nil && !p.halt {
		if err := p.dashboardWrite(ctx, dash, entries); err != nil {
			if errors.Is(err, errCrash) || ctx.Err() != nil {
				return p.rep, err
			}
			p.note(specs.ConfigFile, true, "the dashboard issue: %v", err)
		}
	}
	if err := p.push(ctx); err != nil {
		return p.rep, err
	}
	return p.rep, fatal
}

// begin syncs the store and reads the control repository at its head for
// one pass: the configuration and every document. The pass state is nil
// only when the store could not sync.
func (r *Reconciler) begin(ctx context.Context, outcomes map[string]agent.Outcome) (*passState, error) {
	st := r.o.Store
	if err := st.Sync(ctx); err != nil {
		return nil, err
	}
	p := &passState{Options: r.o, r: r, rep: &Report{Control: st.Head(), Uncommitted: st.Uncommitted()}, now: r.o.Clock().UTC(), outcomes: outcomes,
		dispatchID: newDispatchID(), ctx: ctx}
	data, cfg, err := r.passConfig(p)
	if err != nil {
		return p, err
	}
	p.cfg = cfg
	files, repo, ds, err := r.docs.load(ctx, st, cfg, cfg.ScanDirs())
	if err != nil {
		return p, err
	}
	p.rep.Diagnostics = append(p.rep.Diagnostics, ds...)
	p.unreadable(ds)
	p.docs = docsByPath(data, files)
	// Plans are checked without a target tree: the paths rule needs a
	// checkout and is gallivant check --target's.
	p.rep.Diagnostics = append(p.rep.Diagnostics, repo.CheckPlans(nil)...)
	p.repo = repo
	return p, nil
}

// passConfig reads gallivant.yaml at the control head: the file's bytes
// and the configuration the pass runs with. A configuration with errors
// fails the pass, unless the reconciler keeps the last good one: then the
// pass notes the refusal and keeps it.
func (r *Reconciler) passConfig(p *passState) ([]byte, *specs.Config, error) {
	st := r.o.Store
	data, ok, err := st.ReadFile(p.ctx, st.Head(), specs.ConfigFile)
	if err != nil {
		return nil, nil, err
	}
	cfg := specs.DefaultConfig()
	if ok {
		var ds parse.Diagnostics
		cfg, ds = specs.ParseConfig(specs.ConfigFile, data)
		p.rep.Diagnostics = append(p.rep.Diagnostics, ds...)
		if ds.HasErrors() {
			if !r.o.KeepGoodConfig || r.good == nil {
				return nil, nil, fmt.Errorf("gallivant.yaml at %s has errors; fix them (gallivant check) before a pass can run", short(st.Head()))
			}
			p.note(specs.ConfigFile, true, "gallivant.yaml at %s has errors (gallivant check); the change is refused and this pass keeps the configuration of %s",
				short(st.Head()), short(r.goodAt))
			cfg = r.good
		}
	}
	if r.o.KeepGoodConfig && cfg != r.good && !p.rep.Diagnostics.HasErrors() {
		r.good, r.goodAt = cfg, st.Head()
	}
	return data, cfg, nil
}

// entryFailure is what one entry's error does to the pass.
type entryFailure int

// Entry failures.
const (
	// failNote: a problem of the entry; the pass goes on.
	failNote entryFailure = iota
	// failRateLimited: a problem of the entry, and the pass halts: every
	// further request would fail the same way.
	failRateLimited
	// failFatal: a GitHub failure no entry can get past (rejected
	// credentials, GitHub unreachable): the pass halts and returns it.
	failFatal
	// failAbort: the control push was rejected, the crash hook fired or
	// the pass was cancelled: the pass aborts.
	failAbort
)

// entryFailureOf classifies an entry's error; cancelled reports that the
// pass's context is done.
func entryFailureOf(err error, cancelled bool) entryFailure {
	var rl *githubapi.RateLimitedError
	switch {
	case errors.Is(err, store.ErrPushRejected) || errors.Is(err, errCrash) || cancelled:
		return failAbort
	case errors.Is(err, githubapi.ErrCredentials) || errors.Is(err, githubapi.ErrUnreachable):
		return failFatal
	case errors.As(err, &rl):
		return failRateLimited
	}
	return failNote
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

// unreadable notes, as a problem, every document the pass could not read
// at all (too large, unreadable): it has no entry to carry the problem, yet
// whatever it asks for is not done, and the exit status must say so.
func (p *passState) unreadable(ds parse.Diagnostics) {
	for _, d := range ds {
		if d.Severity == parse.SeverityError && (d.Rule == parse.RuleTooLarge || d.Rule == "file/read") {
			p.note(d.File, true, "the document cannot be read (%s: %s); nothing in it is acted on", d.Rule, d.Message)
		}
	}
}
