package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/ledger"
)

const wavesKitSpec = `---
engine: waves
---
# Feature Specification: Rate limit

## User Scenarios & Testing

### User Story 1 - Callers over the limit are told to wait (Priority: P1)

**Acceptance Scenarios**:

1. **Given** a token over its limit, **When** it sends a request, **Then** the response is 429

## Verify

- ` + "`test -d rows`" + `
`

const wavesKitTasks = `# Tasks: Rate limit

## Phase 1: User Story 1 (Priority: P1)

- [ ] T001 [P] [US1] Count requests in ratelimit/window.go
- [ ] T002 [P] [US1] Answer 429 in ratelimit/respond.go

## Phase 2: Polish

- [ ] T003 [US1] Document the limits in ratelimit/doc.go
`

// wavesRig is a rig whose spec-kit feature is delivered by its three
// tasks in two waves, at max_parallel 2; its agent answers a task brief
// with the task's file and return (taskFiles), and rows as the scripted
// agent does.
func wavesRig(t *testing.T, taskFiles map[string]string) *rig {
	t.Helper()
	cfg := strings.Replace(rigConfig, "  timeout: 30m\n", "  timeout: 30m\n  max_parallel: 2\n", 1) + "formats:\n  spec_kit: [specs]\n"
	r := newRig(t, map[string]string{"gallivant.yaml": cfg, "specs/001-rate-limit/spec.md": wavesKitSpec, "specs/001-rate-limit/tasks.md": wavesKitTasks})
	rows := r.agent
	r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
		if tk.PlanTask == "" {
			return rows(ctx, dir, tk)
		}
		return answerTask(ctx, dir, tk, taskFiles[tk.PlanTask])
	}
	return r
}

// answerTask writes file and commits the task return the brief asks for.
func answerTask(ctx context.Context, dir string, tk agent.Task, file string) error {
	tuple := ""
	for _, ln := range strings.Split(tk.Brief, "\n") {
		if strings.HasPrefix(ln, "task: ") && strings.Contains(ln, " | attempt ") {
			tuple = ln
			break
		}
	}
	if tuple == "" {
		return errors.New("the brief has no task: line")
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte("// "+tk.PlanTask+"\n"), 0o644); err != nil {
		return err
	}
	msg := fmt.Sprintf("loop: task %s done\n\n%s\n\nWrote %s.", tk.PlanTask, tuple, file)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "--quiet", "-m", msg}} {
		if out, err := gitIn(ctx, dir, args...); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	return nil
}

// The tasks of a wave run at once, each in its own checkout; their
// commits land on the work branch in task order, wave 2 starts from wave
// 1's head, and the rows are then delivered as for any entry. Every
// transition replays.
func TestWaveRunsItsTasksAtOnce(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	r := wavesRig(t, files)
	// T001's agent waits until T002's has started: run one after the
	// other, the wave would never finish (the guard fails it instead).
	started := make(chan struct{})
	var once sync.Once
	inner := r.agent
	dirs := map[string]string{}
	var mu sync.Mutex
	r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
		mu.Lock()
		dirs[tk.PlanTask] = dir
		mu.Unlock()
		switch tk.PlanTask {
		case "T002":
			once.Do(func() { close(started) })
		case "T001":
			select {
			case <-started:
			case <-time.After(20 * time.Second):
				return errors.New("T002 never started while T001 ran: the wave's tasks ran one after the other")
			}
		}
		return inner(ctx, dir, tk)
	}
	rep := r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: seed ledger", "loop: dispatch task T001", "loop: dispatch task T002", "loop: record task T001 done", "loop: record task T002 done",
		"loop: dispatch task T003", "loop: record task T003 done", "loop: dispatch seed"}
	if len(got) < len(want) || !cmp.Equal(want, got[:len(want)]) {
		t.Fatalf("transitions (-want +got):\n%s\nnotes: %s\n%s", cmp.Diff(want, got), noteOf(rep), sentencesOf(rep))
	}
	if dirs["T001"] == dirs["T002"] || dirs["T001"] == "" {
		t.Errorf("the tasks of a wave shared a checkout: %v", dirs)
	}
	log := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--reverse", "--format=%s", "gallivant/001-rate-limit")
	var tasks []string
	for _, s := range strings.Split(log, "\n") {
		if strings.HasPrefix(s, "loop: task ") {
			tasks = append(tasks, s)
		}
	}
	if diff := cmp.Diff([]string{"loop: task T001 done", "loop: task T002 done", "loop: task T003 done"}, tasks); diff != "" {
		t.Errorf("task commits on the work branch (-want +got):\n%s", diff)
	}
	l := r.ledger("plans/001-rate-limit-ledger.md")
	for _, tk := range l.Tasks {
		if tk.Status != ledger.TaskDone || tk.Attempts != 1 {
			t.Errorf("task %s is %s after %d attempts, want done after 1", tk.ID, tk.Status, tk.Attempts)
			continue
		}
		if s := run(t, r.gh.RepoDir("acme/api"), "git", "log", "-1", "--format=%s", tk.SHA); s != "loop: task "+tk.ID+" done" {
			t.Errorf("task %s records %s, whose subject is %q", tk.ID, tk.SHA, s)
		}
		if err := run2(r.gh.RepoDir("acme/api"), "merge-base", "--is-ancestor", tk.SHA, "gallivant/001-rate-limit"); err != nil {
			t.Errorf("task %s's recorded commit %s is not on the work branch", tk.ID, tk.SHA)
		}
	}
	// Wave 2 started from the head wave 1 left.
	t3 := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--format=%B", "-1", "--grep=^loop: task T003 done$", "gallivant/001-rate-limit")
	head := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--format=%H", "-1", "--grep=^loop: task T002 done$", "gallivant/001-rate-limit")
	if !strings.Contains(t3, "task: T003 | attempt 1 | "+head) {
		t.Errorf("T003 did not start from wave 1's head %s:\n%s", head, t3)
	}
	verifyControl(t, r)
}

// gitIn runs git in dir with a fixed identity, as an agent's git would.
func gitIn(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run2 runs git in dir and returns only whether it succeeded.
func run2(dir string, args ...string) error {
	_, err := gitIn(context.Background(), dir, args...)
	return err
}

func sentencesOf(rep *Report) string {
	var b strings.Builder
	for _, tr := range rep.Transitions {
		fmt.Fprintf(&b, "%s: %s\n", tr.Subject, tr.Sentence)
	}
	return b.String()
}

// A task's return that changes another task's file is refused, naming the
// file, and so is one that no longer applies to the work branch, and an
// agent that fails says why; each is a failed attempt, and the next
// attempt, answered well, is done.
func TestWaveTaskMisses(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	for _, tc := range []struct {
		name string
		// first misbehaves on attempt 1 of task T002.
		first  func(r *rig, ctx context.Context, dir string, tk agent.Task) error
		reason string
	}{
		{name: "another task's file",
			first: func(r *rig, ctx context.Context, dir string, tk agent.Task) error {
				return answerTask(ctx, dir, tk, "ratelimit/window.go")
			},
			reason: `Recorded task T002 of wave 1 failed on attempt 1: the return broke the contract: the return changes 'ratelimit/window.go', outside task T002's files.`},
		{name: "an agent that fails",
			first: func(r *rig, ctx context.Context, dir string, tk agent.Task) error {
				return errors.New("the model is out of tokens")
			},
			reason: `Recorded task T002 of wave 1 failed on attempt 1: the agent run failed: the model is out of tokens (log `},
		{name: "a return that no longer applies",
			first: func(r *rig, ctx context.Context, dir string, tk agent.Task) error {
				// Someone changes the task's file on the work branch while
				// the task runs.
				if err := os.WriteFile(filepath.Join(dir, "ratelimit-respond.txt"), nil, 0o644); err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(dir, "ratelimit"), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, "ratelimit/respond.go"), []byte("// a person's\n"), 0o644); err != nil {
					return err
				}
				url := r.gh.GitURLWithToken("acme/api", r.gh.MainToken())
				for _, args := range [][]string{{"add", "ratelimit/respond.go"}, {"commit", "--quiet", "-m", "A person's change"},
					{"push", "--quiet", url, "HEAD:refs/heads/gallivant/001-rate-limit"}, {"reset", "--quiet", "--hard", "HEAD~1"}} {
					if out, err := gitIn(ctx, dir, args...); err != nil {
						return fmt.Errorf("git %v: %w\n%s", args, err, out)
					}
				}
				os.Remove(filepath.Join(dir, "ratelimit-respond.txt"))
				return answerTask(ctx, dir, tk, "ratelimit/respond.go")
			},
			reason: `Recorded task T002 of wave 1 failed on attempt 1: the return does not apply to gallivant/001-rate-limit: commit `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := wavesRig(t, files)
			inner := r.agent
			var second string // the brief of T002's second attempt
			r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
				if tk.PlanTask == "T002" && strings.Contains(tk.Brief, "task: T002 | attempt 1 | ") {
					return tc.first(r, ctx, dir, tk)
				}
				if tk.PlanTask == "T002" && strings.Contains(tk.Brief, "task: T002 | attempt 2 | ") {
					second = tk.Brief
				}
				return inner(ctx, dir, tk)
			}
			// The pass ends at its first row's agent: the waves are done.
			rep, err := r.reconciler(func(o *Options) { o.Crash = rowsStart }).Pass(context.Background())
			if !errors.Is(err, errRowsStart) {
				t.Fatalf("the pass ended with %v before the rows started", err)
			}
			sentences := sentencesOf(rep)
			if !strings.Contains(sentences, "loop: record task T002 failed: "+tc.reason) {
				t.Fatalf("the miss is not recorded with %q:\n%s\nnotes: %s\n%s", tc.reason, sentences, noteOf(rep), r.log.String())
			}
			l := r.ledger("plans/001-rate-limit-ledger.md")
			if tk, _ := l.Task("T002"); tk.Status != ledger.TaskDone || tk.Attempts != 2 {
				t.Errorf("task T002 is %s after %d attempts, want done after 2", tk.Status, tk.Attempts)
			}
			// The second attempt is told why the first was refused.
			why := strings.TrimSuffix(strings.TrimPrefix(tc.reason, "Recorded task T002 of wave 1 failed on attempt 1: "), ".")
			if !strings.Contains(second, "## The previous attempt\n\nAttempt 1 of this task was refused") || !strings.Contains(second, why) {
				t.Errorf("the second attempt's brief does not quote the refusal %q:\n%s", why, second)
			}
			verifyControl(t, r)
		})
	}
}

// A plan of three waves of four tasks each, whose stand-in agent takes the
// same time per task, against the same twelve tasks one at a time: at
// max_parallel 4 a pass takes about three agent times instead of twelve.
// The benchmark reports the wall time of the parallel pass over the serial
// one (lower is better; the ideal is 0.25) and the agent runs per pass.
func BenchmarkWaveParallel(b *testing.B) {
	const agentTime = time.Second
	var tasks strings.Builder
	tasks.WriteString("# Tasks: Rate limit\n")
	files := map[string]string{}
	for w := 1; w <= 3; w++ {
		fmt.Fprintf(&tasks, "\n## Phase %d: Part %d\n\n", w, w)
		for k := 1; k <= 4; k++ {
			id := fmt.Sprintf("T%d%02d", w, k)
			files[id] = fmt.Sprintf("ratelimit/part%d_%d.go", w, k)
			fmt.Fprintf(&tasks, "- [ ] %s [P] [US1] Write %s\n", id, files[id])
		}
	}
	passTime := func(parallel int) (time.Duration, int) {
		cfg := strings.Replace(rigConfig, "  timeout: 30m\n", fmt.Sprintf("  timeout: 30m\n  max_parallel: %d\n", parallel), 1) + "formats:\n  spec_kit: [specs]\n"
		r := newRig(b, map[string]string{"gallivant.yaml": cfg, "specs/001-rate-limit/spec.md": wavesKitSpec, "specs/001-rate-limit/tasks.md": tasks.String()})
		rows := r.agent
		var runs int
		var mu sync.Mutex
		r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
			if tk.PlanTask == "" {
				return rows(ctx, dir, tk)
			}
			mu.Lock()
			runs++
			mu.Unlock()
			time.Sleep(agentTime) // the stand-in agent's work
			return answerTask(ctx, dir, tk, files[tk.PlanTask])
		}
		start := time.Now()
		rep := r.pass()
		d := time.Since(start)
		if n := countSubjects(rep, "loop: record task"); n != 12 || runs != 12 {
			b.Fatalf("%d tasks recorded in %d runs, want 12 in 12: %q", n, runs, subjectsOf(rep))
		}
		return d, runs
	}
	var serial, parallel time.Duration
	var runs int
	for b.Loop() {
		d, _ := passTime(1)
		serial += d
		d, n := passTime(4)
		parallel += d
		runs += n
	}
	b.ReportMetric(float64(parallel)/float64(serial), "wall-parallel-4/serial")
	b.ReportMetric(serial.Seconds()/float64(b.N), "s/pass-serial")
	b.ReportMetric(parallel.Seconds()/float64(b.N), "s/pass-parallel-4")
	b.ReportMetric(float64(runs)/float64(b.N), "runs/pass")
}

// A pass that dies at any step boundary of wave 1 — a dispatch written
// but not pushed, pushed but not run, run but not settled, applied to the
// work branch but not recorded — is resumed by the next pass: no task's
// attempt runs twice, every task's commit is on the work branch exactly
// once by the time the rows start, and verify replays it all. (Each pass
// ends at its first row's agent: the rows are the row loop's, proven by
// TestCrashAnywhere.)
func TestWaveCrashResume(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	ref := wavesRig(t, files)
	var points []string
	_, err := ref.reconciler(func(o *Options) {
		o.Crash = func(p string) error { points = append(points, p); return rowsStart(p) }
	}).Pass(context.Background())
	if !errors.Is(err, errRowsStart) {
		t.Fatalf("the reference pass: %v", err)
	}
	// Wave 1's boundaries, up to wave 2's first run.
	batches := 0
	for i, p := range points {
		if p == "tasks:before" {
			if batches++; batches == 2 {
				points = points[:i+1]
				break
			}
		}
	}
	if batches != 2 || !slices.Contains(points, "task:applied") {
		t.Fatalf("the reference pass has no two batches of tasks: %v", points)
	}
	// A crash after a dispatch is committed and before it is pushed,
	// after the push and before the agents, after the agents and before
	// settling, and after each of wave 1's applies and before its record.
	picked := map[string]bool{}
	for k, p := range points {
		switch {
		case p == "task:applied":
		case (p == "push:after" || p == "tasks:after") && !picked[p]:
		case p == "commit" && k+1 < len(points) && points[k+1] == "push:before" && !picked[p]:
		default:
			continue
		}
		picked[p] = true
		t.Run(fmt.Sprintf("%02d-%s", k, p), func(t *testing.T) {
			t.Parallel()
			r := wavesRig(t, files)
			n := 0
			crash := func(p string) error {
				if n++; n == k+1 {
					return errInjected
				}
				return rowsStart(p)
			}
			for i := 0; ; i++ {
				if i == 4 {
					t.Fatalf("the waves did not finish: %v", r.subjects())
				}
				_, err := r.reconciler(func(o *Options) { o.Crash = crash }).Pass(context.Background())
				if errors.Is(err, errInjected) {
					crash = func(p string) error { return rowsStart(p) } // the process died; the next one runs clean
					continue
				}
				if errors.Is(err, errRowsStart) {
					break
				}
				t.Fatalf("pass %d ended with %v before the rows started", i, err)
			}
			ran := map[string]int{}
			for _, tk := range r.runs {
				if tk.PlanTask != "" {
					_, attempt, _ := strings.Cut(tk.Brief[strings.Index(tk.Brief, "task: "+tk.PlanTask+" | attempt "):], " | attempt ")
					attempt, _, _ = strings.Cut(attempt, " ")
					ran[tk.PlanTask+" attempt "+attempt]++
				}
			}
			for key, n := range ran {
				if n > 1 {
					t.Errorf("task %s ran %d times", key, n)
				}
			}
			log := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--format=%s", "gallivant/001-rate-limit")
			l := r.ledger("plans/001-rate-limit-ledger.md")
			for _, tk := range l.Tasks {
				if c := strings.Count(log+"\n", "loop: task "+tk.ID+" done\n"); tk.Status != ledger.TaskDone || c != 1 {
					t.Errorf("task %s is %s and its commit is %d times on the work branch, want done and once", tk.ID, tk.Status, c)
				}
				if err := run2(r.gh.RepoDir("acme/api"), "merge-base", "--is-ancestor", tk.SHA, "gallivant/001-rate-limit"); err != nil {
					t.Errorf("task %s's recorded commit %s is not on the work branch", tk.ID, tk.SHA)
				}
			}
			verifyControl(t, r)
		})
	}
}

// errRowsStart ends a pass at its first row agent's run (rowsStart).
var errRowsStart = errors.New("the rows start")

func rowsStart(point string) error {
	if point == "executor:before" {
		return errRowsStart
	}
	return nil
}

// A task's agent that fails because of its environment (here its quota is
// spent) is the pass's one problem, as for a row: its dispatch is
// withdrawn without spending the attempt (`loop: withdraw task`, replayed
// by verify), no further agent starts in the pass, and the next pass
// dispatches the task again as the same attempt.
func TestWaveTaskEnvironmentFailureIsWithdrawn(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	r := wavesRig(t, files)
	inner := r.agent
	failed := 0
	r.agent = func(ctx context.Context, dir string, tk agent.Task) error {
		if tk.PlanTask == "T002" && failed == 0 {
			failed++
			return &agent.Failure{Kind: agent.FailureQuota, Status: 429, Cause: "insufficient_quota: you exceeded your current quota"}
		}
		return inner(ctx, dir, tk)
	}
	rep := r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: seed ledger", "loop: dispatch task T001", "loop: dispatch task T002", "loop: record task T001 done", "loop: withdraw task T002"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("first pass (-want +got):\n%s\nnotes: %s\n%s", diff, noteOf(rep), sentencesOf(rep))
	}
	if s := sentencesOf(rep); !strings.Contains(s, "Withdrew the dispatch of task T002 of wave 1 (iteration 2): ") || !strings.Contains(s, "insufficient_quota") ||
		!strings.Contains(s, "it is dispatched again in a later pass without a new attempt.") {
		t.Errorf("the withdrawal does not say why:\n%s", s)
	}
	if n := noteOf(rep); !strings.Contains(n, "insufficient_quota") {
		t.Errorf("no note names the environment failure: %s", n)
	}
	l := r.ledger("plans/001-rate-limit-ledger.md")
	if tk, _ := l.Task("T002"); tk.Status != ledger.TaskOpen || tk.Attempts != 0 {
		t.Errorf("after the withdrawal task T002 is %s after %d attempts, want open after 0", tk.Status, tk.Attempts)
	}
	if !strings.HasPrefix(l.Delivery.Unavailable, "iteration 2: ") {
		t.Errorf("unavailable: %q, want the withdrawn iteration 2", l.Delivery.Unavailable)
	}
	verifyControl(t, r)

	// The next pass, with the agent working again, runs T002 as attempt 1.
	rep, err := r.reconciler(func(o *Options) { o.Crash = rowsStart }).Pass(context.Background())
	if !errors.Is(err, errRowsStart) {
		t.Fatalf("the second pass ended with %v before the rows started\nnotes: %s\n%s", err, noteOf(rep), sentencesOf(rep))
	}
	if s := sentencesOf(rep); !strings.Contains(s, "Dispatched task T002 of wave 1 as attempt 1 (iteration 3)") {
		t.Errorf("task T002 is not dispatched again as attempt 1:\n%s", s)
	}
	l = r.ledger("plans/001-rate-limit-ledger.md")
	for _, id := range []string{"T001", "T002", "T003"} {
		if tk, _ := l.Task(id); tk.Status != ledger.TaskDone || tk.Attempts != 1 {
			t.Errorf("task %s is %s after %d attempts, want done after 1", id, tk.Status, tk.Attempts)
		}
	}
	if l.Delivery.Unavailable != "" {
		t.Errorf("unavailable: %q survived the next dispatch", l.Delivery.Unavailable)
	}
	verifyControl(t, r)
}

// Under a preset CLI (Claude Code, codex) a wave's tasks run too: the CLI
// leaves its changes and ends with a status and a decision, and the preset
// completes them into the task's one return — `loop: task <id> done`, the
// brief's task: line, the decision's first part as the summary — which is
// admitted and applied as any task's (docs/plans.md "Wave execution").
func TestWavesUnderPresetCLI(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			bin := agentstandin.Write(t)
			r := wavesRig(t, nil)
			opt := func(o *Options) {
				o.Executor = agent.CommandExecutor{Kind: kind, Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Environ: standinEnviron(bin)}
			}
			rep := r.pass(opt)
			got := subjectsOf(rep)
			for _, want := range []string{"loop: record task T001 done", "loop: record task T002 done", "loop: record task T003 done"} {
				if !slices.Contains(got, want) {
					t.Fatalf("no %q in %q\nnotes: %s\n%s", want, got, noteOf(rep), sentencesOf(rep))
				}
			}
			if i, j := slices.Index(got, "loop: record task T002 done"), slices.Index(got, "loop: dispatch task T003"); j < i {
				t.Errorf("wave 2 was dispatched before wave 1 was in: %q", got)
			}
			work := r.gh.RepoDir("acme/api")
			for id, file := range map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"} {
				msg := run(t, work, "git", "log", "--format=%B", "-1", "--grep=^task: "+id+" | attempt 1 | ", "gallivant/001-rate-limit")
				if !strings.HasPrefix(msg, "loop: task "+id+" done\n\ntask: "+id+" | attempt 1 | ") || !strings.Contains(msg, "\n\nwrote "+file+"\n") {
					t.Errorf("task %s's commit on the work branch:\n%s", id, msg)
				}
				if body := run(t, work, "git", "show", "gallivant/001-rate-limit:"+file); body != "task "+id {
					t.Errorf("%s on the work branch holds %q", file, body)
				}
			}
			verifyControl(t, r)
		})
	}
}

// A pending task this machine has no record of — dispatched by another
// reconciler, on another cache, whose agent may still run — is waited for
// while its dispatch is within executor.timeout and executor.grace, rather
// than settled as a miss and run a second time; once the window has passed
// with no return on its branch, it is a miss and runs again.
func TestWaveTaskOfAnotherReconcilerIsWaitedFor(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	r := wavesRig(t, files)
	gone := errors.New("the other machine is gone")
	// Machine A dispatches wave 1 and is gone before its agents run.
	_, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			if point == "tasks:before" {
				return gone
			}
			return nil
		}
	}).Pass(context.Background())
	if !errors.Is(err, gone) {
		t.Fatalf("machine A's pass ended with %v", err)
	}
	l := r.ledger("plans/001-rate-limit-ledger.md")
	if tk, _ := l.Task("T001"); tk.Status != ledger.TaskPending || l.Delivery.DispatchedAt.IsZero() {
		t.Fatalf("after machine A: T001 is %s, dispatched-at %v; want pending with a dispatch time", tk.Status, l.Delivery.DispatchedAt)
	}
	// Machine B, with a cache of its own, finds the tasks pending.
	otherMachine := func(o *Options) {
		exec := o.Executor.(agent.CommandExecutor)
		exec.WorkDir = t.TempDir()
		o.Executor = exec
	}
	rep := r.pass(otherMachine)
	if got := countSubjects(rep, "loop: record task"); got != 0 {
		t.Fatalf("machine B settled a task another reconciler may still run: %q", subjectsOf(rep))
	}
	if n := noteOf(rep); !strings.Contains(n, "waiting for task T001: dispatched at ") || !strings.Contains(n, "no record of") {
		t.Errorf("machine B does not say what it waits for: %s", n)
	}
	// Past the window with no return, the attempt is a miss and the task
	// runs again.
	r.clock.Advance(2 * time.Hour)
	rep = r.pass(otherMachine)
	sentences := sentencesOf(rep)
	for _, want := range []string{"Recorded task T001 of wave 1 failed on attempt 1", "Dispatched task T001 of wave 1 as attempt 2", "Recorded task T001 of wave 1 done"} {
		if !strings.Contains(sentences, want) {
			t.Errorf("after the window machine B did not say %q:\n%s\nnotes: %s", want, sentences, noteOf(rep))
		}
	}
	verifyControl(t, r)
}

// Issue 33: the push that applies an admitted task's commit to the work
// branch (agent.ApplyCommit) meets GitHub's or the network's failure. One
// failure is tried again in the same pass: the task is recorded done once,
// no agent runs twice, and the commit is on the work branch once — also
// when the failed push had landed (a reset after the update). When every
// try fails the pass reports the problem and records nothing; the task
// stays pending with its return on its branch, and the next pass applies
// that return without running the task again (R-12: a dispatch runs at
// most once per attempt).
func TestWaveApplyPushFailing(t *testing.T) {
	t.Parallel()
	files := map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"}
	applyPush := `^/acme/api\.git/git-receive-pack$`
	for _, tc := range []struct {
		name  string
		fault ghstandin.Fault
		// lost is whether the first pass cannot apply (every try fails).
		lost bool
	}{
		{name: "503 once", fault: ghstandin.Fault{Git: true, Method: "POST", Path: applyPush, Kind: ghstandin.FaultStatus, Status: 503, Count: 1}},
		{name: "reset after the push landed", fault: ghstandin.Fault{Git: true, Method: "POST", Path: applyPush, Kind: ghstandin.FaultReset, Count: 1}},
		{name: "every try fails", fault: ghstandin.Fault{Git: true, Method: "POST", Path: applyPush, Kind: ghstandin.FaultStatus, Status: 503}, lost: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := wavesRig(t, files)
			remove := func() {}
			armed := false
			// Wave 1's agents have pushed their returns to their own
			// branches; the next git push is T001's apply.
			armAtApply := func(point string) error {
				if point == "tasks:after" && !armed {
					armed = true
					remove = r.gh.InjectFault(tc.fault)
				}
				return rowsStart(point)
			}
			rep, err := r.reconciler(func(o *Options) { o.Crash = armAtApply }).Pass(context.Background())
			if !armed {
				t.Fatal("the fault was never armed: the test proves nothing")
			}
			var got []string
			if tc.lost {
				if err != nil {
					t.Fatalf("the pass whose apply push failed ended with %v, want its problem noted", err)
				}
				if !slices.ContainsFunc(problemsOf(rep), func(n Note) bool {
					return strings.Contains(n.Message, "push gallivant/001-rate-limit with ") && strings.Contains(n.Message, "503")
				}) {
					t.Errorf("the failed apply push is not a problem of the pass: %s", noteOf(rep))
				}
				got = subjectsOf(rep)
				if want := []string{"loop: seed ledger", "loop: dispatch task T001", "loop: dispatch task T002"}; !cmp.Equal(want, got) {
					t.Errorf("the pass whose apply push failed (-want +got):\n%s", cmp.Diff(want, got))
				}
				if tk, _ := r.ledger("plans/001-rate-limit-ledger.md").Task("T001"); tk.Status != ledger.TaskPending || tk.Attempts != 1 {
					t.Errorf("after the failed apply T001 is %s after %d attempts, want pending after 1", tk.Status, tk.Attempts)
				}
				remove() // GitHub is back
				rep, err = r.reconciler(func(o *Options) { o.Crash = rowsStart }).Pass(context.Background())
			} else if left := r.gh.Faults(); len(left) != 0 {
				t.Errorf("the fault was not met: %+v", left)
			}
			if !errors.Is(err, errRowsStart) {
				t.Fatalf("the pass ended with %v before the rows started\nnotes: %s\n%s", err, noteOf(rep), sentencesOf(rep))
			}
			if p := problemsOf(rep); len(p) != 0 {
				t.Errorf("the pass that applied the tasks has problems: %+v", p)
			}
			got = append(got, subjectsOf(rep)...)
			want := []string{"loop: seed ledger", "loop: dispatch task T001", "loop: dispatch task T002", "loop: record task T001 done", "loop: record task T002 done",
				"loop: dispatch task T003", "loop: record task T003 done", "loop: dispatch seed"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("transitions (-want +got):\n%s\nnotes: %s", diff, noteOf(rep))
			}
			ran := map[string]int{}
			for _, tk := range r.runs {
				if tk.PlanTask != "" {
					ran[tk.PlanTask]++
				}
			}
			if diff := cmp.Diff(map[string]int{"T001": 1, "T002": 1, "T003": 1}, ran); diff != "" {
				t.Errorf("task agent runs (-want +got):\n%s", diff)
			}
			log := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--format=%s", "gallivant/001-rate-limit")
			l := r.ledger("plans/001-rate-limit-ledger.md")
			for _, tk := range l.Tasks {
				if c := strings.Count(log+"\n", "loop: task "+tk.ID+" done\n"); tk.Status != ledger.TaskDone || tk.Attempts != 1 || c != 1 {
					t.Errorf("task %s is %s after %d attempts and its commit is %d times on the work branch, want done after 1 and once", tk.ID, tk.Status, tk.Attempts, c)
				}
				if err := run2(r.gh.RepoDir("acme/api"), "merge-base", "--is-ancestor", tk.SHA, "gallivant/001-rate-limit"); err != nil {
					t.Errorf("task %s's recorded commit %s is not on the work branch", tk.ID, tk.SHA)
				}
			}
			verifyControl(t, r)
		})
	}
}
