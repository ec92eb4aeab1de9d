package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Task is one dispatch handed to an executor.
type Task struct {
	Spec, Ledger string
	// Repo is the member repository (owner/name) and CloneURL where git
	// reaches it.
	Repo, CloneURL string
	Branch         string
	// Base is the commit the work branch starts from when it is absent.
	Base string
	// Head, when set, is the full id of the commit the pass read at the
	// tip of the work branch for this task (a dispatch's start, a
	// verification's head): when gallivant's mirror already holds that
	// commit (the run before pushed it from there), the checkout starts at
	// it without fetching. Empty, or a commit the mirror lacks, fetches as
	// always and starts at the branch's head on the remote. A branch that
	// moved after the pass read it is never overwritten: the run's push
	// does not fast-forward and is refused, as for a branch that moves
	// while the agent works.
	Head    string
	Pending ledger.Pending
	// Iteration is the count the brief carries (before the dispatch bump).
	Iteration int
	Brief     string
	// Model is set on the escalated attempt only.
	Model string
	// MaxBudgetMicros is what is left of the entry's dollar budget, in
	// millionths of a dollar, when the spec's budget has a dollar part;
	// 0 when it has none. Claude Code is told it (--max-budget-usd);
	// codex and aider have no such flag.
	MaxBudgetMicros int64
	// Harness is the spec's harness: (specs.HarnessName), choosing the
	// preset or command that runs this task; empty uses the executor's
	// kind.
	Harness string
	// DefaultBranch is the member repository's base branch, where a
	// workflow file lives.
	DefaultBranch string
	// Round is set for a review/fix round of the pull-request loop (1, 2,
	// …); Pending is then zero and Brief is a fix brief.
	Round int
	// DispatchedAt is the ledger's dispatched-at value of the dispatch or
	// round, which ties a run record to exactly one dispatch.
	DispatchedAt string
	// Control is the control commit that records the dispatch (Intend
	// keeps it in the intent).
	Control string
	// PlanTask is the ledger id of the plan task this run works
	// (docs/plans.md "Wave execution"), "" for a row or a round. The tasks
	// of a wave run at once, each in a checkout of its own.
	PlanTask string
	// Learn is set for a done entry's learn task (docs/learning.md "The
	// learn task"): Repo is then the control repository, Branch its
	// lessons branch and Base the control commit the task starts from.
	Learn bool
}

// Name is the task's file name stem: the spec stem and the iteration, or
// the round.
func (t Task) Name() string {
	if t.Learn {
		return specs.Stem(t.Spec) + "-learn"
	}
	if t.Round > 0 {
		return fmt.Sprintf("%s-round-%d", specs.Stem(t.Spec), t.Round)
	}
	return fmt.Sprintf("%s-%d", specs.Stem(t.Spec), t.Iteration)
}

// What describes the task in logs.
func (t Task) What() string {
	if t.Learn {
		return "learn task"
	}
	if t.Round > 0 {
		return fmt.Sprintf("round %d", t.Round)
	}
	return fmt.Sprintf("%s iteration %d", t.Pending.String(), t.Iteration)
}

// Outcome is what an executor learned about a run.
type Outcome struct {
	// Finished reports that the run is over (a synchronous executor).
	Finished bool
	// Dirty reports uncommitted changes left in the checkout; nothing was pushed.
	Dirty bool
	// DirtyPaths are the first entries of the checkout's `git status
	// --porcelain` when Dirty (`M calc.go`, `?? notes.txt`), for the stop
	// that names what was dirty.
	DirtyPaths []string
	// Commits is how many commits the run added locally.
	Commits int
	// Decision is the decision a preset's learn result gave with
	// `status: none` (no commit): one line of at most maxNoneDecision
	// characters, which the pass quotes in `loop: no lessons`; "" for
	// any other run.
	Decision string
	// Err is a harness failure: the agent could not start, exited non-zero,
	// timed out, or its push was refused.
	Err error
	// Log is the path of the run's kept log.
	Log string
	// Kept names a recovery ref (refs/gallivant/recovery/…) in gallivant's
	// mirror of the repository that holds commits an earlier run left
	// unpushed; a fresh checkout would otherwise have dropped them.
	Kept string
	// Usage is what a preset's CLI reported about its spend.
	Usage Usage
	// Unpushed reports that the run's commits could not be pushed (Err
	// says why): they are kept on Kept and the run record stays, so the
	// next pass's Recover pushes them and the return is admitted without
	// running the agent again.
	Unpushed bool
}

// NoneExecutor only records dispatches: an agent elsewhere reads the task
// (`gallivant task`) and pushes its return.
type NoneExecutor struct{}

// Run returns at once; the run is never known to be over before the timeout.
func (NoneExecutor) Run(context.Context, Task) (Outcome, error) { return Outcome{}, nil }

// workflowDispatcher is the part of the GitHub adapter the workflow
// executor uses.
type workflowDispatcher interface {
	// WorkflowFile is the content of .github/workflows/<workflow> at ref.
	WorkflowFile(ctx context.Context, repo, workflow, ref string) ([]byte, error)
	DispatchWorkflow(ctx context.Context, repo, workflow, ref string, inputs map[string]string) error
}

// WorkflowExecutor triggers a GitHub Actions workflow_dispatch in the member
// repository with the task reference as inputs. The workflow runs the agent
// (it can print the brief with `gallivant task`) and pushes the return.
type WorkflowExecutor struct {
	GitHub   workflowDispatcher
	Workflow string
	// Control names the control repository for the workflow's inputs;
	// credentials in it are never passed on.
	Control string
}

// Run reads the workflow file on the default branch and dispatches it,
// returning at once. A workflow that does not declare every input the
// executor sends (control, spec, ledger, branch, target, pending,
// iteration, round, model) is refused with a *WorkflowError before
// anything is sent, because GitHub would refuse the dispatch (422).
func (w WorkflowExecutor) Run(ctx context.Context, t Task) (Outcome, error) {
	inputs := map[string]string{
		// Inputs are visible to anyone who can read the member repository.
		"control":   redact.URLs(w.Control),
		"spec":      t.Spec,
		"ledger":    t.Ledger,
		"branch":    t.Branch,
		"target":    t.Pending.TargetString(),
		"pending":   t.Pending.String(),
		"iteration": fmt.Sprint(t.Iteration),
	}
	if t.Round > 0 {
		inputs["target"], inputs["pending"] = "round", ""
		inputs["round"] = fmt.Sprint(t.Round)
	}
	if t.Model != "" {
		inputs["model"] = t.Model
	}
	ref := t.DefaultBranch
	if ref == "" {
		ref = "main"
	}
	content, err := w.GitHub.WorkflowFile(ctx, t.Repo, w.Workflow, ref)
	if err != nil {
		return Outcome{}, err
	}
	wd, err := ParseWorkflowDispatch(content)
	if err != nil {
		return Outcome{}, fmt.Errorf("read workflow .github/workflows/%s of %s at %s: %w", w.Workflow, t.Repo, ref, err)
	}
	if err := wd.check(t.Repo, w.Workflow, ref, inputs); err != nil {
		return Outcome{}, err
	}
	return Outcome{}, w.GitHub.DispatchWorkflow(ctx, t.Repo, w.Workflow, ref, inputs)
}

// AgentFunc is an in-process agent: it works in dir, a checkout of the work
// branch, reading the brief, and leaves its commits (or its mess) there.
type AgentFunc func(ctx context.Context, dir string, t Task) error

// CommandExecutor runs an agent in a checkout of the member repository on
// the work branch: Argv (kind command) or a preset's CLI (claude-code,
// codex, aider; see invocation), chosen per task by Kind and the spec's
// harness. The brief is written to a file named by GALLIVANT_TASK and sent
// on standard input (a preset's prompt: the brief after a preamble), a
// preset's result file is named by GALLIVANT_RESULT and its return
// completed from it (complete),
// GALLIVANT_MODEL carries the escalation model on the escalated attempt,
// the run is bounded by Timeout and its log kept. Afterwards it checks the
// local boundary (a clean tree) and pushes the work branch, never forcing.
//
// The credential never enters anything the agent controls: the agent's
// environment is built from the Env allow-list, the checkout is cloned
// fresh for every run from a repository gallivant owns (the mirror), and
// the agent's commits are copied back into the mirror object by object,
// without running git in the checkout as gallivant. Only the mirror ever
// talks to GitHub with the token, with hooks disabled.
type CommandExecutor struct {
	// Kind is the executor kind: command (Argv) or a preset
	// (specs.ExecutorClaudeCode, specs.ExecutorCodex,
	// specs.ExecutorAider); empty is command. A task's Harness overrides
	// it.
	Kind    string
	Argv    []string
	Timeout time.Duration
	// ReplayBudget bounds the total time of one Verify's evidence replay
	// (executor.replay_budget); zero means no bound beyond Timeout.
	ReplayBudget time.Duration
	// WorkDir holds checkouts, mirrors, task files and logs.
	WorkDir string
	// Token authenticates gallivant's own git fetches and pushes over
	// https; the agent never sees it.
	Token string
	// Tokens, when set, replaces Token with a current one at the start of
	// every Run, Recover and Verify: an App's installation tokens, which
	// the daemon narrows again before each pass, so that a repository a
	// spec delivers to since the daemon started is reached without a
	// restart.
	Tokens TokenSource
	// Env names the variables of gallivant's environment passed to the
	// agent (executor.env); specs.DefaultAgentEnv when nil. A secret
	// (specs.SecretEnv) is never passed, even when named.
	Env []string
	// Environ is the environment the agent's is taken from (Env's
	// allow-list of it, minus every secret); os.Environ() when nil. The
	// agent and a preset's CLI are looked up on the PATH it passes. Tests
	// give each executor its own, so that tests putting stand-in CLIs
	// first on PATH run in parallel.
	Environ []string
	// TokenEnv is the variable that holds the token (github.token_env):
	// never passed to the agent.
	TokenEnv string
	// RunAs runs the agent as another user (executor.run_as): a name or a
	// numeric uid. It needs gallivant to run as root.
	RunAs string
	// Agent runs in place of Argv when set: the demo's and tests' scripted
	// agent.
	Agent AgentFunc
	// Log receives the warnings of cache repairs and the heartbeats;
	// slog.Default when nil.
	Log *slog.Logger
	// Heartbeat is how often a running agent is logged (DefaultHeartbeat
	// when 0); NewTicker and Now replace the clock in tests.
	Heartbeat time.Duration
	NewTicker func(time.Duration) Ticker
	Now       func() time.Time
	// Stream, when set, receives the agent's output as it comes, each line
	// prefixed with the spec and the row or round (-v).
	Stream io.Writer
	// Progress, when set, is told when each agent run starts, each line
	// it prints, and when it ends: a terminal's live view (progress.go).
	Progress Progress
}

func (e CommandExecutor) log() *slog.Logger {
	if e.Log == nil {
		return slog.Default()
	}
	return e.Log
}

// mirrorDir is gallivant's own bare mirror of t's repository, one per
// entry like its checkout: two entries of a repository never fetch into
// the same repository at once, and one entry is only ever dispatched by one
// process (the dispatch is compare-and-swapped).
func (e CommandExecutor) mirrorDir(t Task) string {
	return filepath.Join(e.WorkDir, "mirrors", strings.ReplaceAll(t.Repo, "/", "__"), specs.Stem(t.Spec)+".git")
}

// ErrEnded reports that a run's agent was ended because gallivant was told
// to stop (its context was cancelled): the run record stays for the next
// pass, which settles what the agent left or re-runs the dispatch at once.
var ErrEnded = errors.New("the agent was ended because gallivant was interrupted; the next pass settles or re-runs its dispatch")

// ErrRunAsNeedsRoot reports an executor.run_as that cannot take effect:
// only root can start a process as another user.
var ErrRunAsNeedsRoot = errors.New("executor.run_as needs gallivant to run as root")

// Run prepares the checkout, runs the agent and pushes its work.
//
// Crash safety: the checkout's flock is held for the agent's life (the
// agent inherits it), a run record next to the checkout lets the next pass
// find an agent whose reconciler died (Recover), commits an earlier run
// left unpushed are kept on a recovery ref in the mirror before the
// checkout is replaced, and a mirror git cannot use is set aside and
// fetched again.
func (e CommandExecutor) Run(ctx context.Context, t Task) (Outcome, error) {
	e, err := e.withToken(ctx)
	if err != nil {
		return Outcome{}, err
	}
	dir, mirror := e.checkoutDir(t), e.mirrorDir(t)
	// The lock says no agent runs here (not even one a crashed reconciler
	// left behind); the agent inherits it for as long as it runs.
	lock := takeIntent(dir)
	if lock == nil {
		var err error
		if lock, err = lockCheckoutWait(dir); err != nil {
			return Outcome{}, fmt.Errorf("%s: %w", dir, err)
		}
	}
	defer lock.Close()
	logPath := filepath.Join(e.WorkDir, "logs", t.Name()+".log")
	out := Outcome{Finished: true, Log: logPath}
	cred, home, err := e.credential()
	if err != nil {
		out.Err = err
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return lostOr(dir, out, err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return lostOr(dir, out, err)
	}
	defer logf.Close()
	m := e.git(mirror, logf)
	before, err := e.prepareOrRepair(ctx, m, mirror, dir, t, cred, &out)
	if err != nil {
		if ctx.Err() == nil && fetchTransient(err) {
			// GitHub or the network, after fetchRetrying's tries: the
			// entry's dispatch is due again, not stopped (issue 33).
			out.Err = &Failure{Kind: FailureFetch, Cause: oneLine(err.Error(), 300)}
			return out, nil
		}
		out.Err = lostRun(dir, fmt.Errorf("prepare the checkout: %w", err), false)
		return out, nil
	}
	kind := e.kind(t)
	if e.Agent != nil {
		kind = specs.ExecutorCommand
	}
	rec := runRecord{Spec: t.Spec, Branch: t.Branch, Pending: t.Pending.String(), Iteration: t.Iteration, Round: t.Round, Before: before,
		DispatchedAt: t.DispatchedAt, Started: time.Now().UTC(), Kind: kind}
	if err := writeRunRecord(dir, rec); err != nil {
		// The intent stays: the next pass finds a dispatch that never ran.
		return lostOr(dir, out, err)
	}
	// The run record now describes this dispatch, which landed: every
	// intent of the checkout is done or superseded.
	removeIntents(dir)
	taskFile := filepath.Join(e.WorkDir, "tasks", t.Name()+".md")
	if err := os.MkdirAll(filepath.Dir(taskFile), 0o755); err != nil {
		return lostOr(dir, out, err)
	}
	if err := os.WriteFile(taskFile, []byte(t.Brief), 0o644); err != nil {
		// The run record stays: the next pass finds an agent that never
		// committed.
		return lostOr(dir, out, err)
	}
	runCtx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	fmt.Fprintf(logf, "# gallivant: %s %s in %s\n", t.Spec, t.What(), dir)
	env := e.agentEnv(home)
	resultFile := resultPath(dir)
	var stdout boundedBuffer
	stdout.max = 8 << 20
	stopBeat := e.heartbeat(t, logPath)
	defer stopBeat()
	run := Run{Spec: t.Spec, Task: label(t), Started: e.now()}
	if e.Progress != nil {
		e.Progress.Started(run)
		defer e.Progress.Finished(run)
	}
	if e.Agent != nil {
		out.Err = e.Agent(runCtx, dir, t)
	} else if err := prepareResult(resultFile, kind, cred); err != nil {
		stopBeat()
		return out, err
	} else {
		out.Err = e.runCommand(runCtx, dir, taskFile, resultFile, kind, t, logf, &stdout, env, cred, lock, func(pid int) {
			rec.PID = pid
			_ = writeRunRecord(dir, rec)
		})
		out.Err = explain(runCtx, kind, env, cred, stdout.Bytes(), out.Err)
	}
	stopBeat()
	if runCtx.Err() != nil && ctx.Err() == nil {
		out.Err = fmt.Errorf("the agent ran past executor.timeout (%s) and was stopped", e.Timeout)
	}
	if out.Err != nil {
		fmt.Fprintf(logf, "# gallivant: agent failed: %v\n", out.Err)
	} else {
		fmt.Fprintf(logf, "# gallivant: agent finished\n")
	}
	if isPreset(kind) && e.Agent == nil && out.Err == nil {
		e.completeRun(ctx, dir, resultFile, kind, t, before, env, cred, logf, stdout.Bytes(), &out)
	}
	if ctx.Err() != nil {
		// The reconciler was told to stop and ended the agent: the record
		// stays, so the next pass's Recover collects what the agent left
		// and settles or re-runs the dispatch at once (ErrEnded).
		fmt.Fprintf(logf, "# gallivant: the agent was ended: gallivant was interrupted\n")
		rec.Ended = true
		_ = writeRunRecord(dir, rec)
		return out, fmt.Errorf("%s: %w", t.What(), ErrEnded)
	}
	e.collect(ctx, m, mirror, dir, t, before, env, cred, logf, &out)
	if settleLost(dir, &out) {
		// A lost run keeps its record, marked ended, where the checkout's
		// directory still exists: the next pass's Recover finds an agent
		// that never answered (loss.go).
		fmt.Fprintf(logf, "# gallivant: the run lost its environment: %v\n", out.Err)
		rec.Ended = true
		_ = writeRunRecord(dir, rec)
		return out, nil
	}
	// This pass settles the run from out; a crash before this line leaves
	// the record for the next pass's Recover. Commits that could not be
	// pushed keep it too: the next pass's Recover pushes them.
	if !out.Unpushed {
		os.Remove(dir + ".run")
	}
	return out, nil
}

// lostOr returns the outcome of a run that failed with err before its agent
// started: an environment loss (a full disk) is the run's outcome, for
// the reconciler to rerun; any other error is Run's own.
func lostOr(dir string, out Outcome, err error) (Outcome, error) {
	lost := lostRun(dir, err, false)
	if _, ok := AsLost(lost); ok {
		out.Err = lost
		return out, nil
	}
	return out, err
}

// collect reads what the agent left in dir — a dirty tree, its commits —
// and pushes the commits from the mirror. The status runs in the checkout,
// whose configuration the agent wrote, so it runs with the agent's
// environment and user: whatever it triggers gains nothing the agent did
// not have. The commits are copied with go-git; no git process of
// gallivant's runs in the checkout.
func (e CommandExecutor) collect(ctx context.Context, m execGit, mirror, dir string, t Task, before string, env []string, cred *syscall.Credential, logf *os.File, out *Outcome) {
	ag := execGit{dir: dir, env: agentGitEnv, base: env, log: logf, cred: cred}
	status, _ := ag.out(ctx, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "status", "--porcelain")
	out.Dirty = status != ""
	out.DirtyPaths = porcelainPaths(status, maxDirtyPaths)
	unlock, err := lockMirror(mirror)
	if err != nil {
		if out.Err == nil {
			out.Err = err
		}
		return
	}
	defer unlock()
	if err := e.seal(mirror); err != nil {
		if out.Err == nil {
			out.Err = err
		}
		return
	}
	head, commits, err := copyCommits(dir, mirror, before)
	if err != nil {
		if out.Err == nil {
			out.Err = fmt.Errorf("read the agent's commits: %w", err)
		}
		return
	}
	out.Commits = commits
	if out.Dirty || out.Commits == 0 {
		return
	}
	// Push whatever was committed so that nothing is lost; settling judges
	// it (two commits are a boundary stop, with both commits kept). A
	// transient failure is tried again at once (workPush.run): a reconciler
	// on another cache cannot see a kept commit.
	if err := e.pushWork(ctx, mirror, t.CloneURL, t.Branch, head); err != nil {
		if out.Err == nil {
			out.Err = fmt.Errorf("push the work branch: %w", err)
			out.Unpushed = true
		}
		if ref := keepOnRecoveryRef(ctx, m, t.Branch, head, time.Now()); ref != "" {
			out.Kept = fmt.Sprintf("%s (%s unpushed)", ref, plural(commits, "commit"))
		}
	}
}

// pushWork pushes head from the repository at dir to branch at url,
// never forcing (workPush.run).
func (e CommandExecutor) pushWork(ctx context.Context, dir, url, branch, head string) error {
	repo, err := gitopen.PlainOpen(dir, nil)
	if err != nil {
		return err
	}
	return workPush{repo: repo, url: url, auth: gitpack.TokenAuth(e.Token), branch: branch, head: plumbing.NewHash(head)}.run(ctx)
}

// maxDirtyPaths is how many entries of a dirty tree an Outcome keeps.
const maxDirtyPaths = 10

// porcelainPaths returns up to max entries of `git status --porcelain`
// output as `<status> <path>`, then a count of the rest (`and 4 more`).
func porcelainPaths(status string, max int) []string {
	var out []string
	lines := strings.Split(strings.TrimRight(status, "\n"), "\n")
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		if len(out) == max {
			out = append(out, fmt.Sprintf("and %d more", len(lines)-max))
			break
		}
		// The status letters, then the path (the output's first line may
		// have lost its leading space).
		xy, path, _ := strings.Cut(strings.TrimLeft(ln, " "), " ")
		out = append(out, xy+" "+strings.TrimLeft(path, " "))
	}
	return out
}

// prepareOrRepair prepares a fresh checkout (prepare). Before the old
// checkout goes, commits it holds that the work branch lacks (a run whose
// reconciler died before pushing) are copied into the mirror and kept on a
// recovery ref. A mirror git cannot fetch into (a crash can tear a ref or
// leave a lock) is set aside and fetched again, once; each repair is
// logged.
func (e CommandExecutor) prepareOrRepair(ctx context.Context, m execGit, mirror, dir string, t Task, cred *syscall.Credential, out *Outcome) (string, error) {
	unlock, err := lockMirror(mirror)
	if err != nil {
		return "", err
	}
	defer unlock()
	if locks := removeStaleGitLocks(mirror); len(locks) > 0 {
		e.log().Warn("removed stale git lock files from the mirror", "mirror", mirror, "locks", strings.Join(locks, " "))
	}
	if err := e.seal(mirror); err != nil {
		return "", err
	}
	if kept := e.keepOldCheckout(ctx, m, mirror, dir, t); kept != "" {
		out.Kept = kept
		e.log().Warn("kept unpushed commits of an earlier run on a recovery ref", "dir", dir, "kept", kept)
	}
	before, err := e.prepare(ctx, m, mirror, dir, t, cred)
	if err == nil || ctx.Err() != nil {
		return before, err
	}
	if _, statErr := os.Stat(filepath.Join(mirror, "HEAD")); statErr != nil || isUnreachable(err) || transientGit(err) {
		// Not the mirror's damage: the network's or GitHub's failure.
		return "", err
	}
	aside := fmt.Sprintf("%s.damaged-%s", mirror, time.Now().UTC().Format("20060102T150405Z"))
	e.log().Warn("the mirror is damaged; fetching it again", "mirror", mirror, "damage", err.Error(), "kept", aside)
	if err := os.Rename(mirror, aside); err != nil {
		return "", fmt.Errorf("set the damaged mirror aside: %w", err)
	}
	return e.prepare(ctx, m, mirror, dir, t, cred)
}

// seal runs sealMirror on an existing mirror and logs what it refused.
func (e CommandExecutor) seal(mirror string) error {
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); err != nil {
		return nil
	}
	refused, err := sealMirror(mirror)
	if len(refused) > 0 {
		e.log().Warn("refused configuration gallivant never wrote in its mirror, and rewrote it", "mirror", mirror, "refused", strings.Join(refused, " "))
	}
	if err != nil {
		return fmt.Errorf("seal the mirror's configuration: %w", err)
	}
	return nil
}

// lockMirror takes the mirror's flock, waiting for it: reconcilers that
// share a cache share its mirrors, and only one git may work in a mirror
// at a time (which is also what makes removing its stale lock files safe).
// The kernel releases the lock when the process dies.
func lockMirror(mirror string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(mirror), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(mirror+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the mirror %s: %w", mirror, err)
	}
	return func() { f.Close() }, nil
}

// isUnreachable reports a failure to reach the remote, which re-fetching a
// mirror cannot cure.
func isUnreachable(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Could not resolve host", "Connection refused", "unable to access", "could not read from remote", "does not appear to be a git repository", "Authentication failed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// keepOldCheckout keeps what an old checkout holds that the mirror does
// not (a run whose reconciler died before pushing, or a person's commit
// there): its commits are copied into the mirror, read with go-git, and
// kept on a recovery ref. It returns what was kept, or "".
func (e CommandExecutor) keepOldCheckout(ctx context.Context, m execGit, mirror, dir string, t Task) string {
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); err != nil {
		return ""
	}
	head, err := checkoutHead(dir)
	if err != nil {
		return ""
	}
	repo, err := gitopen.PlainOpen(mirror, nil)
	if err != nil {
		return ""
	}
	if _, ok, _ := mirrorCommit(repo, head); ok {
		// The mirror has it: it was pushed, or it is where a run started.
		return ""
	}
	before := ""
	if rec, ok := readRunRecord(dir); ok {
		before = rec.Before
	}
	if before == "" {
		before, _, _ = mirrorCommit(repo, "refs/remotes/origin/"+t.Branch)
	}
	head, n, err := copyCommits(dir, mirror, before)
	if err != nil || n == 0 {
		return ""
	}
	if ref := keepOnRecoveryRef(ctx, m, t.Branch, head, time.Now()); ref != "" {
		return fmt.Sprintf("%s in %s (%s unpushed)", ref, mirror, plural(n, "commit"))
	}
	return ""
}

// keepOnRecoveryRef points a recovery ref of the mirror at head; a
// recovery ref of branch already there is reused, so a push failing pass
// after pass keeps one ref.
func keepOnRecoveryRef(ctx context.Context, m execGit, branch, head string, now time.Time) string {
	if have, err := m.out(ctx, "for-each-ref", "--format=%(refname)", "--points-at", head, "--", "refs/gallivant/recovery/"+branch+"/"); err == nil && have != "" {
		ref, _, _ := strings.Cut(have, "\n")
		return ref
	}
	ref := fmt.Sprintf("refs/gallivant/recovery/%s/%s-%s", branch, now.UTC().Format("20060102T150405Z"), short(head))
	if _, err := m.out(ctx, "update-ref", "--", ref, head); err != nil {
		return ""
	}
	return ref
}

// credential resolves RunAs: the process credential and home directory
// of the agent's user, or nil when the agent runs as gallivant.
func (e CommandExecutor) credential() (*syscall.Credential, string, error) {
	if e.RunAs == "" {
		return nil, "", nil
	}
	if os.Geteuid() != 0 {
		return nil, "", fmt.Errorf("%w (it runs as uid %d); run gallivant as root, or remove executor.run_as to run the agent as gallivant's own user", ErrRunAsNeedsRoot, os.Geteuid())
	}
	u, err := user.Lookup(e.RunAs)
	if err != nil {
		if u, err = user.LookupId(e.RunAs); err != nil {
			return nil, "", fmt.Errorf("executor.run_as %s: no such user", e.RunAs)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, "", fmt.Errorf("executor.run_as %s: uid %s gid %s are not numeric", e.RunAs, u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, "", fmt.Errorf("executor.run_as %s is root: it would isolate nothing", e.RunAs)
	}
	var groups []uint32
	if ids, err := u.GroupIds(); err == nil {
		for _, g := range ids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				groups = append(groups, uint32(n))
			}
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: groups}, u.HomeDir, nil
}

// prepare brings the mirror up to date with the remote (unless it already
// holds t.Head: startCommit) and clones a fresh checkout of the work branch
// from it; it returns the commit the checkout starts at. The old checkout is removed, not reset: the agent may have
// planted hooks or configuration in it.
func (e CommandExecutor) prepare(ctx context.Context, m execGit, mirror, dir string, t Task, cred *syscall.Credential) (string, error) {
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); err != nil {
		// The mirror is gallivant's alone: a run_as agent can neither read
		// nor write it.
		if err := os.MkdirAll(filepath.Dir(mirror), 0o700); err != nil {
			return "", err
		}
		if _, err := m.in(filepath.Dir(mirror)).out(ctx, "init", "--quiet", "--bare", "--", mirror); err != nil {
			return "", err
		}
	}
	start, err := e.startCommit(ctx, m, mirror, t)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// A fresh clone of a local path holds no credential; its own copy of
	// every object file (no hard link, symlink or alternates) keeps the
	// agent from editing the mirror's objects through shared files.
	if err := freshCheckout(ctx, m, mirror, dir); err != nil {
		return "", err
	}
	c := m.in(dir)
	if _, err := c.out(ctx, "checkout", "--quiet", "-B", t.Branch, start, "--"); err != nil {
		return "", err
	}
	if cred != nil {
		if err := chownTree(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", fmt.Errorf("hand the checkout to executor.run_as: %w", err)
		}
	}
	return start, nil
}

// startCommit is the commit t's checkout starts at: t.Head where the
// mirror holds it, with no fetch (a commit is what its id says, wherever it
// came from); otherwise, after bringing the mirror up to date with the
// remote, the work branch's head, or the base where the branch is absent.
func (e CommandExecutor) startCommit(ctx context.Context, m execGit, mirror string, t Task) (string, error) {
	// The mirror's refs and objects are read in process: it is
	// gallivant's alone.
	if t.Head != "" {
		if repo, err := gitopen.PlainOpen(mirror, nil); err == nil {
			if id, ok, _ := mirrorCommit(repo, t.Head); ok && id == t.Head {
				return id, nil
			}
		}
	}
	// The fetch keeps what it receives as one pack (fewer files in the
	// mirror and in every checkout copied from it) and starts no automatic
	// maintenance where it could have nothing to do (mayNeedMaintenance).
	fm := m.with("fetch.unpackLimit", "1")
	auto := mayNeedMaintenance(mirror)
	if !auto {
		fm = fm.with("maintenance.auto", "false")
	}
	if err := fetchRetrying(ctx, fm, "fetch", "--quiet", "--prune", "--no-tags", "--", t.CloneURL, "+refs/heads/*:refs/remotes/origin/*"); err != nil {
		return "", err
	}
	if !auto && mayNeedMaintenance(mirror) {
		// What the fetch's own maintenance would have run now.
		_, _ = m.out(ctx, "maintenance", "run", "--auto", "--quiet")
	}
	repo, err := gitopen.PlainOpen(mirror, nil)
	if err != nil {
		return "", err
	}
	start, err := resolveInMirror(ctx, m, repo, "refs/remotes/origin/"+t.Branch)
	if err != nil {
		if start, err = resolveInMirror(ctx, m, repo, t.Base); err != nil {
			// A base given as a branch name is the remote's branch.
			if start, err = resolveInMirror(ctx, m, repo, "refs/remotes/origin/"+t.Base); err != nil {
				return "", fmt.Errorf("neither the work branch %s nor the base %s is known: %w", t.Branch, t.Base, err)
			}
		}
	}
	return start, nil
}

// checkoutHead reads a checkout's HEAD with go-git, bounded to its .git.
func checkoutHead(dir string) (string, error) {
	dotgit := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no .git directory")
	}
	bound := osfs.New(dotgit, osfs.WithBoundOS())
	src, err := git.Open(gitopen.Storage(bound, cache.NewObjectLRUDefault(), filesystem.Options{AlternatesFS: bound}), nil)
	if err != nil {
		return "", err
	}
	ref, err := src.Head()
	if err != nil {
		return "", err
	}
	return ref.Hash().String(), nil
}

// ancestorOf reports whether c is before or an ancestor of it in repo;
// with no before (the base is unknown) every commit the mirror holds is
// taken for the base's.
func ancestorOf(repo *git.Repository, c *object.Commit, before string) bool {
	if before == "" {
		return true
	}
	b, err := repo.CommitObject(plumbing.NewHash(before))
	if err != nil {
		return false
	}
	ok, err := c.IsAncestor(b)
	return err == nil && ok
}

// copyCommits copies the objects of the agent's commits (those reachable
// from the checkout's HEAD and not in the mirror) into the mirror and
// returns the head and how many commits were added. It reads the checkout
// with go-git, bounded to its .git directory: no git process, no hook and
// no configuration of the checkout runs as gallivant, and alternates or
// symlinks cannot reach gallivant's own files. Every object's size is read
// from its header and checked before it is inflated (defaultIngestLimits):
// an oversized return fails with a *ReturnTooLargeError naming the object.
func copyCommits(dir, mirror, before string) (string, int, error) {
	return copyCommitsWithin(dir, mirror, before, defaultIngestLimits)
}

// copyCommitsWithin is copyCommits within the limits lim: it returns the
// checkout's head and how many of the commits up to it are this run's.
func copyCommitsWithin(dir, mirror, before string, lim ingestLimits) (string, int, error) {
	dotgit := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.IsDir() {
		return "", 0, fmt.Errorf("the checkout's .git is no longer a directory")
	}
	bound := osfs.New(dotgit, osfs.WithBoundOS())
	sizer, err := newObjectSizer(bound, lim.Object)
	if err != nil {
		return "", 0, err
	}
	defer sizer.close()
	src, err := git.Open(gitopen.Storage(bound, cache.NewObjectLRUDefault(), filesystem.Options{AlternatesFS: bound}), nil)
	if err != nil {
		return "", 0, err
	}
	ref, err := src.Head()
	if err != nil {
		return "", 0, err
	}
	head := ref.Hash()
	if head.String() == before {
		return before, 0, nil
	}
	dst, err := gitopen.PlainOpen(mirror, nil)
	if err != nil {
		return "", 0, err
	}
	w := &commitCopy{src: src, dst: dst, sizer: sizer, lim: lim, before: before, seen: map[plumbing.Hash]bool{}}
	if err := w.walk(head); err != nil {
		return "", 0, err
	}
	if err := w.write(); err != nil {
		return "", 0, err
	}
	return head.String(), w.commits, nil
}

// commitCopy is one copy of a checkout's new objects (src) into the
// mirror (dst): the objects to copy in walk order, and how many commits
// are the run's.
type commitCopy struct {
	src, dst *git.Repository
	sizer    *objectSizer
	lim      ingestLimits
	before   string
	order    []plumbing.Hash
	seen     map[plumbing.Hash]bool
	total    int64
	commits  int
}

// walk goes from head down to what the mirror has, checking each object's
// size before reading it; only commits, trees and tags are read here.
func (w *commitCopy) walk(head plumbing.Hash) error {
	stack := []plumbing.Hash{head}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.seen[h] || h.String() == w.before {
			continue
		}
		w.seen[h] = true
		if w.dst.Storer.HasEncodedObject(h) == nil {
			// The mirror has it: nothing to copy. A commit it has is still
			// this run's when it is no ancestor of before: a
			// byte-identical commit another run copied first (two agents
			// that wrote the same commit in the same second).
			if c, err := w.dst.CommitObject(h); err == nil && !ancestorOf(w.dst, c, w.before) {
				w.commits++
				stack = append(stack, c.ParentHashes...)
			}
			continue
		}
		typ, err := w.take(h)
		if err != nil {
			return err
		}
		next, err := w.links(h, typ)
		if err != nil {
			return err
		}
		stack = append(stack, next...)
	}
	return nil
}

// take adds object h to the copy within the return's limits and returns
// its type.
func (w *commitCopy) take(h plumbing.Hash) (string, error) {
	typ, size, err := w.sizer.size(h.String())
	if err != nil {
		return "", err
	}
	if w.total += size; w.total > w.lim.Return {
		return "", &ReturnTooLargeError{Object: h.String(), Type: typ, Size: w.total, Limit: w.lim.Return, Whole: true}
	}
	if len(w.order) >= w.lim.Objects {
		return "", &ReturnTooLargeError{Object: h.String(), Type: typ, Size: int64(len(w.order) + 1), Limit: int64(w.lim.Objects), Count: true}
	}
	w.order = append(w.order, h)
	return typ, nil
}

// links are the objects object h (of type typ) names: a commit's tree and
// parents (and it counts as the run's), a tree's entries but submodules,
// a tag's target.
func (w *commitCopy) links(h plumbing.Hash, typ string) ([]plumbing.Hash, error) {
	switch typ {
	case "commit":
		w.commits++
		c, err := w.src.CommitObject(h)
		if err != nil {
			return nil, err
		}
		return append([]plumbing.Hash{c.TreeHash}, c.ParentHashes...), nil
	case "tree":
		tr, err := w.src.TreeObject(h)
		if err != nil {
			return nil, err
		}
		var out []plumbing.Hash
		for _, e := range tr.Entries {
			if e.Mode != filemode.Submodule {
				out = append(out, e.Hash)
			}
		}
		return out, nil
	case "tag":
		tg, err := w.src.TagObject(h)
		if err != nil {
			return nil, err
		}
		return []plumbing.Hash{tg.Target}, nil
	}
	return nil, nil
}

// write copies the objects into the mirror, what an object needs before
// it, so that an interrupted copy never leaves a commit without its tree
// in the mirror.
func (w *commitCopy) write() error {
	for i := len(w.order) - 1; i >= 0; i-- {
		if _, _, err := w.sizer.size(w.order[i].String()); err != nil {
			return err
		}
		o, err := w.src.Storer.EncodedObject(plumbing.AnyObject, w.order[i])
		if err != nil {
			return err
		}
		if _, err := w.dst.Storer.SetEncodedObject(o); err != nil {
			return err
		}
	}
	return nil
}

func (e CommandExecutor) runCommand(ctx context.Context, dir, taskFile, resultFile, kind string, t Task, logf *os.File, stdout io.Writer, env []string, cred *syscall.Credential, lock *os.File, started func(pid int)) error {
	promptFile := strings.TrimSuffix(taskFile, ".md") + ".prompt.md"
	session := ""
	if t.Round > 0 && isPreset(kind) {
		// A fix round continues the conversation that wrote the code,
		// where the CLI can resume one.
		session = e.lastSession(t, kind)
	}
	inv, err := e.invocation(t, kind, promptFile, session)
	if err != nil {
		return err
	}
	if inv.resumed != "" {
		fmt.Fprintf(logf, "# gallivant: resuming %s session %s for round %d\n", kind, inv.resumed, t.Round)
		e.log().Info("resuming the agent's session", "spec", t.Spec, "round", t.Round, "cli", kind, "session", inv.resumed)
	}
	if kind == specs.ExecutorAider {
		if err := os.WriteFile(promptFile, []byte(presetPreamble+t.Brief), 0o644); err != nil {
			return err
		}
	}
	env = append(env, "GALLIVANT_TASK="+taskFile, "GALLIVANT_SPEC="+t.Spec, "GALLIVANT_BRANCH="+t.Branch)
	if isPreset(kind) {
		env = append(env, presetEnv(kind, cred)...)
		env = append(env, "GALLIVANT_RESULT="+resultFile)
	}
	if t.Model != "" {
		env = append(env, "GALLIVANT_MODEL="+t.Model)
	}
	fmt.Fprintf(logf, "# gallivant: %s %s\n", kind, strings.Join(inv.argv, " "))
	cmd := agentCommand(ctx, dir, env, cred, logf, inv.argv[0], inv.argv[1:]...)
	cmd.Stdout = io.MultiWriter(logf, stdout)
	if pw := e.stream(t); pw != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(logf, stdout, pw), io.MultiWriter(logf, pw)
		defer pw.Flush()
	}
	if e.Progress != nil {
		lw := &lineWriter{emit: func(line string) { e.Progress.Output(Run{Spec: t.Spec, Task: label(t)}, line) }}
		cmd.Stdout, cmd.Stderr = io.MultiWriter(cmd.Stdout, lw), io.MultiWriter(cmd.Stderr, lw)
		defer lw.Flush()
	}
	// Standard input is the brief (the prompt, for a preset); an agent
	// that does not read it sees it closed once it was written.
	cmd.Stdin = strings.NewReader(inv.stdin)
	// The agent holds the checkout's lock (as fd 3): if this process dies,
	// the next pass sees the agent is still at work.
	cmd.ExtraFiles = []*os.File{lock}
	if err := runAgentProcess(cmd, cred, func(pid int) { started(pid) }); err != nil {
		return fmt.Errorf("the agent %s: %w", inv.argv[0], err)
	}
	return nil
}

// agentCommand is a process of the agent's: in dir, with the agent's
// environment and user, output to out, leading its own session (and, as
// root, PID namespace) so that a timeout (ctx) stops all of it. Run it
// with runAgentProcess.
func agentCommand(ctx context.Context, dir string, env []string, cred *syscall.Credential, out io.Writer, name string, args ...string) *exec.Cmd {
	if !strings.Contains(name, "/") {
		// The agent's PATH, as Preflight looks the CLI up, rather than
		// gallivant's; a name it does not hold is left to exec's lookup.
		if p, err := lookPath(name, env); err == nil {
			name = p
		}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = agentSysProcAttr(cred)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// runAgentProcess starts and waits for an agent's process (agentCommand)
// and, once it has exited, ends every process it left (endRun): the run
// is over before gallivant touches the checkout again. started, when set,
// hears the process id.
func runAgentProcess(cmd *exec.Cmd, cred *syscall.Credential, started func(pid int)) error {
	scope := beginRun(cred)
	done, err := startTracked(cmd)
	if err != nil {
		return err
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	err = cmd.Wait()
	done()
	endRun(cmd.Process.Pid, scope)
	return err
}

// agentEnv is the agent's environment: the allow-listed variables of
// environ, minus every secret, with HOME set to the run_as user's home.
// The agent only commits; gallivant pushes.
func (e CommandExecutor) agentEnv(home string) []string {
	environ := e.Environ
	if environ == nil {
		environ = os.Environ()
	}
	allow := e.Env
	if allow == nil {
		allow = specs.DefaultAgentEnv
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(allow, k) || specs.SecretEnv(k, e.TokenEnv) {
			continue
		}
		if k == "HOME" && home != "" {
			continue
		}
		out = append(out, kv)
	}
	if home != "" {
		out = append(out, "HOME="+home)
	}
	return out
}

// agentGitEnv keeps the system and global git configuration out of git
// runs in the agent's checkout, as it is out of the agent's environment.
var agentGitEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1"}

// git runs git in gallivant's own repositories: with the credential (in
// the environment, never argv or a URL, so it shows in no process list and
// no log), with hooks disabled, so no file the agent wrote can run, and
// with no system or global configuration, which a same-user agent could
// have written (the mirror's own is sealMirror's).
func (e CommandExecutor) git(dir string, log *os.File) execGit {
	// Automatic maintenance runs in the foreground: a detached one would
	// be reparented to gallivant (a child subreaper) and could be taken
	// for an agent's leftover.
	cfg := [][2]string{{"core.hooksPath", "/dev/null"}, {"gc.autoDetach", "false"}, {"maintenance.autoDetach", "false"}}
	if e.Token != "" {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + e.Token))
		cfg = append(cfg, [2]string{"http.extraHeader", "Authorization: Basic " + basic})
	}
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=" + strconv.Itoa(len(cfg))}
	for i, kv := range cfg {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return execGit{dir: dir, env: env, log: log}
}

// execGit runs the git binary in a repository.
type execGit struct {
	dir string
	env []string
	// base is the environment env is added to; when nil, gallivant's
	// own minus every secret (specs.SecretEnv).
	// A git with a base is the agent's (its environment): it runs as a
	// process of the agent's, and whatever it starts in the checkout the
	// agent wrote ends with it (runAgentProcess).
	base []string
	log  *os.File
	// cred runs git as another user: the agent's.
	cred *syscall.Credential
}

// in returns g running in dir.
func (g execGit) in(dir string) execGit { g.dir = dir; return g }

// with returns g with one more configuration value, passed in its
// environment (GIT_CONFIG_KEY_n) like the rest of gallivant's own.
func (g execGit) with(key, value string) execGit {
	n := 0
	env := make([]string, 0, len(g.env)+3)
	for _, kv := range g.env {
		if c, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(c)
			continue
		}
		env = append(env, kv)
	}
	g.env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, value), "GIT_CONFIG_COUNT="+strconv.Itoa(n+1))
	return g
}

func (g execGit) out(ctx context.Context, args ...string) (string, error) {
	bin, err := gitPath()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = g.dir
	base := g.base
	if base == nil {
		// gallivant's own git needs none of gallivant's secrets beyond the
		// one credential env hands it.
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !specs.SecretEnv(k, "") {
				base = append(base, kv)
			}
		}
	}
	cmd.Env = append(append([]string(nil), base...), g.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if g.base != nil {
		cmd.SysProcAttr = agentSysProcAttr(g.cred)
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		err = runAgentProcess(cmd, g.cred, nil)
	} else {
		if g.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: g.cred}
		}
		err = cmd.Run()
	}
	if g.log != nil && stderr.Len() > 0 {
		g.log.Write(stderr.Bytes())
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, redact.URLs(strings.TrimSpace(stderr.String())))
	}
	return strings.TrimSpace(stdout.String()), nil
}
