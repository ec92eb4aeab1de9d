package main

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
func TestRunDaemon(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
	var running, maxRunning, passes atomic.Int32
	release := make(chan struct{})
	finished := atomic.Bool{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		runDaemon(ctx, every(time.Second), logger, func() error {
			n := running.Add(1)
			if n > maxRunning.Load() {
				maxRunning.Store(n)
			}
			passes.Add(1)
			<-release // the first pass outlives several ticks
			running.Add(-1)
			finished.Store(true)
			return nil
		})
		close(done)
	}()
	time.Sleep(2500 * time.Millisecond)
	cancel()
	select {
	case <-done:
		t.Fatal("the daemon returned while a pass was running")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon did not return after the pass finished")
	}
	if maxRunning.Load() != 1 || passes.Load() != 1 || !finished.Load() {
		t.Errorf("max concurrent passes %d, passes %d", maxRunning.Load(), passes.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "tick skipped: a pass is still running") {
		t.Errorf("skipped ticks were not logged:\n%s", log.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
