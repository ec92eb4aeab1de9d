package daemon

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
)

// WebhookSecretEnv holds the GitHub webhook secret. It is a GALLIVANT_
// variable, so specs.SecretEnv keeps it from every agent.
const WebhookSecretEnv = "GALLIVANT_WEBHOOK_SECRET"

// HTTPHostsEnv names further Host names a daemon bound to loopback
// answers (comma-separated), for a reverse proxy that keeps its own.
const HTTPHostsEnv = "GALLIVANT_HTTP_HOSTS"

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

// MaySteer is the webhook's test of a comment's or review's sender:
// write access or more to the repository (docs/delivery.md). It is nil
// without a client.
func MaySteer(gh *githubapi.Client) func(context.Context, string, string) (bool, error) {
	if gh == nil {
		return nil
	}
	return func(ctx context.Context, repo, login string) (bool, error) {
		p, err := gh.Permission(ctx, repo, login)
		return p == "admin" || p == "write", err
	}
}

// ListenAddr makes a bare port (9402 or :9402) a loopback address: the
// dashboard and the metrics are for this machine unless a host is named.
func ListenAddr(s string) (string, error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", fmt.Errorf("--listen %q: want a port or host:port, like 9402 or 0.0.0.0:9402", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// TimedCommand measures the command executor's agent runs for the
// metrics; embedding keeps every other method of the executor (recovery,
// verification) visible to the reconciler.
type TimedCommand struct {
	agent.CommandExecutor
	Metrics *Metrics
}

// Run runs the agent and observes the run.
func (t TimedCommand) Run(ctx context.Context, task agent.Task) (agent.Outcome, error) {
	defer t.Metrics.AgentRun()()
	return t.CommandExecutor.Run(ctx, task)
}

// ServerOptions are what --listen wires the HTTP server from.
type ServerOptions struct {
	Log     *slog.Logger
	Metrics *Metrics
	Live    *LiveRuns
	// Secret is the webhook secret ($GALLIVANT_WEBHOOK_SECRET); empty
	// turns webhooks off.
	Secret string
	// Hosts is $GALLIVANT_HTTP_HOSTS, comma-separated.
	Hosts string
	// ControlRepo is the control repository as owner/name.
	ControlRepo string
	// Debounce is how long a webhook waits for the rest of its burst.
	Debounce time.Duration
	// Changed and MaySteer are HandlerOptions.Changed and HandlerOptions.MaySteer.
	Changed  func(string)
	MaySteer func(context.Context, string, string) (bool, error)
}

// HTTPServer is what --listen adds to the daemon: the HTTP server, the
// state it reads and the trigger its webhooks kick.
type HTTPServer struct {
	state   *State
	trigger *Trigger
	metrics *Metrics
	http    *http.Server
	ln      net.Listener
	log     *slog.Logger
}

// Listen listens on addr and serves in the background until Stop.
func Listen(addr string, o ServerOptions) (*HTTPServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	d := &HTTPServer{state: &State{}, trigger: NewTrigger(o.Debounce), metrics: o.Metrics, ln: ln, log: log}
	if o.Secret == "" {
		log.Warn("webhooks are off: " + WebhookSecretEnv + " is not set")
	}
	h := Handler(HandlerOptions{Log: log, Metrics: o.Metrics, State: d.state, Secret: []byte(o.Secret), Kick: d.trigger.Kick, Changed: o.Changed, ControlRepo: o.ControlRepo,
		Live: o.Live, MaySteer: o.MaySteer, LoopbackOnly: isLoopback(ln.Addr()), Hosts: splitHosts(o.Hosts)})
	d.http = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	go func() {
		if err := d.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server ended", "error", err.Error())
		}
	}()
	log.Info("serving", "addr", ln.Addr().String(), "webhooks", o.Secret != "")
	return d, nil
}

// Stop ends the server, letting requests in progress finish briefly.
func (d *HTTPServer) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.http.Shutdown(ctx)
}
