package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gallivant/gallivant/specs"
)

// A checkout's lock and run record live next to it, outside the work tree,
// so that no reset or clean of the checkout touches them:
//
//	checkouts/<owner>__<name>/<stem>       the checkout
//	checkouts/<owner>__<name>/<stem>.lock  flock held while an agent runs
//	checkouts/<owner>__<name>/<stem>.run   the run record (runRecord)
//	checkouts/<owner>__<name>/<stem>.intent-<time>  a dispatch's intent (intent.go)
//
// The agent process inherits the locked file, so the lock outlives a
// reconciler killed during the run and ends exactly when the agent (and
// every process it started that kept the descriptor) is gone.

// ErrCheckoutBusy reports that an agent still runs in the checkout (or a
// dispatch holds it reserved): a caller waits, never takes it over.
var ErrCheckoutBusy = errors.New("an agent is still running in the checkout")

// runRecord is what a reconciler writes before it starts an agent: enough
// for the next pass on this cache to find the agent if the reconciler dies.
type runRecord struct {
	Spec      string    `json:"spec"`
	Branch    string    `json:"branch"`
	Pending   string    `json:"pending"`
	Iteration int       `json:"iteration"`
	Round     int       `json:"round,omitempty"` // a review/fix round's number; 0 for a row loop dispatch
	Before    string    `json:"before"`          // the checkout's HEAD when the agent started; empty in an intent (intent.go)
	PID       int       `json:"pid,omitempty"`
	Started   time.Time `json:"started"`
	// DispatchedAt is the ledger's dispatched-at of the dispatch: a record
	// answers only the dispatch it was written for, never a rerun or
	// another reconciler's dispatch of the same target at the same SHA.
	DispatchedAt string `json:"dispatched_at,omitempty"`
	// Control is the control commit that records the dispatch, in an
	// intent: the dispatch is this record's only if that commit landed.
	Control string `json:"control,omitempty"`
	// Kind is the executor kind that ran: a preset's return is completed
	// from its result file by whoever settles the run.
	Kind string `json:"kind,omitempty"`
	// Ended reports that gallivant ended the agent when it was told to
	// stop (ErrEnded): what the agent left half done is not a return, and
	// the next pass re-runs the dispatch unless a commit was pushed.
	Ended bool `json:"ended,omitempty"`
}

// lockCheckout takes the checkout's flock without waiting.
func lockCheckout(dir string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrCheckoutBusy
		}
		return nil, fmt.Errorf("lock the checkout %s: %w", dir, err)
	}
	return f, nil
}

// releaseCheckout gives up a lock no agent inherited (a reservation, a
// recovery's look, a verification): it unlocks before it closes. Closing
// alone is not enough, because the lock belongs to the open file, and a
// child this process forks for anything else holds a copy of every
// descriptor from its fork until its exec closes them; until then a close
// would leave the checkout locked and a sibling would see it busy. A lock
// an agent inherited is only closed (Run), so it lasts as long as the agent
// and every process that kept the descriptor.
func releaseCheckout(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// lockWait bounds how long a dispatch waits for its checkout's lock: a
// sibling reconciler on the same cache holds it for a moment while it
// recovers an orphan's commits, and a dispatch that gave up at once would
// be pushed with no run to answer it.
const lockWait = 15 * time.Second

// lockCheckoutWait takes the checkout's flock, waiting up to lockWait
// while another process holds it.
func lockCheckoutWait(dir string) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := lockCheckout(dir)
		if !errors.Is(err, ErrCheckoutBusy) || time.Now().After(deadline) {
			return f, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readRunRecord(dir string) (runRecord, bool) { return readRecord(dir + ".run") }

func readRecord(path string) (runRecord, bool) {
	var rec runRecord
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return runRecord{}, false
	}
	return rec, true
}

// writeRunRecord replaces the record atomically: a crash leaves the old
// record or the new one, never half of one.
func writeRunRecord(dir string, rec runRecord) error { return writeRecord(dir+".run", rec) }

func writeRecord(path string, rec runRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// answers reports whether rec was written for t's dispatch.
func (rec runRecord) answers(t Task) bool {
	return rec.Pending == t.Pending.String() && rec.Round == t.Round && rec.Branch == t.Branch &&
		(rec.DispatchedAt == "" || t.DispatchedAt == "" || rec.DispatchedAt == t.DispatchedAt)
}

// removeStaleGitLocks deletes git's lock files in a git directory no git
// process of this cache can be using — gallivant's mirror, between runs:
// each is a crash's leftover (a reconciler killed inside `git fetch`
// leaves a ref's .lock). It returns what it removed.
func removeStaleGitLocks(gitDir string) []string {
	dir := gitDir
	var out []string
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			if os.Remove(p) == nil {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
		}
		return nil
	})
	return out
}

// Recovery is what a pass learned about a dispatch this cache's checkout
// ran for a reconciler that is gone.
type Recovery struct {
	// Known is false when this cache holds no record of the dispatch (it
	// ran elsewhere, or never started): the pass judges it by the clock.
	Known bool
	// Running names the agent still at work (its pid); the pass waits.
	Running int
	// Outcome is the finished run's, with its commits pushed to the work
	// branch.
	Outcome Outcome
	// Kept names a recovery ref holding commits that could not be pushed.
	Kept string
	// Controls is set when the proof is an intent (the agent never
	// started): the control commits of the intents that answer the
	// dispatch, one of which the pass must find on the control branch
	// before it believes them. Two reconcilers can dispatch the same row
	// at the same SHA in the same second; only the one whose commit landed
	// owns the dispatch.
	Controls []string
}

// Recover finds an agent a crashed reconciler started for t through the
// run record in this cache, and may be asked again about the same record. A live agent is left alone until its timeout,
// then its process group is killed; a finished one's commits are pushed to
// the work branch (never forcing), exactly as its reconciler would have.
func (e CommandExecutor) Recover(ctx context.Context, t Task) (Recovery, error) {
	e, err := e.withToken(ctx)
	if err != nil {
		return Recovery{}, err
	}
	dir := e.checkoutDir(t)
	rec, ok := readRunRecord(dir)
	var controls []string
	if !ok || !rec.answers(t) {
		// The dispatch may have died before its agent started: then only
		// its intent describes it.
		intents := readIntents(dir, t)
		if len(intents) == 0 {
			return Recovery{}, nil
		}
		rec = intents[0]
		for _, in := range intents {
			controls = append(controls, in.Control)
		}
	}
	lock, err := lockCheckout(dir)
	if errors.Is(err, ErrCheckoutBusy) && rec.PID > 0 && time.Since(rec.Started) > e.Timeout {
		// Its reconciler would have stopped it at the timeout.
		e.log().Warn("stopping an orphaned agent past executor.timeout", "spec", t.Spec, "pid", rec.PID)
		_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
		for i := 0; i < 50 && errors.Is(err, ErrCheckoutBusy); i++ {
			time.Sleep(100 * time.Millisecond)
			lock, err = lockCheckout(dir)
		}
	}
	if errors.Is(err, ErrCheckoutBusy) {
		return Recovery{Known: true, Running: max(rec.PID, 1)}, nil
	}
	if err != nil {
		return Recovery{}, err
	}
	defer releaseCheckout(lock)
	if rec.Before == "" {
		// An intent whose lock is free: the reconciler died between
		// pushing the dispatch and starting the agent, which never ran.
		e.log().Warn("found a dispatch whose agent never started", "spec", t.Spec, "task", t.What())
		return Recovery{Known: true, Outcome: Outcome{Finished: true}, Controls: controls}, nil
	}
	cred, home, err := e.credential()
	if err != nil {
		return Recovery{}, err
	}
	// The commits are read with go-git and pushed from the mirror, exactly
	// as Run does: gallivant runs no git of its own in the agent's checkout.
	out := Outcome{Finished: true, Log: filepath.Join(e.WorkDir, "logs", t.Name()+".log")}
	env := e.agentEnv(home)
	if isPreset(rec.Kind) {
		// The preset's completion, which its reconciler did not live to
		// do; the CLI's usage output is gone with it.
		_ = os.MkdirAll(filepath.Dir(out.Log), 0o755)
		if logf, err := os.OpenFile(out.Log, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			e.completeRun(ctx, dir, resultPath(dir), rec.Kind, t, rec.Before, env, cred, logf, nil, &out)
			logf.Close()
		}
	}
	e.collect(ctx, e.git(e.mirrorDir(t), nil), e.mirrorDir(t), dir, t, rec.Before, env, cred, nil, &out)
	settleLost(dir, &out)
	if rec.Ended && out.Dirty {
		// An agent ended mid-work left its tree half done, and collect
		// pushed nothing: no return, so the dispatch is re-run (its
		// unpushed commits are kept on a recovery ref when the checkout
		// is replaced), never a boundary stop for a person.
		out.Dirty, out.DirtyPaths, out.Commits = false, nil, 0
	}
	// The record stays: the transition this recovery leads to (an
	// admission, a rerun) may lose its race or die with this pass, and the
	// next pass must find the same proof. Recovering again is idempotent
	// (the same commits, already pushed), and the record answers no later
	// dispatch: a new dispatch or a rerun has its own dispatched-at, and
	// its intent replaces the record.
	return Recovery{Known: true, Outcome: out, Kept: out.Kept}, nil
}

// checkoutDir is where t's agent works.
func (e CommandExecutor) checkoutDir(t Task) string {
	dir := filepath.Join(e.WorkDir, "checkouts", strings.ReplaceAll(t.Repo, "/", "__"), specs.Stem(t.Spec))
	if t.PlanTask != "" {
		// A plan task's own checkout, beside the entry's.
		dir += "--task-" + t.PlanTask
	}
	if t.Learn {
		// A learn task's checkout of the control repository, one per
		// lessons branch: the members of a coordinated entry learn
		// each for its own repository.
		dir += "--learn-" + strings.ReplaceAll(path.Base(t.Branch), ".", "_")
	}
	return dir
}
