package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/robfig/cron/v3"
)

// Options wire a daemon. The command builds them (cmd/gallivant
// daemon); the daemon owns the schedule, the pass slot, the signals and,
// with a Server, what the HTTP side shows.
type Options struct {
	Log   *slog.Logger
	Store *store.Store
	// Schedule is when passes run between webhooks.
	Schedule cron.Schedule
	// Config re-reads gallivant.yaml before each pass; nil re-reads
	// nothing.
	Config *Config
	// Pass runs one reconcile pass.
	Pass func(ctx context.Context) (*reconcile.Report, error)
	// Reported, when set, hears each pass's report: the command prints it
	// and delivers its notifications.
	Reported func(ctx context.Context, rep *reconcile.Report)
	// Drain, called at the first signal, makes the running pass start no
	// new agent run.
	Drain func()
	// Server is the HTTP side; nil without --listen.
	Server *HTTPServer
	// Web is GitHub's web address (https://github.com/ unless
	// Enterprise), for the dashboard's links.
	Web string
}

// Daemon runs passes on a schedule and, with a server, on webhooks, never
// two at once.
type Daemon struct {
	o Options
	// seq numbers the passes that capture a view (the slot serializes
	// them); shown is the newest whose view is shown, under viewMu.
	seq    uint64
	viewMu sync.Mutex
	shown  uint64
	// history, when set, wraps the history reader of each capture: a
	// test counts the walks and checks the slot is free during them.
	history func(historian) historian
}

// New returns a daemon of o.
func New(o Options) *Daemon {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Daemon{o: o}
}

// Run runs one pass at once and then on every tick and settled webhook
// burst until ctx ends (the first SIGINT or SIGTERM), and returns after
// the running pass has finished. Passes run on a context the first
// signal does not cancel, so that a pass reaches its end; a second signal
// cancels it.
func (d *Daemon) Run(ctx context.Context) {
	log := d.o.Log
	passCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	second := make(chan os.Signal, 1)
	go func() {
		<-ctx.Done()
		if d.o.Drain != nil {
			d.o.Drain()
		}
		log.Info("stopping after the running pass; signal again to abort it")
		signal.Notify(second, os.Interrupt, syscall.SIGTERM)
		select {
		case <-second:
			abort()
		case <-passCtx.Done():
		}
	}()
	slot := d.newSlot(passCtx)
	if d.o.Config != nil {
		d.o.Config.SetReschedule(slot.reschedule)
	}
	var trig *Trigger
	if srv := d.o.Server; srv != nil {
		trig = srv.trigger
		slot.onPanic = func(v any) {
			srv.metrics.ObservePass(nil, ResultPanicked, 0)
			srv.state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultPanicked, Err: fmt.Sprint(v)})
		}
	}
	runSlot(ctx, d.o.Schedule, slot, trig)
	signal.Stop(second)
}

// newSlot is the slot Run runs the daemon's passes in, on ctx.
func (d *Daemon) newSlot(ctx context.Context) *passSlot {
	return &passSlot{log: d.o.Log, pass: func() (func(), error) { return d.pass(ctx) }}
}

// Pass is one pass of the daemon: gallivant.yaml re-read and its
// executor and schedule applied (Config), the pass, its report and
// notifications, and what the server shows.
func (d *Daemon) Pass(ctx context.Context) error {
	after, err := d.pass(ctx)
	if after != nil {
		after()
	}
	return err
}

// pass is the part of Pass that needs the pass slot; after is the rest,
// which the slot runs once it is released.
func (d *Daemon) pass(ctx context.Context) (after func(), err error) {
	if d.o.Config != nil {
		d.o.Config.Reload(ctx)
	}
	start := time.Now()
	rep, err := d.o.Pass(ctx)
	took := time.Since(start)
	if rep != nil && d.o.Reported != nil {
		d.o.Reported(ctx, rep)
	}
	if d.o.Server == nil {
		return nil, err
	}
	return d.capture(ctx, rep, err, took), err
}

// capture reads what the dashboard shows of the pass's outcome where no
// pass writes (the slot: statuses, and a reader of the history at this
// commit) and returns the rest, which records the pass for /readyz, the
// metrics and the dashboard: every ledger's history in one walk, which
// at 500 specs takes longer than the pass itself and so must not hold
// the slot (docs/reconcile.md, Performance).
func (d *Daemon) capture(ctx context.Context, rep *reconcile.Report, err error, took time.Duration) (after func()) {
	srv := d.o.Server
	d.seq++
	seq := d.seq
	var decisions []reconcile.Decision
	if rep != nil {
		decisions = rep.Decisions
	}
	c, cerr := startCapture(ctx, d.o.Store, d.o.Web, time.Now(), decisions)
	return func() {
		var v *View
		if cerr == nil {
			if d.history != nil {
				c.history = d.history(c.history)
			}
			v, cerr = c.finish(ctx)
		}
		d.viewMu.Lock()
		defer d.viewMu.Unlock()
		result := PassResult(rep, err)
		srv.metrics.ObservePass(rep, result, took)
		if seq < d.shown {
			return // a later pass's view and record are shown already
		}
		d.shown = seq
		// The view first: once /readyz reports the pass, the dashboard and
		// the gauges show what it left.
		if cerr != nil {
			srv.log.Warn("dashboard not refreshed", "error", cerr.Error())
		} else {
			if rep != nil {
				v.AttachNotes(rep.Notes)
			}
			srv.state.SetView(v)
			srv.metrics.ObserveView(v)
		}
		rec := PassRecord{Ended: time.Now(), Took: took, Result: result}
		if err != nil {
			rec.Err = err.Error()
		}
		srv.state.RecordPass(rec)
	}
}
