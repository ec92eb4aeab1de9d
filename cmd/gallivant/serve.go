package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/reconcile/serve"
)

// webhookSecretEnv holds the GitHub webhook secret. It is a GALLIVANT_
// variable, so specs.SecretEnv keeps it from every agent.
const webhookSecretEnv = "GALLIVANT_WEBHOOK_SECRET"

// httpHostsEnv names further Host names a daemon bound to loopback
// answers (comma-separated), for a reverse proxy that keeps its own.
const httpHostsEnv = "GALLIVANT_HTTP_HOSTS"

// isLoopback reports a listener bound to a loopback address only.
func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// splitHosts is GALLIVANT_HTTP_HOSTS as a list.
func splitHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// maySteer is the webhook's test of a comment's or review's sender:
// write access or more to the repository (docs/delivery.md).
func maySteer(gh *githubapi.Client) func(context.Context, string, string) (bool, error) {
	if gh == nil {
		return nil
	}
	return func(ctx context.Context, repo, login string) (bool, error) {
		p, err := gh.Permission(ctx, repo, login)
		return p == "admin" || p == "write", err
	}
}

// listenAddr makes a bare port (9402 or :9402) a loopback address: the
// dashboard and the metrics are for this machine unless a host is named.
func listenAddr(s string) (string, error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", usageError("--listen %q: want a port or host:port, like 9402 or 0.0.0.0:9402", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// timedCommand measures the command executor's agent runs for the
// metrics; embedding keeps every other method of the executor (recovery,
// verification) visible to the reconciler.
type timedCommand struct {
	agent.CommandExecutor
	m *serve.Metrics
}

func (t timedCommand) Run(ctx context.Context, task agent.Task) (agent.Outcome, error) {
	defer t.m.AgentRun()()
	return t.CommandExecutor.Run(ctx, task)
}

// daemonServer is what --listen adds to the daemon: the HTTP server, the
// state it reads and the trigger its webhooks kick.
type daemonServer struct {
	state   *serve.State
	trigger *serve.Trigger
	http    *http.Server
	ln      net.Listener
	log     *slog.Logger
}

// startServer listens on addr and serves in the background until stop.
func (a *app) startServer(addr, controlRepo string, debounce time.Duration, changed func(string), steer func(context.Context, string, string) (bool, error), log *slog.Logger) (*daemonServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("--listen: %w", err)}
	}
	d := &daemonServer{state: &serve.State{}, trigger: serve.NewTrigger(debounce), ln: ln, log: log}
	secret := a.env(webhookSecretEnv)
	if secret == "" {
		log.Warn("webhooks are off: " + webhookSecretEnv + " is not set")
	}
	h := serve.Handler(serve.Options{Log: log, Metrics: a.metrics, State: d.state, Secret: []byte(secret), Kick: d.trigger.Kick, Changed: changed, ControlRepo: controlRepo,
		Live: a.live, MaySteer: steer, LoopbackOnly: isLoopback(ln.Addr()), Hosts: splitHosts(a.env(httpHostsEnv))})
	d.http = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	go func() {
		if err := d.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server ended", "error", err.Error())
		}
	}()
	log.Info("serving", "addr", ln.Addr().String(), "webhooks", secret != "")
	return d, nil
}

// stop ends the server, letting requests in progress finish briefly.
func (d *daemonServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.http.Shutdown(ctx)
}

// afterPass records a pass for /readyz, the metrics and the dashboard.
// It runs in the pass slot, so the view is read while no pass writes.
func (a *app) afterPass(ctx context.Context, d *daemonServer, st *store.Store, web string, rep *reconcile.Report, err error, took time.Duration) {
	// The view first: once /readyz reports the pass, the dashboard and
	// the gauges show what it left.
	var decisions []reconcile.Decision
	if rep != nil {
		decisions = rep.Decisions
	}
	if v, verr := serve.CaptureDecided(ctx, st, web, time.Now(), decisions); verr != nil {
		d.log.Warn("dashboard not refreshed", "error", verr.Error())
	} else {
		if rep != nil {
			v.AttachNotes(rep.Notes)
		}
		d.state.SetView(v)
		a.metrics.ObserveView(v)
	}
	result := serve.PassResult(rep, err)
	a.metrics.ObservePass(rep, result, took)
	rec := serve.PassRecord{Ended: time.Now(), Took: took, Result: result}
	if err != nil {
		rec.Err = err.Error()
	}
	d.state.RecordPass(rec)
}
