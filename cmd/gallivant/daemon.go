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

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
)

type daemonOptions struct {
	Control  string
	Schedule string
	// Once runs a single pass and exits with reconcile's exit status.
	Once bool
}

func (a *app) newDaemonCmd() *cobra.Command {
	opts := &daemonOptions{}
	cmd := &cobra.Command{
		Use:   "daemon [--schedule SPEC] [--control PATH|URL] [--once]",
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
ran, 1 an entry hit a problem, 2 the pass could not run).`,
		Example: `  gallivant daemon --control https://github.com/acme/control.git --schedule "@every 2m"
  gallivant daemon --once -v --log-format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Once {
				return a.reconcileRun(cmd, &reconcileOptions{Control: opts.Control, Format: "text"}, performed)
			}
			r, err := a.reconciler(cmd.Context(), opts.Control, false)
			if err != nil {
				return err
			}
			st := r.store
			schedule := opts.Schedule
			if schedule == "" {
				snap, err := loadSnapshot(cmd.Context(), st)
				if err != nil {
					return err
				}
				schedule = snap.Config.Schedule
			}
			sched, err := cron.ParseStandard(schedule)
			if err != nil {
				return usageError("--schedule %q: %v", schedule, err)
			}
			log := a.logger()
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
			runDaemon(cmd.Context(), sched, log, func() error {
				rep, err := r.Pass(passCtx)
				if rep != nil {
					a.printReport(rep, "text", a.wording(r, rep, performed))
				}
				return err
			})
			signal.Stop(second)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().BoolVar(&opts.Once, "once", false, "run one pass and exit with its status, like reconcile")
	cmd.Flags().StringVar(&opts.Schedule, "schedule", "", `cron schedule or @every <duration> (default: schedule in gallivant.yaml)`)
	return cmd
}

// runDaemon runs pass once, then on every tick of sched until ctx ends,
// skipping a tick while a pass is running, and returns after the running
// pass has finished.
// A pass that panics is recovered, logged with its stack and counted: one
// bad document or response must not end the daemon.
func runDaemon(ctx context.Context, sched cron.Schedule, log *slog.Logger, pass func() error) {
	var running atomic.Bool
	var panics atomic.Int64
	tick := func() {
		if !running.CompareAndSwap(false, true) {
			log.Info("tick skipped: a pass is still running")
			return
		}
		defer running.Store(false)
		defer func() {
			if v := recover(); v != nil {
				log.Error("pass panicked", "panic", fmt.Sprint(v), "panics", panics.Add(1), "stack", string(debug.Stack()))
			}
		}()
		log.Info("pass started")
		if err := pass(); err != nil {
			log.Error("pass failed", "error", err.Error())
			return
		}
		log.Info("pass finished")
	}
	c := cron.New()
	c.Schedule(sched, cron.FuncJob(tick))
	c.Start()
	var first sync.WaitGroup
	first.Add(1)
	go func() { defer first.Done(); tick() }()
	<-ctx.Done()
	// Stop waits for scheduled passes that are running; first for the
	// pass started at launch.
	<-c.Stop().Done()
	first.Wait()
}
