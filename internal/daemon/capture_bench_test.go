package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
)

// benchControl builds a control repository of specs specs, each with its
// ledger, and commits commits after the first, each revising one ledger
// as a loop: commit does: every ledger is young (fewer than historyLimit
// commits of its own), so a walk per ledger goes to the root, the case
// issue 33 measured.
func benchControl(b *testing.B, specs, commits int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "ctl")
	git := func(stdin string, args ...string) {
		b.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	git("", "init", "--quiet", "--initial-branch=main")
	ledger := func(i, iterations int) string {
		return fmt.Sprintf("# Ledger - loop engine\n**Spec:** `specs/s%03d.md`\nbase: 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n"+
			"verification: go test ./...\nchecks: commands\niterations: %d\nallowance: 50\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n"+
			"| 1 | open | 0 | |\n\n## Decisions\n\n## Delivery\nspec-commit: 0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5\ncontract: 5e1f0a9b3c2d\n"+
			"branch: gallivant/s%03d\nphase: implement\n", i, iterations, i)
	}
	var s strings.Builder
	file := func(p, c string) { fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", p, len(c), c) }
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for k := 0; k <= commits; k++ {
		msg := fmt.Sprintf("loop: record %d", k)
		if k == 0 {
			msg = "Approve the specs"
		}
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter g <g@x> %d +0000\ndata %d\n%s\n", when+int64(k), len(msg), msg)
		if k == 0 {
			file("gallivant.yaml", "defaults:\n  repo: acme/api\nexecutor:\n  kind: none\n")
			for i := 0; i < specs; i++ {
				file(fmt.Sprintf("specs/s%03d.md", i), fmt.Sprintf("# S%03d\n\n## Acceptance criteria\n1. Works.\n", i))
				file(fmt.Sprintf("plans/s%03d-ledger.md", i), ledger(i, 0))
			}
		} else {
			file(fmt.Sprintf("plans/s%03d-ledger.md", k%specs), ledger(k%specs, k))
		}
		s.WriteString("\n")
	}
	git(s.String(), "fast-import", "--quiet")
	git("", "reset", "--quiet", "--hard", "main")
	return dir
}

// walkCounter counts a capture's history walks.
type walkCounter struct {
	historian
	walks *atomic.Int64
}

func (w walkCounter) Logs(ctx context.Context, paths []string, limit int) (map[string][]store.LogEntry, error) {
	w.walks.Add(1)
	return w.historian.Logs(ctx, paths, limit)
}

// BenchmarkWebhookBurst is issue 33's webhook burst at 500 specs and
// 1,500 commits: a webhook's pass, and a second webhook delivered the
// moment the first pass has committed. The pass here reads the control
// repository as an idle pass does (reconcile.Load); the dashboard's
// capture follows it. Reported: burst-ratio, the second webhook's latency
// (delivery to its pass's end) over the first's, and burst-extra-ms, the
// difference (issue 33's goal: within 3 s); walks/pass, history
// walks per pass; slot-ms, what the capture adds inside the slot (the
// statuses); capture-ms, its history walk, outside the slot;
// per-entry-walks-ms, what one git-log walk per ledger costs (how the
// capture read the histories before, inside the slot), from a sample of
// 20 ledgers; and old-burst-ratio, the ratio those walks made.
func BenchmarkWebhookBurst(b *testing.B) {
	const specs, commits = 500, 1500
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: benchControl(b, specs, commits), CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := &HTTPServer{state: &State{}, trigger: NewTrigger(time.Second), metrics: NewMetrics(), log: log}
	committed := make(chan time.Time, 2)
	d := New(Options{Store: st, Server: srv, Log: log, Web: "https://github.com/",
		Pass: func(ctx context.Context) (*reconcile.Report, error) {
			_, err := reconcile.Load(ctx, st)
			committed <- time.Now()
			return &reconcile.Report{}, err
		}})
	var walks atomic.Int64
	var captureTook atomic.Int64
	d.history = func(h historian) historian { return timedWalk{walkCounter{h, &walks}, &captureTook} }
	slot := d.newSlot(ctx)
	if v := func() *View { slot.run(true, "start"); return srv.state.View() }(); v == nil || len(v.Entries) != specs {
		b.Fatalf("the first capture shows %v entries, want %d", v, specs)
	}
	<-committed // the first pass's
	walks.Store(0)
	captureTook.Store(0)
	var first, second, inSlot time.Duration
	passes := 0
	b.ResetTimer()
	for b.Loop() {
		t1 := time.Now()
		done1 := make(chan struct{})
		go func() { defer close(done1); slot.run(true, "webhook") }()
		c1 := <-committed
		t2 := time.Now() // the second delivery, as the first pass committed
		done2 := make(chan struct{})
		go func() { defer close(done2); slot.run(true, "webhook") }()
		c2 := <-committed
		<-done1
		<-done2
		first += c1.Sub(t1)
		second += c2.Sub(t2)
		passes += 2
	}
	b.StopTimer()
	// What the capture adds in the slot: the statuses and the reader.
	for i := 0; i < 3; i++ {
		start := time.Now()
		c, err := startCapture(ctx, st, "https://github.com/", time.Now(), nil)
		if err != nil {
			b.Fatal(err)
		}
		inSlot += time.Since(start)
		c.history.Close()
	}
	inSlot /= 3
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	const sample = 20
	start := time.Now()
	for _, es := range snap.Statuses()[:sample] {
		if _, err := st.Log(context.Background(), es.Ledger, historyLimit); err != nil {
			b.Fatal(err)
		}
	}
	perEntry := time.Since(start) / sample * specs
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(float64(second)/float64(first), "burst-ratio")
	b.ReportMetric(ms((second-first)/time.Duration(b.N)), "burst-extra-ms")
	b.ReportMetric(float64(walks.Load())/float64(passes), "walks/pass")
	b.ReportMetric(ms(inSlot), "slot-ms")
	b.ReportMetric(ms(time.Duration(captureTook.Load())/time.Duration(passes)), "capture-ms")
	b.ReportMetric(ms(perEntry), "per-entry-walks-ms")
	pass := first / time.Duration(b.N)
	b.ReportMetric(float64(pass+inSlot+perEntry)/float64(pass), "old-burst-ratio")
}

// timedWalk adds the time of each walk to took.
type timedWalk struct {
	historian
	took *atomic.Int64
}

func (w timedWalk) Logs(ctx context.Context, paths []string, limit int) (map[string][]store.LogEntry, error) {
	start := time.Now()
	defer func() { w.took.Add(int64(time.Since(start))) }()
	return w.historian.Logs(ctx, paths, limit)
}
