package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/gallivant/gallivant/internal/daemon"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
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
		RunE: func(cmd *cobra.Command, _ []string) error { return a.daemonRun(cmd, opts) },
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().BoolVar(&opts.Once, "once", false, "run one pass and exit with its status, like reconcile")
	cmd.Flags().StringVar(&opts.Schedule, "schedule", "", `cron schedule or @every <duration> (default: schedule in gallivant.yaml)`)
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "serve webhooks, metrics, health and the dashboard on ADDR (a bare port binds 127.0.0.1)")
	cmd.Flags().DurationVar(&opts.Debounce, "webhook-debounce", 2*time.Second, "how long a webhook waits for the rest of its burst before the pass")
	return cmd
}

// daemonRun wires the daemon of opts and runs it until the command's
// context ends (the first SIGINT or SIGTERM).
func (a *app) daemonRun(cmd *cobra.Command, opts *daemonOptions) error {
	if opts.Once && opts.Listen != "" {
		return usageError("--listen serves beside the schedule; --once runs one pass and exits, so it takes no --listen")
	}
	if opts.Once {
		return a.reconcileRun(cmd, &reconcileOptions{Control: opts.Control, Format: "text"}, performed)
	}
	var addr string
	if opts.Listen != "" {
		var err error
		if addr, err = daemon.ListenAddr(opts.Listen); err != nil {
			return usageError("%v", err)
		}
		a.metrics = daemon.NewMetrics()
		a.live = daemon.NewLiveRuns()
		a.metrics.SetBuildInfo(version(), buildRevision())
	}
	ctx := cmd.Context()
	a.keepGoodConfig = true
	r, err := a.reconciler(ctx, opts.Control, false)
	if err != nil {
		return err
	}
	defer a.closeProgress()
	snap, err := loadSnapshot(ctx, r.store)
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
	o := a.daemonOptions(r, opts.Control, snap, opts.Schedule != "", log)
	o.Schedule = sched
	if addr != "" {
		srv, err := daemon.Listen(addr, daemon.ServerOptions{Log: log, Metrics: a.metrics, Live: a.live, Secret: a.env(daemon.WebhookSecretEnv), Hosts: a.env(daemon.HTTPHostsEnv),
			ControlRepo: a.controlRepo(opts.Control), Debounce: opts.Debounce, Changed: r.Changed, MaySteer: daemon.MaySteer(r.gh)})
		if err != nil {
			return &exitError{code: exitCannotRun, err: err}
		}
		defer srv.Stop()
		o.Server = srv
		o.Web = githubapi.WebURL(a.apiURL(snap.Config))
	}
	daemon.New(o).Run(ctx)
	return nil
}

// daemonOptions wires a daemon's passes to r: gallivant.yaml re-read
// before each (snap is the configuration r was wired from; fixedSchedule
// is set by --schedule), its report printed and its notifications
// delivered.
func (a *app) daemonOptions(r *wired, control string, snap *reconcile.Snapshot, fixedSchedule bool, log *slog.Logger) daemon.Options {
	cfg := daemon.NewConfig(daemon.ConfigOptions{Store: r.store, Log: log, FixedSchedule: fixedSchedule,
		Executor: func(cfg *specs.Config) (reconcile.Executor, error) {
			return a.executor(cfg, r.gh, r.token, r.apps, control, false)
		},
		SetExecutor: r.SetExecutor,
		Rescope: func(ctx context.Context, cfg *specs.Config) error {
			if apps, err := a.appTokens(cfg, a.controlRepo(control)); err != nil || apps == nil {
				return nil
			}
			snap, err := reconcile.Load(ctx, r.store)
			if err != nil {
				return nil // the pass reports a snapshot that cannot be read
			}
			return a.scopeAppTokens(cfg, control, snap)
		},
		Narrate: a.narrate,
	}, snap.Config, snap.Commit)
	return daemon.Options{Log: log, Store: r.store, Config: cfg, Pass: r.Pass, Drain: r.Drain,
		Reported: func(ctx context.Context, rep *reconcile.Report) {
			a.printReport(rep, "text", a.wording(r, rep, performed))
			a.deliverNotifications(ctx, r.Reconciler, log)
		}}
}
