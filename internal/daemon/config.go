package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/robfig/cron/v3"
)

// ConfigOptions wire a Config: the store it reads gallivant.yaml from
// and what applying a section means, which the command knows.
type ConfigOptions struct {
	Store *store.Store
	Log   *slog.Logger
	// FixedSchedule is set by --schedule, which gallivant.yaml does not
	// override.
	FixedSchedule bool
	// Executor builds the executor a configuration's executor: section
	// asks for.
	Executor func(cfg *specs.Config) (reconcile.Executor, error)
	// SetExecutor wires e for the next passes.
	SetExecutor func(e reconcile.Executor)
	// Rescope, when set, narrows the wired App's installation tokens to
	// the repositories the control branch uses now; cfg.GitHub is the
	// App the client was wired with. Its error refuses the github section.
	Rescope func(ctx context.Context, cfg *specs.Config) error
	// Narrate tells a person text and the log msg with attrs.
	Narrate func(level slog.Level, text, msg string, attrs ...any)
}

// Config is the part of gallivant.yaml the daemon wires itself from —
// the executor and the schedule — re-read from the control branch before
// every pass, as Flux re-reads desired state every reconcile. notify:,
// checks: and the rest are read by every pass itself. A change that
// cannot be applied is a problem and the last good wiring stays; an
// invalid gallivant.yaml leaves all of it, and the pass runs on the last
// good configuration (reconcile.Options.KeepGoodConfig).
type Config struct {
	o ConfigOptions
	// exec, schedule and github are what is wired, from the commit at.
	exec     specs.ExecutorConfig
	schedule string
	github   specs.GitHubConfig
	at       string
	// reschedule moves the daemon's ticks to a new schedule.
	reschedule func(cron.Schedule)
}

// NewConfig returns the wiring of cfg, read at the control commit at.
func NewConfig(o ConfigOptions, cfg *specs.Config, at string) *Config {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Narrate == nil {
		o.Narrate = func(slog.Level, string, string, ...any) {}
	}
	return &Config{o: o, exec: cfg.Executor, schedule: cfg.Schedule, github: cfg.GitHub, at: at}
}

// SetReschedule makes a changed schedule call f; the daemon's Run sets
// it to move its ticks.
func (d *Config) SetReschedule(f func(cron.Schedule)) { d.reschedule = f }

// Reload reads gallivant.yaml at the control branch's head and applies a
// changed executor or schedule. A failure to read the branch is left to
// the pass, which reports it.
func (d *Config) Reload(ctx context.Context) {
	st := d.o.Store
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
		e, err := d.o.Executor(cfg)
		if err != nil {
			d.refuse(head, "executor", err)
		} else {
			d.o.SetExecutor(e)
			d.exec = cfg.Executor
			d.applied(head, "executor")
		}
	}
	if !d.o.FixedSchedule && cfg.Schedule != d.schedule {
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
		d.o.Narrate(slog.LevelWarn, fmt.Sprintf("%s: waiting: github: changed at %s; the GitHub client is wired at start, so restart the daemon to apply it", specs.ConfigFile, short(head)),
			"waiting", "spec", specs.ConfigFile, "message", "github: changed at "+short(head)+"; restart the daemon to apply it")
	}
	d.at = head
}

func (d *Config) applied(head, section string) {
	d.o.Log.Info("configuration applied", "section", section, "commit", short(head))
	d.o.Narrate(slog.LevelInfo, fmt.Sprintf("%s: applied %s: from %s", specs.ConfigFile, section, short(head)),
		"configuration applied", "section", section, "commit", short(head))
}

func (d *Config) refuse(head, section string, err error) {
	msg := fmt.Sprintf("%s at %s cannot be applied: %v; the daemon keeps the %s of %s", section, short(head), err, section, short(d.at))
	d.o.Narrate(slog.LevelWarn, fmt.Sprintf("%s: problem: %s", specs.ConfigFile, msg), "problem", "spec", specs.ConfigFile, "message", msg)
}

// rescopeApp narrows the wired App's installation tokens to the
// repositories the control branch uses now: a new spec's repository is
// reached by the next token the API client and the store mint.
func (d *Config) rescopeApp(ctx context.Context, cfg *specs.Config) {
	if d.o.Rescope == nil {
		return
	}
	wiredCfg := *cfg
	wiredCfg.GitHub = d.github // the App the client was wired with
	if err := d.o.Rescope(ctx, &wiredCfg); err != nil {
		d.refuse(d.o.Store.Head(), "github", err)
	}
}

// short is a commit's 7-character abbreviation, as people read it.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
