// Package daemon is gallivant's long-running reconciler, in one place as
// controller-runtime's manager is: the schedule and the pass slot (never
// two passes at once), the signals (the first drains, the second aborts),
// gallivant.yaml re-read before every pass (Config), and the HTTP side —
// GitHub webhooks that trigger a pass, Prometheus metrics, health and
// readiness, and a read-only dashboard. The HTTP handlers read only what
// the passes leave (a View the daemon captures after each pass, and the
// record of the last pass); no request touches the control repository or
// GitHub. cmd/gallivant's daemon command only builds its Options.
package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// HandlerOptions configure the handler.
type HandlerOptions struct {
	Log     *slog.Logger
	Metrics *Metrics
	State   *State
	// Secret is the webhook secret; empty turns POST /hooks/github off
	// (404), because an unsigned delivery must never trigger anything.
	Secret []byte
	// Kick asks for a pass soon (a Trigger's Kick).
	Kick func()
	// Changed, when set, hears the repository (owner/name) of every
	// delivery that triggers a pass, before the kick: the reconciler then
	// reads that repository's idle pull requests in full (a check run or a
	// status moves no pull request's updated_at).
	Changed func(repo string)
	// ControlRepo is the control repository as owner/name; a push to its
	// control branch triggers a pass. Empty or local/… matches a push to
	// the control branch of any repository.
	ControlRepo string
	// MaySteer, when set, says whether a login may steer the loop in a
	// repository (write access or more): a comment or review delivered by
	// webhook from one that may not triggers no pass. Answers are kept
	// ten minutes.
	MaySteer func(ctx context.Context, repo, login string) (bool, error)
	// LoopbackOnly answers only requests whose Host is a loopback name
	// (localhost, 127.0.0.1, [::1], with any port) or one of Hosts, and
	// 421 to every other: a daemon bound to loopback is then out of reach
	// of a web page that rebinds its own DNS name to 127.0.0.1.
	LoopbackOnly bool
	// Hosts are further Host names LoopbackOnly accepts.
	Hosts []string
	// Refresh is how often the dashboard reloads itself; 30s when 0.
	Refresh time.Duration
	// Now is the clock for ages; time.Now when nil.
	Now func() time.Time
	// Live, when set, holds the running agents' output tails the entry
	// page shows (live.go).
	Live *LiveRuns
}

// State is what the passes leave for the handler: the last pass's record
// and the view captured after it. The daemon writes it; requests read it.
type State struct {
	mu   sync.Mutex
	last PassRecord
	view *View
}

// PassRecord is the outcome of the last pass.
type PassRecord struct {
	// Ended is zero before the first pass has finished.
	Ended  time.Time
	Took   time.Duration
	Result string
	// Err is why the pass could not run (ResultFailed, ResultPanicked).
	Err string
}

// RecordPass stores the last pass's outcome.
func (s *State) RecordPass(p PassRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = p
}

// SetView stores the view captured after a pass.
func (s *State) SetView(v *View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.view = v
}

// Last returns the last pass's record.
func (s *State) Last() PassRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// View returns the last captured view, nil before the first.
func (s *State) View() *View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

type server struct {
	HandlerOptions
	steer steerCache
}

// Handler serves /hooks/github, /metrics, /healthz, /readyz and the
// dashboard (/ and /entry/<spec path>).
func Handler(o HandlerOptions) http.Handler {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.State == nil {
		o.State = &State{}
	}
	if o.Kick == nil {
		o.Kick = func() {}
	}
	if o.Refresh == 0 {
		o.Refresh = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &server{HandlerOptions: o}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/github", s.hook)
	mux.Handle("GET /metrics", o.Metrics.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", s.ready)
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /entry/{spec...}", s.entry)
	mux.HandleFunc("GET /api/v1/entries", s.apiEntries)
	mux.HandleFunc("GET /api/v1/entries/{spec...}", s.apiEntry)
	mux.HandleFunc("GET /style.css", s.style)
	if o.LoopbackOnly {
		return s.hostCheck(mux)
	}
	return mux
}

// hostCheck refuses a request whose Host is not a loopback name or one
// of HandlerOptions.Hosts (421 Misdirected Request).
func (s *server) hostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.Log.Warn("request refused", "host", quoteHost(r.Host), "path", r.URL.Path, "reason", "Host is not a loopback name")
			http.Error(w, "this daemon answers only loopback Host names (and GALLIVANT_HTTP_HOSTS)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports a Host header LoopbackOnly accepts.
func (s *server) hostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	return slices.ContainsFunc(s.Hosts, func(h string) bool { return strings.EqualFold(h, name) })
}

// quoteHost bounds a Host header for the log.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100] + "…"
	}
	return strings.ToValidUTF8(h, "?")
}

// readiness is /readyz's JSON body.
type readiness struct {
	Ready bool `json:"ready"`
	// LastPass is when the last pass ended, absent before the first.
	LastPass   string  `json:"last_pass,omitempty"`
	AgeSeconds float64 `json:"age_seconds,omitempty"`
	Result     string  `json:"result,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// ready is 200 when the last pass could run (ok or problems: an entry's
// problem is the entry's, not the daemon's) and 503 before the first pass
// or after one that could not run, with the last pass's age either way,
// so that a probe or a person sees how stale the state is.
func (s *server) ready(w http.ResponseWriter, _ *http.Request) {
	last := s.State.Last()
	var rd readiness
	if !last.Ended.IsZero() {
		rd.LastPass = last.Ended.UTC().Format(time.RFC3339)
		rd.AgeSeconds = s.Now().Sub(last.Ended).Round(time.Second).Seconds()
		rd.Result = last.Result
		rd.Error = last.Err
		rd.Ready = last.Result == ResultOK || last.Result == ResultProblems
	} else {
		rd.Error = "no pass has finished yet"
	}
	w.Header().Set("Content-Type", "application/json")
	if !rd.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(rd)
}
