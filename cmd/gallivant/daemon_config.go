package main

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/robfig/cron/v3"
)

// daemonConfig is the part of gallivant.yaml the daemon wires itself
// from — the executor and the schedule — re-read from the control branch
// before every pass, as Flux re-reads desired state every reconcile.
// notify:, checks: and the rest are read by every pass itself. A change
// that cannot be applied is a problem and the last good wiring stays;
// an invalid gallivant.yaml leaves all of it, and the pass runs on the
// last good configuration (reconcile.Options.KeepGoodConfig).
type daemonConfig struct {
	a       *app
	w       *wired
	control string
	log     *slog.Logger
	// fixedSchedule is set by --schedule, which gallivant.yaml does not
	// override.
	fixedSchedule bool
	// exec, schedule and github are what is wired, from the commit at.
	exec     specs.ExecutorConfig
	schedule string
	github   specs.GitHubConfig
	at       string
	// reschedule moves the daemon's ticks to a new schedule.
	reschedule func(cron.Schedule)
}

func (a *app) newDaemonConfig(w *wired, control string, cfg *specs.Config, at string, fixedSchedule bool, log *slog.Logger) *daemonConfig {
	return &daemonConfig{a: a, w: w, control: control, log: log, fixedSchedule: fixedSchedule,
		exec: cfg.Executor, schedule: cfg.Schedule, github: cfg.GitHub, at: at}
}

// reload reads gallivant.yaml at the control branch's head and applies a
// changed executor or schedule. A failure to read the branch is left to
// the pass, which reports it.
func (d *daemonConfig) reload(ctx context.Context) {
	st := d.w.store
	if err := st.Sync(ctx); err != nil {
		return
	}
	head := st.Head()
	data, ok, err := st.ReadFile(ctx, head, specs.ConfigFile)
	if err != nil {
		return
	}
	cfg := specs.DefaultConfig()
	if ok {
		parsed, ds := specs.ParseConfig(specs.ConfigFile, data)
		if ds.HasErrors() {
			// The pass notes the refused change and keeps the last good
			// configuration; the wiring stays too.
			return
		}
		cfg = parsed
	}
	if !reflect.DeepEqual(cfg.Executor, d.exec) {
		e, err := d.a.executor(cfg, d.w.gh, d.w.token, d.w.apps, d.control, false)
		if err != nil {
			d.refuse(head, "executor", err)
		} else {
			d.w.SetExecutor(e)
			d.exec = cfg.Executor
			d.applied(head, "executor")
		}
	}
	if !d.fixedSchedule && cfg.Schedule != d.schedule {
		sched, err := cron.ParseStandard(cfg.Schedule)
		if err != nil {
			d.refuse(head, "schedule", err)
		} else {
			if d.reschedule != nil {
				d.reschedule(sched)
			}
			d.schedule = cfg.Schedule
			d.applied(head, "schedule")
		}
	}
	d.rescopeApp(ctx, cfg)
	if !reflect.DeepEqual(cfg.GitHub, d.github) {
		d.github = cfg.GitHub
		d.a.narrate(slog.LevelWarn, fmt.Sprintf("%s: waiting: github: changed at %s; the GitHub client is wired at start, so restart the daemon to apply it", specs.ConfigFile, shortSHA(head)),
			"waiting", "spec", specs.ConfigFile, "message", "github: changed at "+shortSHA(head)+"; restart the daemon to apply it")
	}
	d.at = head
}

func (d *daemonConfig) applied(head, section string) {
	d.log.Info("configuration applied", "section", section, "commit", shortSHA(head))
	d.a.narrate(slog.LevelInfo, fmt.Sprintf("%s: applied %s: from %s", specs.ConfigFile, section, shortSHA(head)),
		"configuration applied", "section", section, "commit", shortSHA(head))
}

func (d *daemonConfig) refuse(head, section string, err error) {
	msg := fmt.Sprintf("%s at %s cannot be applied: %v; the daemon keeps the %s of %s", section, shortSHA(head), err, section, shortSHA(d.at))
	d.a.narrate(slog.LevelWarn, fmt.Sprintf("%s: problem: %s", specs.ConfigFile, msg), "problem", "spec", specs.ConfigFile, "message", msg)
}

// rescopeApp narrows the wired App's installation tokens to the
// repositories the control branch uses now: a new spec's repository is
// reached by the next token the API client and the store mint. A snapshot
// that cannot be read is left to the pass, which reports it.
func (d *daemonConfig) rescopeApp(ctx context.Context, cfg *specs.Config) {
	wiredCfg := *cfg
	wiredCfg.GitHub = d.github // the App the client was wired with
	if apps, err := d.a.appTokens(&wiredCfg, d.a.controlRepo(d.control)); err != nil || apps == nil {
		return
	}
	snap, err := reconcile.Load(ctx, d.w.store)
	if err != nil {
		return
	}
	if err := d.a.scopeAppTokens(&wiredCfg, d.control, snap); err != nil {
		d.refuse(d.w.store.Head(), "github", err)
	}
}
