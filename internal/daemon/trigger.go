package daemon

import (
	"context"
	"time"
)

// Trigger turns wake-ups (webhook deliveries) into passes: the first
// wake-up opens a window of Debounce, every wake-up inside it joins the
// same pass, and a wake-up that arrives while that pass runs earns exactly
// one more pass after it. A burst of twenty deliveries for one review is
// therefore one or two passes, never twenty.
type Trigger struct {
	kick chan struct{}
	// Debounce is how long a wake-up waits for the rest of its burst.
	Debounce time.Duration
	// After starts the debounce timer; time.After when nil. Tests pass a
	// channel they fire themselves, so no test waits on real time.
	After func(time.Duration) <-chan time.Time
}

// NewTrigger returns a trigger whose bursts settle for debounce.
func NewTrigger(debounce time.Duration) *Trigger {
	return &Trigger{kick: make(chan struct{}, 1), Debounce: debounce}
}

// Kick asks for a pass soon. It never blocks: a kick while one is already
// waiting is the same request.
func (t *Trigger) Kick() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// Loop runs pass once per settled burst until ctx ends. pass is called
// from this goroutine only, so Loop itself never runs two passes at once;
// pass serializes with the schedule's passes on its own.
func (t *Trigger) Loop(ctx context.Context, pass func()) {
	after := t.After
	if after == nil {
		after = time.After
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.kick:
		}
		select {
		case <-ctx.Done():
			return
		case <-after(t.Debounce):
		}
		// Kicks that arrived during the window are this pass's.
		select {
		case <-t.kick:
		default:
		}
		pass()
	}
}
