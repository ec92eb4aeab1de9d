package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// every ticks at a fixed interval.
type every time.Duration

func (e every) Next(t time.Time) time.Time { return t.Add(time.Duration(e)) }

// Never two passes at once: ticks that fire during a pass are skipped and
// logged, and the daemon returns only after the running pass has finished.
// The schedule ticks every millisecond and the test waits on channels for
// what it needs to see (the pass running, a tick skipped during it), so it
// takes no longer than the daemon needs.
func TestRunDaemon(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	var mu sync.Mutex
	skipped := make(chan struct{}, 1)
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu, seen: "tick skipped: a pass is still running", signal: skipped}, nil))
	var running, maxRunning, passes atomic.Int32
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	finished := atomic.Bool{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		runEvery(ctx, every(time.Millisecond), logger, func() error {
			n := running.Add(1)
			if n > maxRunning.Load() {
				maxRunning.Store(n)
			}
			passes.Add(1)
			select {
			case started <- struct{}{}:
			default:
			}
			<-release // the first pass outlives several ticks
			running.Add(-1)
			finished.Store(true)
			return nil
		})
		close(done)
	}()
	waitFor(t, started, "the first pass to start")
	waitFor(t, skipped, "a tick to be skipped while the pass runs")
	cancel()
	// A daemon that wrongly returned on cancel would do so at once; this
	// window only bounds how quickly such a bug is caught, a correct daemon
	// never returns here.
	select {
	case <-done:
		t.Fatal("the daemon returned while a pass was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	waitFor(t, done, "the daemon to return after the pass finished")
	if maxRunning.Load() != 1 || passes.Load() != 1 || !finished.Load() {
		t.Errorf("max concurrent passes %d, passes %d, finished %v; want 1, 1, true", maxRunning.Load(), passes.Load(), finished.Load())
	}
}

// waitFor fails the test if ch yields nothing within a generous bound; the
// bound is a guard against a hang, not a measurement.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// lockedWriter serializes writes to a buffer and, when a write contains
// seen, signals on signal without blocking.
type lockedWriter struct {
	w      *bytes.Buffer
	mu     *sync.Mutex
	seen   string
	signal chan struct{}
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.signal != nil && bytes.Contains(b, []byte(l.seen)) {
		select {
		case l.signal <- struct{}{}:
		default:
		}
	}
	return l.w.Write(b)
}

// Issue 11, finding 7: a pass that panics is logged with its stack and
// counted, and the daemon goes on with the next tick.
func TestDaemonRecoversFromPanickingPass(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
	var passes atomic.Int32
	second := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		runEvery(ctx, every(10*time.Millisecond), logger, func() error {
			switch passes.Add(1) {
			case 1:
				var s []int
				_ = s[passes.Load()] // an index out of range: a real runtime panic
			case 2:
				close(second)
			}
			return nil
		})
		close(done)
	}()
	select {
	case <-second:
	case <-time.After(30 * time.Second):
		t.Fatal("no pass ran after the panicking one: the daemon died or stopped ticking")
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	out := log.String()
	for _, want := range []string{`msg="pass panicked"`, "index out of range", "panics=1", "runtime/debug.Stack", "TestDaemonRecoversFromPanickingPass"} {
		if !strings.Contains(out, want) {
			t.Errorf("the daemon's log lacks %q:\n%s", want, out)
		}
	}
}
