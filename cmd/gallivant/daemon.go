package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/reconcile/serve"
	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
)

type daemonOptions struct {
	Control  string
	Schedule string
	// Once runs a single pass and exits with reconcile's exit status.
	Once bool
	// Listen is the address of the HTTP server; "" serves nothing.
	Listen string
	// Debounce is how long a webhook waits for the rest of its burst.
	Debounce time.Duration
}

func (a *app) newDaemonCmd() *cobra.Command {
	opts := &daemonOptions{}
	cmd := &cobra.Command{
		Use:   "daemon [--schedule SPEC] [--control PATH|URL] [--listen ADDR] [--once]",
		Short: "Run reconcile passes on a schedule",
		Long: `daemon runs one pass at start and then on a cron schedule (--schedule, else
schedule in gallivant.yaml, "@every 5m" by default). Never two passes run at
once: a tick that fires while a pass runs is skipped and logged. The daemon
keeps its GitHub cache between passes, so unchanged pull requests cost no
rate limit.

SIGINT or SIGTERM end it after the running pass finishes; that pass starts
no new agent run (a due dispatch or review round is left for the next start).
A second signal aborts the running pass. A pass that panics is logged with
its stack and counted, and the daemon goes on with the next tick.

--once runs a single pass and exits with reconcile's exit status (0 the pass
ran, 1 an entry hit a problem, 2 the pass could not run).

--listen ADDR serves HTTP beside the schedule (a bare port binds loopback
only; docs/operations.md): POST /hooks/github takes GitHub webhooks signed
with the secret in $GALLIVANT_WEBHOOK_SECRET and runs a pass soon after an
event about gallivant's work (bursts within --webhook-debounce make one
pass); GET /metrics (Prometheus), /healthz, /readyz, and a read-only
dashboard at /.`,
		Example: `  gallivant daemon --control https://github.com/acme/control.git --schedule "@every 2m"
  GALLIVANT_WEBHOOK_SECRET=... gallivant daemon --listen 9402 --log-format json
  gallivant daemon --once -v --log-format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Once && opts.Listen != "" {
				return usageError("--listen serves beside the schedule; --once runs one pass and exits, so it takes no --listen")
			}
			if opts.Once {
				return a.reconcileRun(cmd, &reconcileOptions{Control: opts.Control, Format: "text"}, performed)
			}
			var addr string
			if opts.Listen != "" {
				var err error
				if addr, err = listenAddr(opts.Listen); err != nil {
					return err
				}
				a.metrics = serve.NewMetrics()
				a.live = serve.NewLiveRuns()
				a.metrics.SetBuildInfo(version(), buildRevision())
			}
			a.keepGoodConfig = true
			r, err := a.reconciler(cmd.Context(), opts.Control, false)
			if err != nil {
				return err
			}
			defer a.closeProgress()
			st := r.store
			snap, err := loadSnapshot(cmd.Context(), st)
			if err != nil {
				return err
			}
			schedule := opts.Schedule
			if schedule == "" {
				schedule = snap.Config.Schedule
			}
			sched, err := cron.ParseStandard(schedule)
			if err != nil {
				return usageError("--schedule %q: %v", schedule, err)
			}
			log := a.logger()
			live := a.newDaemonConfig(r, opts.Control, snap.Config, snap.Commit, opts.Schedule != "", log)
			var srv *daemonServer
			if addr != "" {
				if srv, err = a.startServer(addr, a.controlRepo(opts.Control), opts.Debounce, r.Changed, maySteer(r.gh), log); err != nil {
					return err
				}
				defer srv.stop()
			}
			web := githubapi.WebURL(a.apiURL(snap.Config))
			// Passes run on a context the first signal does not cancel, so
			// that a pass reaches its end; a second signal cancels it.
			passCtx, abort := context.WithCancel(context.WithoutCancel(cmd.Context()))
			defer abort()
			second := make(chan os.Signal, 1)
			go func() {
				<-cmd.Context().Done()
				r.Drain()
				log.Info("stopping after the running pass; signal again to abort it")
				signal.Notify(second, os.Interrupt, syscall.SIGTERM)
				select {
				case <-second:
					abort()
				case <-passCtx.Done():
				}
			}()
			slot := &passSlot{log: log}
			live.reschedule = slot.reschedule
			slot.pass = func() error { return a.daemonPass(passCtx, r, live, srv, web, log) }
			var trig *serve.Trigger
			if srv != nil {
				trig = srv.trigger
				slot.onPanic = func(v any) {
					a.metrics.ObservePass(nil, serve.ResultPanicked, 0)
					srv.state.RecordPass(serve.PassRecord{Ended: time.Now(), Result: serve.ResultPanicked, Err: fmt.Sprint(v)})
				}
			}
			runSlot(cmd.Context(), sched, slot, trig)
			signal.Stop(second)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().BoolVar(&opts.Once, "once", false, "run one pass and exit with its status, like reconcile")
	cmd.Flags().StringVar(&opts.Schedule, "schedule", "", `cron schedule or @every <duration> (default: schedule in gallivant.yaml)`)
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "serve webhooks, metrics, health and the dashboard on ADDR (a bare port binds 127.0.0.1)")
	cmd.Flags().DurationVar(&opts.Debounce, "webhook-debounce", 2*time.Second, "how long a webhook waits for the rest of its burst before the pass")
	return cmd
}

// daemonPass is one pass of the daemon: gallivant.yaml re-read and its
// executor and schedule applied (daemon_config.go), the pass, its report
// and notifications, and what the server shows (srv may be nil).
func (a *app) daemonPass(ctx context.Context, r *wired, live *daemonConfig, srv *daemonServer, web string, log *slog.Logger) error {
	live.reload(ctx)
	start := time.Now()
	rep, err := r.Pass(ctx)
	took := time.Since(start)
	if rep != nil {
		a.printReport(rep, "text", a.wording(r, rep, performed))
		a.deliverNotifications(ctx, r.Reconciler, log)
	}
	if srv != nil {
		a.afterPass(ctx, srv, r.store, web, rep, err, took)
	}
	return err
}

// runDaemon runs pass once, then on every tick of sched until ctx ends,
// skipping a tick while a pass is running, and returns after the running
// pass has finished.
// A pass that panics is recovered, logged with its stack and counted: one
// bad document or response must not end the daemon.
func runDaemon(ctx context.Context, sched cron.Schedule, log *slog.Logger, pass func() error) {
	runSlot(ctx, sched, &passSlot{log: log, pass: pass}, nil)
}

// passSlot is where passes run: one at a time, whoever asks for them (the
// schedule, a webhook).
type passSlot struct {
	mu     sync.Mutex
	log    *slog.Logger
	pass   func() error
	panics atomic.Int64
	// onPanic, when set, hears of a recovered panic (the metrics).
	onPanic func(v any)
	// cron and entry are the schedule runSlot runs passes on.
	cronMu sync.Mutex
	cron   *cron.Cron
	entry  cron.EntryID
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
// since the running pass may have read GitHub before the event.
func (s *passSlot) run(wait bool, why string) {
	if wait {
		s.mu.Lock()
	} else if !s.mu.TryLock() {
		s.log.Info("tick skipped: a pass is still running")
		return
	}
	defer s.mu.Unlock()
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("pass panicked", "panic", fmt.Sprint(v), "panics", s.panics.Add(1), "stack", string(debug.Stack()))
			if s.onPanic != nil {
				s.onPanic(v)
			}
		}
	}()
	s.log.Info("pass started", "trigger", why)
	if err := s.pass(); err != nil {
		s.log.Error("pass failed", "error", err.Error())
		return
	}
	s.log.Info("pass finished")
}

// runSlot is runDaemon with the slot given and, when trig is set, passes
// triggered by webhooks between ticks.
func runSlot(ctx context.Context, sched cron.Schedule, slot *passSlot, trig *serve.Trigger) {
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
