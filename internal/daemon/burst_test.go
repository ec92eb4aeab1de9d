package daemon

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The daemon's webhook side under a burst (issue 33): the slot, the
// schedule and the trigger as Run wires them; twenty deliveries while a
// webhook's pass runs, and twenty more while the next one's window is
// open, make exactly one more pass, not forty. The schedule is an hour,
// so no tick runs one; the debounce timer is fired by the test.
func TestWebhooksDuringAPassMakeOneMorePass(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	trig := NewTrigger(2 * time.Second)
	timer := newFakeTimer()
	trig.After = timer.after
	started := make(chan int, 8)
	release := make(chan struct{})
	n := 0 // the slot serializes the passes
	slot := newPassSlot(log, func() error {
		n++
		started <- n
		if n > 1 { // the start pass ends at once; a webhook's waits
			<-release
		}
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runSlot(ctx, every(time.Hour), slot, trig) }()
	if got := recv(t, started, "the start pass"); got != 1 {
		t.Fatalf("pass %d first, want 1", got)
	}

	trig.Kick()
	recv(t, timer.started, "the first delivery's window")
	timer.fire <- time.Now()
	if got := recv(t, started, "the first webhook's pass"); got != 2 {
		t.Fatalf("pass %d, want 2", got)
	}
	for i := 0; i < 20; i++ {
		trig.Kick() // during the pass
	}
	release <- struct{}{}
	recv(t, timer.started, "one window for the deliveries during the pass")
	for i := 0; i < 20; i++ {
		trig.Kick() // inside that window: the same pass
	}
	timer.fire <- time.Now()
	if got := recv(t, started, "the pass after the burst"); got != 3 {
		t.Fatalf("pass %d, want 3", got)
	}
	release <- struct{}{}
	cancel()
	recv(t, done, "the daemon to return")
	if diff := cmp.Diff([]int{3, 0, 0, 0}, []int{n, len(started), len(timer.started), len(trig.kick)}); diff != "" {
		t.Errorf("passes, passes left, windows opened, kicks left (-want +got):\n%s", diff)
	}
}
