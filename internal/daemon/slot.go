package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/robfig/cron/v3"
)

// passSlot is where passes run: one at a time, whoever asks for them (the
// schedule, a webhook).
type passSlot struct {
	mu  sync.Mutex
	log *slog.Logger
	// pass runs a pass in the slot; what it returns runs after the slot
	// is released (the daemon's dashboard capture), nil for nothing.
	pass   func() (after func(), err error)
	panics atomic.Int64
	// onPanic, when set, hears of a recovered panic (the metrics).
	onPanic func(v any)
	// cron and entry are the schedule Run runs passes on.
	cronMu sync.Mutex
	cron   *cron.Cron
	entry  cron.EntryID
}

// newPassSlot returns a slot that runs pass, logging to log.
func newPassSlot(log *slog.Logger, pass func() error) *passSlot {
	return &passSlot{log: log, pass: func() (func(), error) { return nil, pass() }}
}

// reschedule makes the slot's ticks follow sched from now on.
func (s *passSlot) reschedule(sched cron.Schedule) {
	s.cronMu.Lock()
	defer s.cronMu.Unlock()
	if s.cron == nil {
		return
	}
	s.cron.Remove(s.entry)
	s.entry = s.cron.Schedule(sched, cron.FuncJob(func() { s.run(false, "schedule") }))
}

// run runs one pass. A schedule tick does not wait for a running pass
// (wait false: the tick is skipped and logged); a webhook's pass waits,
// since the running pass may have read GitHub before the event. What the
// pass leaves to do after it runs once the slot is released, so the next
// pass never waits for it.
func (s *passSlot) run(wait bool, why string) {
	if wait {
		s.mu.Lock()
	} else if !s.mu.TryLock() {
		s.log.Info("tick skipped: a pass is still running")
		return
	}
	after := s.locked(why)
	s.mu.Unlock()
	if after != nil {
		s.guard(after)
	}
}

// locked runs the pass; the caller holds the slot.
func (s *passSlot) locked(why string) (after func()) {
	s.guard(func() {
		s.log.Info("pass started", "trigger", why)
		var err error
		after, err = s.pass()
		if err != nil {
			s.log.Error("pass failed", "error", err.Error())
			return
		}
		s.log.Info("pass finished")
	})
	return after
}

// guard runs f, recovering a panic: logged with its stack and counted.
func (s *passSlot) guard(f func()) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("pass panicked", "panic", fmt.Sprint(v), "panics", s.panics.Add(1), "stack", string(debug.Stack()))
			if s.onPanic != nil {
				s.onPanic(v)
			}
		}
	}()
	f()
}

// runEvery runs pass once, then on every tick of sched until ctx ends,
// skipping a tick while a pass is running, and returns after the running
// pass has finished.
// A pass that panics is recovered, logged with its stack and counted: one
// bad document or response must not end the daemon.
func runEvery(ctx context.Context, sched cron.Schedule, log *slog.Logger, pass func() error) {
	runSlot(ctx, sched, newPassSlot(log, pass), nil)
}

// runSlot is runEvery with the slot given and, when trig is set, passes
// triggered by webhooks between ticks.
func runSlot(ctx context.Context, sched cron.Schedule, slot *passSlot, trig *Trigger) {
	c := cron.New()
	slot.cronMu.Lock()
	slot.cron = c
	slot.entry = c.Schedule(sched, cron.FuncJob(func() { slot.run(false, "schedule") }))
	slot.cronMu.Unlock()
	c.Start()
	var others sync.WaitGroup
	others.Add(1)
	go func() { defer others.Done(); slot.run(false, "start") }()
	if trig != nil {
		others.Add(1)
		go func() { defer others.Done(); trig.Loop(ctx, func() { slot.run(true, "webhook") }) }()
	}
	<-ctx.Done()
	// Stop waits for scheduled passes that are running; others for the
	// pass started at launch and a webhook's.
	<-c.Stop().Done()
	others.Wait()
}
