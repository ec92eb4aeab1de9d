package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
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
	slot := NewSlot(log, func() error { return d.Pass(passCtx) })
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

// Pass is one pass of the daemon: gallivant.yaml re-read and its
// executor and schedule applied (Config), the pass, its report and
// notifications, and what the server shows.
func (d *Daemon) Pass(ctx context.Context) error {
	if d.o.Config != nil {
		d.o.Config.Reload(ctx)
	}
	start := time.Now()
	rep, err := d.o.Pass(ctx)
	took := time.Since(start)
	if rep != nil && d.o.Reported != nil {
		d.o.Reported(ctx, rep)
	}
	if d.o.Server != nil {
		d.afterPass(ctx, rep, err, took)
	}
	return err
}

// afterPass records a pass for /readyz, the metrics and the dashboard.
// It runs in the pass slot, so the view is read while no pass writes.
func (d *Daemon) afterPass(ctx context.Context, rep *reconcile.Report, err error, took time.Duration) {
	srv := d.o.Server
	// The view first: once /readyz reports the pass, the dashboard and
	// the gauges show what it left.
	var decisions []reconcile.Decision
	if rep != nil {
		decisions = rep.Decisions
	}
	if v, verr := CaptureDecided(ctx, d.o.Store, d.o.Web, time.Now(), decisions); verr != nil {
		srv.log.Warn("dashboard not refreshed", "error", verr.Error())
	} else {
		if rep != nil {
			v.AttachNotes(rep.Notes)
		}
		srv.state.SetView(v)
		srv.metrics.ObserveView(v)
	}
	result := PassResult(rep, err)
	srv.metrics.ObservePass(rep, result, took)
	rec := PassRecord{Ended: time.Now(), Took: took, Result: result}
	if err != nil {
		rec.Err = err.Error()
	}
	srv.state.RecordPass(rec)
}
