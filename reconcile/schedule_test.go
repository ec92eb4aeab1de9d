package reconcile

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
)

// signalWriter closes a channel the first time a line written to it
// contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return len(b), nil
}

var prNumber = regexp.MustCompile(` acme/api#[0-9]+$`)

// With max_parallel, agents of different entries run at once: spec a's
// row agent does not end before spec b's row is recorded, which a pass
// running one agent at a time could never do. The control branch stays
// one line of commits, each entry's transitions in their order, and every
// dispatch ran exactly once.
func TestParallelRunsAdmitOutOfOrder(t *testing.T) {
	t.Parallel()
	parallelRunsAdmitOutOfOrder(t, nil)
}

// metered wraps the command executor as the daemon's metrics do: its
// declared placement, not its concrete type, earns its runs a slot.
type metered struct {
	agent.CommandExecutor
	mu   *sync.Mutex
	runs *int
}

func (m metered) Run(ctx context.Context, t agent.Task) (agent.Outcome, error) {
	m.mu.Lock()
	*m.runs++
	m.mu.Unlock()
	return m.CommandExecutor.Run(ctx, t)
}

// An executor that wraps the command executor runs its agents in parallel
// slots too: spec b's row is recorded while a's agent still runs.
func TestParallelRunsOfAWrappedExecutor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	runs := 0
	parallelRunsAdmitOutOfOrder(t, func(o *Options) {
		o.Executor = metered{CommandExecutor: o.Executor.(agent.CommandExecutor), mu: &mu, runs: &runs}
	})
	mu.Lock()
	defer mu.Unlock()
	if runs != 6 {
		t.Errorf("the wrapper ran %d agents, want 6 (seed and row 1 of each spec)", runs)
	}
}

func parallelRunsAdmitOutOfOrder(t *testing.T, wrap rigOption) {
	files := map[string]string{
		"specs/a.md":     specWith(1, ""),
		"specs/b.md":     specWith(1, ""),
		"specs/c.md":     specWith(1, ""),
		"gallivant.yaml": strings.Replace(rigConfig, "  timeout: 30m\n", "  timeout: 30m\n  max_parallel: 4\n", 1),
	}
	r := newRig(t, files)
	w := &signalWriter{want: `spec=specs/b.md subject="loop: record home row 1"`, seen: make(chan struct{})}
	bRecorded := w.seen
	scripted := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Spec == "specs/a.md" && task.Pending.Target == 1 {
			select {
			case <-bRecorded:
			case <-time.After(time.Minute):
				return fmt.Errorf("spec b's row was not recorded while a's agent ran")
			}
		}
		return scripted(ctx, dir, task)
	}
	rep := r.pass(func(o *Options) {
		o.Log = slog.New(slog.NewTextHandler(w, nil))
		if wrap != nil {
			wrap(o)
		}
	})
	subjects := map[string][]string{}
	var order []string
	for _, tr := range rep.Transitions {
		subjects[tr.Spec] = append(subjects[tr.Spec], tr.Subject)
		order = append(order, tr.Spec+" "+tr.Subject)
	}
	// Pull request numbers go by who got there first.
	want := []string{"loop: seed ledger", "loop: dispatch seed", "loop: record home seed", "loop: dispatch row 1", "loop: record home row 1", "loop: verify", "loop: open pr", "loop: ready", "loop: announced ready"}
	for _, s := range []string{"specs/a.md", "specs/b.md", "specs/c.md"} {
		var got []string
		for _, sub := range subjects[s] {
			got = append(got, prNumber.ReplaceAllString(sub, ""))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s transitions (-want +got):\n%s\nall: %q\nlog:\n%s", s, diff, order, w.buf.String())
		}
	}
	index := func(s string) int {
		for i, o := range order {
			if o == s {
				return i
			}
		}
		t.Fatalf("%q not among %q", s, order)
		return -1
	}
	if !(index("specs/a.md loop: dispatch row 1") < index("specs/b.md loop: record home row 1") &&
		index("specs/b.md loop: record home row 1") < index("specs/a.md loop: record home row 1")) {
		t.Errorf("b's row was not admitted while a's agent ran: %q", order)
	}
	// One line of commits on the control branch, exactly the report's.
	merges := run(t, r.control, "git", "rev-list", "--merges", "--count", "main")
	got := r.subjects()[1:]
	var reported []string
	for _, tr := range rep.Transitions {
		reported = append(reported, tr.Subject)
	}
	if merges != "0" || !cmp.Equal(reported, got) {
		t.Errorf("control history (%s merges) %q, report %q", merges, got, reported)
	}
	// Every dispatch ran once.
	runs := map[string]int{}
	for _, task := range r.runs {
		runs[fmt.Sprintf("%s %s", task.Spec, task.Pending.TargetString())]++
	}
	for k, n := range runs {
		if n != 1 {
			t.Errorf("%s ran %d times", k, n)
		}
	}
	if len(runs) != 6 {
		t.Errorf("runs %v, want seed and row 1 of each spec", runs)
	}
}

// A pass over eight ready entries whose agents each take the same time
// takes about ceil(8/max_parallel) rounds of it. The benchmark reports the
// parallel pass's time against one agent at a time (speedup, higher is
// better; the ideal is max_parallel) and, for the serial pass, what
// gallivant spends around the agents: s/gallivant-per-entry-serial is the
// pass's time outside every agent call (the agent's own work, its sleep
// and its git add and commit, taken off) per entry, each entry's pass
// calling its agent twice (the seed, then row 1) and verifying once: the
// fetch, checkout, copy and push of its runs and the pass's share (issue
// 33 asks it halved). s/run-overhead-serial takes only one sleep per entry
// off, s/agent-call-overhead-serial every sleep, divided by the calls;
// both count the agent's git as gallivant's.
func BenchmarkParallelRuns(b *testing.B) {
	const entries, agentTime = 8, 500 * time.Millisecond
	var calls atomic.Int64   // the agent calls of the serial passes
	var inAgent atomic.Int64 // their time, in nanoseconds
	passTime := func(parallel int) time.Duration {
		files := map[string]string{"gallivant.yaml": strings.Replace(rigConfig, "  timeout: 30m\n", fmt.Sprintf("  timeout: 30m\n  max_parallel: %d\n", parallel), 1)}
		for i := range entries {
			files[fmt.Sprintf("specs/s%d.md", i)] = specWith(1, "")
		}
		r := newRig(b, files)
		scripted := r.agent
		r.agent = func(ctx context.Context, dir string, task agent.Task) error {
			if parallel == 1 {
				calls.Add(1)
				defer func(start time.Time) { inAgent.Add(int64(time.Since(start))) }(time.Now())
			}
			time.Sleep(agentTime) // the stand-in agent's work
			return scripted(ctx, dir, task)
		}
		start := time.Now()
		rep := r.pass()
		d := time.Since(start)
		if n := countSubjects(rep, "loop: record home row 1"); n != entries {
			b.Fatalf("%d rows recorded, want %d: %q", n, entries, subjectsOf(rep))
		}
		return d
	}
	var serial, parallel time.Duration
	for b.Loop() {
		serial += passTime(1)
		parallel += passTime(4)
	}
	b.ReportMetric(float64(serial)/float64(parallel), "speedup-vs-max_parallel-1")
	b.ReportMetric(serial.Seconds()/float64(b.N), "s/pass-serial")
	b.ReportMetric(parallel.Seconds()/float64(b.N), "s/pass-parallel-4")
	b.ReportMetric((serial.Seconds()/float64(b.N)-entries*agentTime.Seconds())/entries, "s/run-overhead-serial")
	n := float64(calls.Load())
	b.ReportMetric((serial.Seconds()-n*agentTime.Seconds())/n, "s/agent-call-overhead-serial")
	b.ReportMetric(n/float64(b.N)/entries, "agent-calls/entry")
	b.ReportMetric((serial.Seconds()-time.Duration(inAgent.Load()).Seconds())/float64(b.N)/entries, "s/gallivant-per-entry-serial")
}

// max_parallel_per_repo bounds the runs in one repository below
// max_parallel; another repository still gets a slot.
func TestSchedulerPerRepoLimit(t *testing.T) {
	t.Parallel()
	s := newScheduler(4, 1)
	ctx := context.Background()
	releaseA, err := s.acquire(ctx, "acme/api")
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan func())
	go func() {
		release, err := s.acquire(ctx, "acme/api")
		if err != nil {
			t.Error(err)
		}
		second <- release
	}()
	releaseWeb, err := s.acquire(ctx, "acme/web")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-second:
		t.Fatal("a second run in acme/api started while the first ran")
	default:
	}
	releaseA()
	(<-second)()
	releaseWeb()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	full := newScheduler(1, 0)
	release, _ := full.acquire(ctx, "a")
	if _, err := full.acquire(cancelled, "b"); err == nil {
		t.Errorf("a cancelled wait for a slot succeeded")
	}
	release()
}
