package daemon

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/google/go-cmp/cmp"
)

// walkProbe is a capture's history reader that records each walk: the
// paths asked for and whether the pass slot was free meanwhile. The first
// walk waits for release, so that a test can run a pass during it.
type walkProbe struct {
	historian
	slot    *passSlot
	mu      *sync.Mutex
	walks   *[][]string
	free    *[]bool
	entered chan struct{}
	release chan struct{}
}

func (w *walkProbe) Logs(ctx context.Context, paths []string, limit int) (map[string][]store.LogEntry, error) {
	free := w.slot.mu.TryLock()
	if free {
		w.slot.mu.Unlock()
	}
	w.mu.Lock()
	*w.walks = append(*w.walks, slices.Clone(paths))
	*w.free = append(*w.free, free)
	first := len(*w.walks) == 1
	w.mu.Unlock()
	if first {
		close(w.entered)
		<-w.release
	}
	return w.historian.Logs(ctx, paths, limit)
}

// The daemon's HTTP side never holds the pass slot (issue 33): the
// dashboard's histories are read after the slot is released, in one walk
// for all ledgers, not one per entry. A webhook's pass runs to its end
// while the previous pass's capture is still walking, and the view shown
// is the newer pass's, with every ledger's history as git log has it.
func TestCaptureRunsOutsideTheSlotInOneWalk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: controlWithPhases(t), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := &HTTPServer{state: &State{}, trigger: NewTrigger(time.Second), metrics: NewMetrics(), log: log}
	var passes int // the slot serializes the passes
	d := New(Options{Store: st, Server: srv, Log: log, Web: "https://github.com/",
		Pass: func(context.Context) (*reconcile.Report, error) { passes++; return &reconcile.Report{}, nil }})
	slot := d.newSlot(ctx)
	var mu sync.Mutex
	var walks [][]string
	var free []bool
	probe := &walkProbe{slot: slot, mu: &mu, walks: &walks, free: &free, entered: make(chan struct{}), release: make(chan struct{})}
	d.history = func(h historian) historian { p := *probe; p.historian = h; return &p }

	first := make(chan struct{})
	go func() { defer close(first); slot.run(true, "webhook") }()
	waitFor(t, probe.entered, "the first pass's capture to walk the history")
	second := make(chan struct{})
	go func() { defer close(second); slot.run(true, "webhook") }()
	// With the capture in the slot, the second pass would wait here for
	// the first capture, which waits for release: the test would time out.
	waitFor(t, second, "the second pass to run while the first capture walks")
	close(probe.release)
	waitFor(t, first, "the first capture to end")

	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var ledgers []string
	for _, es := range snap.Statuses() {
		if es.Ledger != "" {
			ledgers = append(ledgers, es.Ledger)
		}
	}
	if len(ledgers) < 4 {
		t.Fatalf("the example control repository has %d ledgers, want several", len(ledgers))
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([][]string{ledgers, ledgers}, walks); diff != "" {
		t.Errorf("history walks of two passes (-one walk of every ledger per pass +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true}, free); diff != "" {
		t.Errorf("pass slot free during each walk (-want +got):\n%s", diff)
	}
	if passes != 2 {
		t.Errorf("%d passes, want 2", passes)
	}
	v := srv.state.View()
	if v == nil {
		t.Fatal("no view shown after two passes")
	}
	for _, e := range v.Entries {
		if e.Ledger == "" {
			continue
		}
		want, err := st.Log(context.Background(), e.Ledger, historyLimit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, e.History); diff != "" {
			t.Errorf("%s: history (-git log +shown):\n%s", e.Spec, diff)
		}
	}
	if last := srv.state.Last(); last.Result != ResultOK || last.Ended.IsZero() {
		t.Errorf("the last pass recorded %+v, want an ok pass", last)
	}
	if d.shown != 2 {
		t.Errorf("the view shown is pass %d's, want the second's", d.shown)
	}
}
