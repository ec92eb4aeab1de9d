package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// logged makes the rig's command executor log into buf.
func logged(buf *bytes.Buffer) rigOption {
	return func(o *Options) {
		ex := o.Executor.(agent.CommandExecutor)
		ex.Log = slog.New(slog.NewTextHandler(buf, nil))
		o.Executor = ex
	}
}

// checkout is the rig's agent checkout of the feature spec.
func (r *rig) checkout() string { return filepath.Join(r.work, "checkouts", "acme__api", "feature") }

// interruptedRow1 runs a pass whose row 1 agent ends without a commit, so
// the entry stops interrupted with a checkout on disk.
func interruptedRow1(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && n == 1 {
			return NoCommit
		}
		return Done
	}
	if got := subjectsOf(r.pass()); !slices.Contains(got, "loop: stop interrupted") {
		t.Fatalf("no interrupted stop: %v", got)
	}
	return r
}

// Issue 12, finding 3, and the damage a crash leaves: an agent checkout is
// replaced by a fresh clone for every run, so its damage never matters; the
// mirror gallivant keeps is repaired (a stale lock removed, a damaged
// mirror set aside and fetched again) and logged once. The resumed attempt
// is admitted, never stopped harness-error.
func TestDamagedCheckoutHeals(t *testing.T) {
	t.Parallel()
	mirror := func(r *rig) string { return filepath.Join(r.work, "mirrors", "acme__api", "feature.git") }
	tests := []struct {
		name   string
		damage func(t *testing.T, r *rig)
		log    string
	}{
		{"index.lock left by a killed agent", func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.checkout(), ".git", "index.lock"), "")
			writeFile(t, filepath.Join(r.checkout(), ".git", "refs", "heads", "gallivant", "feature.lock"), "")
		}, ""},
		{"half-written index", func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.checkout(), ".git", "index"), "DIRC\x00\x00\x00\x02torn")
		}, ""},
		{"a ref lock left in the mirror by a killed fetch", func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(mirror(r), "refs", "remotes", "origin", "main.lock"), "")
		}, "removed stale git lock files from the mirror"},
		{"an empty ref in the mirror", func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(mirror(r), "refs", "remotes", "origin", "main"), "")
		}, ""},
		{"missing objects in the mirror", func(t *testing.T, r *rig) {
			if err := os.RemoveAll(filepath.Join(mirror(r), "objects")); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(mirror(r), "objects"), 0o755)
		}, ""}, // git's fetch may refill them itself; at most one repair
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := interruptedRow1(t)
			tt.damage(t, r)
			r.request(ledgerPath, "resume | the runner was restarted")
			var buf bytes.Buffer
			rep := r.pass(logged(&buf))
			if got := subjectsOf(rep); len(got) < 2 || got[1] != "loop: record home row 1" {
				t.Errorf("got %v, want the resumed attempt admitted\n%s", got, buf.String())
			}
			if n := strings.Count(buf.String(), tt.log); tt.log != "" && n != 1 {
				t.Errorf("%q logged %d times, want once:\n%s", tt.log, n, buf.String())
			}
			if n := strings.Count(buf.String(), "level=WARN"); n > 1 {
				t.Errorf("%d warnings, want at most one:\n%s", n, buf.String())
			}
		})
	}
}

// A commit left unpushed in an agent checkout is kept on a recovery ref and
// reported before the checkout is reset, never silently discarded.
func TestUnpushedCommitIsKeptOnARecoveryRef(t *testing.T) {
	t.Parallel()
	r := interruptedRow1(t)
	dir := r.checkout()
	writeFile(t, filepath.Join(dir, "stray.txt"), "work of a run whose push never happened\n")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "--quiet", "-m", "stray work")
	stray := run(t, dir, "git", "rev-parse", "HEAD")
	r.request(ledgerPath, "resume | the runner was restarted")
	rep := r.pass()
	var note string
	for _, n := range rep.Notes {
		if strings.Contains(n.Message, "refs/gallivant/recovery/") {
			note = n.Message
		}
	}
	if note == "" {
		t.Fatalf("the kept commit was not reported: %+v", rep.Notes)
	}
	// The checkout was replaced by a fresh one; the commit is in
	// gallivant's mirror.
	refs := run(t, filepath.Join(r.work, "mirrors", "acme__api", "feature.git"), "git", "for-each-ref", "--format=%(objectname) %(refname)", "refs/gallivant/recovery/")
	if !strings.HasPrefix(refs, stray+" refs/gallivant/recovery/gallivant/feature/") {
		t.Errorf("recovery refs %q do not hold %s", refs, stray)
	}
	if !strings.Contains(note, strings.Fields(refs)[1]) {
		t.Errorf("the note %q does not name the ref %s", note, refs)
	}
}

// killedAt runs a pass that dies at the crash point, the first time the
// pass reaches it, as a kill -9 there would end it.
func (r *rig) killedAt(point string) {
	r.t.Helper()
	killed := false
	crash := func(p string) error {
		if p == point && !killed {
			killed = true
			return errKilled
		}
		return nil
	}
	if _, err := r.reconciler(func(o *Options) { o.Crash = crash }).Pass(context.Background()); !errors.Is(err, errKilled) {
		r.t.Fatalf("the pass was not killed at %s: %v", point, err)
	}
}

// killedByAgent runs a pass whose agent panics with errKilled, standing
// for the reconciler killed while its agent runs.
func (r *rig) killedByAgent() {
	r.t.Helper()
	defer func() {
		if v := recover(); v != errKilled {
			panic(v)
		}
	}()
	r.pass()
	r.t.Fatal("the reconciler was not killed")
}

// errKilled stands for a kill -9 of the reconciler: the agent's commit is
// in the checkout, the run record on disk, the push never happened.
var errKilled = errors.New("reconciler killed")

// An orphaned agent (its reconciler died) is found by the next pass through
// the dispatch's run record, and its return is pushed and admitted; the
// attempt does not run again.
func TestOrphanedReturnIsAdmitted(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	scripted := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := scripted(ctx, dir, task)
		if task.Pending.Target == 1 {
			panic(errKilled)
		}
		return err
	}
	r.killedByAgent()
	r.agent = scripted
	if _, err := os.Stat(r.checkout() + ".run"); err != nil {
		t.Fatalf("no run record: %v", err)
	}
	runs := len(r.runs)
	rep := r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: record home row 1" {
		t.Errorf("got %v, want the orphan's return admitted (stop: %s)", got, lineValue(r.ledgerOf("specs/feature.md").Delivery, "stop"))
	}
	if len(r.runs) != runs {
		t.Errorf("the attempt ran again")
	}
	// The record outlives its settling, and answers no later dispatch.
	runs = len(r.runs)
	if got := subjectsOf(r.pass()); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "loop: rerun") }) {
		t.Errorf("a settled run record led to %v", got)
	}
	if slices.ContainsFunc(r.runs[runs:], func(t agent.Task) bool { return t.Pending.Target == 1 }) {
		t.Errorf("row 1 ran again after its orphan was admitted")
	}
}

// An agent that outlived its reconciler and still runs holds the
// checkout's lock: passes wait for it, however late the clock says it is,
// and admit its return once it is done.
func TestLiveOrphanIsWaitedFor(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	scripted := r.agent
	var task agent.Task
	r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
		if tk.Pending.Target == 1 {
			task = tk
			panic(errKilled)
		}
		return scripted(ctx, dir, tk)
	}
	r.killedByAgent()
	// The orphan is still at work: it holds the lock, as the agent process
	// would through its inherited descriptor.
	f, err := os.OpenFile(r.checkout()+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A git process a parallel test forks at this instant shares the
	// killed pass's lock until it execs: the lock is free within moments
	// (the bound only ends a test whose lock stays held).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	r.clock.Advance(2 * time.Hour)
	rep := r.pass()
	if len(rep.Transitions) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Message, "still running") {
		t.Fatalf("the pass did not wait for the live orphan: %v %+v", subjectsOf(rep), rep.Notes)
	}
	// The orphan finishes: it commits and exits.
	if err := scripted(t.Context(), r.checkout(), task); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := subjectsOf(r.pass()); len(got) == 0 || got[0] != "loop: record home row 1" {
		t.Errorf("got %v, want the orphan's return admitted", got)
	}
}

// A review round whose reconciler dies while its agent works is found by
// the next pass through the run record: the agent's commit is pushed and
// the round settles as pushed, never left to time out and run again.
func TestOrphanedRoundIsAdmitted(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	r.pass()
	scripted := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := scripted(ctx, dir, task)
		if task.Round > 0 {
			panic(errKilled)
		}
		return err
	}
	r.as("bob").comment(1, "please rename the helper")
	r.killedByAgent()
	r.agent = scripted
	runs := len(r.runs)
	got := subjectsOf(r.pass())
	if len(got) == 0 || got[0] != "loop: pushed round 1 acme/api#1" {
		t.Errorf("got %v, want the orphaned round's push settled", got)
	}
	if len(r.runs) != runs {
		t.Errorf("the round ran again")
	}
}

// Issue 12: an agent killed with its reconciler before it answered leaves
// a run record and no commit. No process saw it end, so the next pass runs
// the same dispatch again itself (once, without a new count) instead of
// stopping interrupted for a person.
func TestKilledAgentIsRerunOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	scripted := r.agent
	killed := false
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Pending.Target == 1 && !killed {
			killed = true
			panic(errKilled) // before any commit
		}
		return scripted(ctx, dir, task)
	}
	r.killedByAgent()
	iterations := r.ledgerOf("specs/feature.md").Iterations
	got := subjectsOf(r.pass())
	if len(got) < 2 || got[0] != "loop: rerun row 1" || got[1] != "loop: record home row 1" {
		t.Fatalf("got %v, want the killed dispatch rerun and admitted", got)
	}
	if l := r.ledgerOf("specs/feature.md"); l.Iterations != iterations {
		t.Errorf("iterations %d, want %d: a rerun takes no new count", l.Iterations, iterations)
	}
}

// Issue 12: a reconciler killed after it pushed a dispatch but before the
// agent started leaves an intent (a run record with no checkout HEAD). The
// next pass on the cache finds it with the lock free, which proves the
// agent never ran, and reruns the dispatch at once: no person, and no wait
// for executor.timeout.
func TestDispatchKilledBeforeTheAgentStartedIsRerun(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.killedAt("executor:before")
	if intents, _ := filepath.Glob(r.checkout() + ".intent-*"); len(intents) != 1 {
		t.Fatalf("intents %v, want the seed dispatch's", intents)
	}
	runs := len(r.runs)
	got := subjectsOf(r.pass())
	if len(got) < 2 || got[0] != "loop: rerun seed" || got[1] != "loop: record home seed" {
		t.Fatalf("got %v, want the seed dispatch rerun and admitted", got)
	}
	if len(r.runs) <= runs || r.runs[runs].Pending.Target != ledger.SeedTarget || slices.ContainsFunc(r.runs[runs+1:], func(t agent.Task) bool { return t.Pending.Target == ledger.SeedTarget }) {
		t.Errorf("runs after the kill %v, want the seed once", r.runs[runs:])
	}
}

// elsewhere runs the reconciler on a cache of its own, as a reconciler on
// another machine would: it cannot see this cache's run records.
func elsewhere(r *rig, cache string) rigOption {
	return func(o *Options) {
		st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: cache})
		if err != nil {
			r.t.Fatal(err)
		}
		o.Store = st
		ex := o.Executor.(agent.CommandExecutor)
		ex.WorkDir = filepath.Join(cache, "work")
		o.Executor = ex
	}
}

// Issue 12: a reconciler on another cache cannot see the run record of an
// agent killed with its reconciler, so past executor.timeout and the grace
// period it stops the dispatch interrupted. The next pass on the cache that
// holds the record knows the agent never answered and reruns the dispatch
// itself: the stop never waits for a person.
func TestInterruptedByAnotherCacheIsRerunByTheOwner(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	scripted := r.agent
	killed := false
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Pending.Target == 1 && !killed {
			killed = true
			panic(errKilled)
		}
		return scripted(ctx, dir, task)
	}
	r.killedByAgent()
	r.clock.Advance(2 * time.Hour)
	other := t.TempDir()
	if got := subjectsOf(r.pass(elsewhere(r, other))); !slices.Equal(got, []string{"loop: stop interrupted"}) {
		t.Fatalf("the other cache's pass: %v, want the dispatch called over", got)
	}
	got := subjectsOf(r.pass())
	if len(got) < 2 || got[0] != "loop: rerun row 1" || got[1] != "loop: record home row 1" {
		t.Fatalf("the owner's pass: %v, want the interrupted dispatch rerun and admitted", got)
	}
	if _, _, stopped := r.ledgerOf("specs/feature.md").Stop(); stopped {
		t.Errorf("still stopped")
	}
}

// Two reconcilers on different caches can dispatch the same row at the same
// SHA in the same second; only one commit lands. The loser's intent answers
// the winner's dispatch by its pending tuple and dispatched-at, so a pass
// believes an intent only when the control commit it names is on the
// control branch: here it is not, and the dispatch is not rerun (its agent
// may run on the winner's machine).
func TestIntentOfADispatchThatNeverLandedIsIgnored(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.killedAt("executor:before")
	intents, _ := filepath.Glob(r.checkout() + ".intent-*")
	if len(intents) != 1 {
		t.Fatalf("intents %v, want one", intents)
	}
	data, err := os.ReadFile(intents[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil || rec["control"] == "" || rec["control"] == nil {
		t.Fatalf("the intent names no control commit: %s", data)
	}
	rec["control"] = strings.Repeat("ab", 20) // a commit that never landed
	data, _ = json.Marshal(rec)
	if err := os.WriteFile(intents[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	runs := len(r.runs)
	rep := r.pass()
	if got := subjectsOf(rep); len(got) != 0 {
		t.Errorf("got %v, want the dispatch waited for, not rerun", got)
	}
	if len(r.runs) != runs {
		t.Errorf("the agent ran again")
	}
}
