package daemon

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Pass results, the values of gallivant_passes_total's result label.
const (
	ResultOK       = "ok"       // the pass ran and no entry hit a problem
	ResultProblems = "problems" // the pass ran; some entry hit a problem it could not record as a stop
	ResultFailed   = "failed"   // the pass could not run
	ResultPanicked = "panicked" // the pass panicked and was recovered
)

// Metrics are the daemon's Prometheus collectors on a registry of their
// own, so that a test or a second daemon in one process never collides
// with another. docs/operations.md lists every metric and label.
type Metrics struct {
	reg           *prometheus.Registry
	passDuration  prometheus.Histogram
	passes        *prometheus.CounterVec
	transitions   *prometheus.CounterVec
	entries       *prometheus.GaugeVec
	stopped       *prometheus.GaugeVec
	ghRequests    *prometheus.CounterVec
	ghRemaining   prometheus.Gauge
	agentInFlight prometheus.Gauge
	agentDuration prometheus.Histogram
	webhooks      *prometheus.CounterVec
	notifications *prometheus.CounterVec
	entry         *entryMetrics // metrics_entries.go
}

// NewMetrics registers every collector, with the Go runtime's and the
// process's.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		passDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gallivant_pass_duration_seconds", Help: "How long reconcile passes took, agent runs included.",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gallivant_passes_total", Help: "Reconcile passes by result: ok, problems, failed (could not run), panicked.",
		}, []string{"result"}),
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gallivant_transitions_total", Help: "Transitions pushed to the control branch, by kind (the word after loop: in the commit subject).",
		}, []string{"kind"}),
		entries: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gallivant_entries", Help: "Entries by phase after the last pass.",
		}, []string{"phase"}),
		stopped: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gallivant_stopped_entries", Help: "Stopped entries by stop reason after the last pass.",
		}, []string{"reason"}),
		ghRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gallivant_github_requests_total", Help: "GitHub API responses on the wire by outcome: 2xx, 304, 4xx, 5xx, throttled (refused for the rate limit), error (no response).",
		}, []string{"outcome"}),
		ghRemaining: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gallivant_github_rate_remaining", Help: "X-RateLimit-Remaining of the last GitHub response that carried it.",
		}),
		agentInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gallivant_agent_runs_in_flight", Help: "Agent runs the executor has started and not finished.",
		}),
		agentDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gallivant_agent_run_duration_seconds", Help: "How long executor runs took.",
			Buckets: []float64{1, 10, 30, 60, 300, 600, 1200, 1800, 3600, 7200},
		}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gallivant_webhook_deliveries_total", Help: "GitHub webhook deliveries by outcome: triggered, ignored, unauthorized, malformed, disabled.",
		}, []string{"outcome"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gallivant_notifications_total", Help: "Notification delivery attempts by outcome: delivered, retry, failed (gave up).",
		}, []string{"outcome"}),
	}
	m.entry = newEntryMetrics()
	m.reg.MustRegister(m.entry.collectors()...)
	m.reg.MustRegister(m.passDuration, m.passes, m.transitions, m.entries, m.stopped, m.ghRequests, m.ghRemaining,
		m.agentInFlight, m.agentDuration, m.webhooks, m.notifications,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Labels that exist from the start read 0 rather than absent, so that
	// rate() and alerts work from the first scrape.
	for _, r := range []string{ResultOK, ResultProblems, ResultFailed, ResultPanicked} {
		m.passes.WithLabelValues(r)
	}
	for _, o := range []string{"2xx", "304", "4xx", "5xx", "throttled", "error"} {
		m.ghRequests.WithLabelValues(o)
	}
	for _, o := range []string{WebhookTriggered, WebhookIgnored, WebhookStranger, WebhookUnauthorized, WebhookMalformed, WebhookDisabled} {
		m.webhooks.WithLabelValues(o)
	}
	for _, o := range []string{reconcile.NotifyDelivered, reconcile.NotifyRetry, reconcile.NotifyFailed} {
		m.notifications.WithLabelValues(o)
	}
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// PassResult classifies a pass's outcome the way the exit status does
// (docs/cli.md): an error means it could not run, a problem note that
// something needs a person.
func PassResult(rep *reconcile.Report, err error) string {
	if err != nil {
		return ResultFailed
	}
	if rep != nil {
		for _, n := range rep.Notes {
			if n.Problem {
				return ResultProblems
			}
		}
	}
	return ResultOK
}

// ObservePass records one pass: its duration, its result and the
// transitions that reached the control branch.
func (m *Metrics) ObservePass(rep *reconcile.Report, result string, took time.Duration) {
	if took > 0 {
		// A panicked pass has no duration worth a bucket.
		m.passDuration.Observe(took.Seconds())
	}
	m.passes.WithLabelValues(result).Inc()
	m.observePassEnd(result, time.Now())
	if rep == nil {
		return
	}
	for _, t := range rep.Transitions {
		m.transitions.WithLabelValues(TransitionKind(t.Subject)).Inc()
	}
}

// TransitionKind is the kind of a transition commit as a metric label: the
// first word of its kind (ledger.Kind.Label: dispatch, record, stop,
// resume, …), "other" for a subject outside the vocabulary.
func TransitionKind(subject string) string {
	s, err := ledger.ParseSubject(subject)
	if err != nil {
		return "other"
	}
	return s.Kind.Label()
}

// ObserveView sets the entry gauges from what the last pass left.
func (m *Metrics) ObserveView(v *View) {
	m.entries.Reset()
	m.stopped.Reset()
	for _, e := range v.Entries {
		m.entries.WithLabelValues(LabelValue(e.Phase)).Inc()
		if e.Stop != nil {
			m.stopped.WithLabelValues(LabelValue(e.Stop.Reason)).Inc()
		}
	}
	m.observeEntries(v)
}

// ObserveWebhook counts one delivery.
func (m *Metrics) ObserveWebhook(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// ObserveNotification counts one delivery attempt; it fits
// reconcile.NotifyOptions.Observe.
func (m *Metrics) ObserveNotification(outcome string) {
	m.notifications.WithLabelValues(outcome).Inc()
}

// Transport wraps next so that every GitHub response is counted by outcome
// and the remaining rate budget is read from its headers. It sits below
// the adapter's cache and retries, so it counts what went over the wire.
func (m *Metrics) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err != nil {
			m.ghRequests.WithLabelValues("error").Inc()
			return resp, err
		}
		if v, perr := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); perr == nil {
			m.ghRemaining.Set(float64(v))
		}
		m.ghRequests.WithLabelValues(responseOutcome(resp)).Inc()
		return resp, nil
	})
}

// responseOutcome buckets a response; a 403 or 429 that says the rate
// limit is spent (remaining 0, or Retry-After) is throttled, not 4xx.
func responseOutcome(resp *http.Response) string {
	switch c := resp.StatusCode; {
	case c == http.StatusNotModified:
		return "304"
	case (c == http.StatusForbidden || c == http.StatusTooManyRequests) &&
		(resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""):
		return "throttled"
	case c >= 500:
		return "5xx"
	case c >= 400:
		return "4xx"
	default:
		return "2xx"
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// AgentRun marks an agent run started and returns the function that marks
// it finished: the run counts as in flight in between and its duration is
// observed at the end. The daemon calls it around the command executor's
// Run (an embedding wrapper keeps the executor's other methods).
func (m *Metrics) AgentRun() (done func()) {
	m.agentInFlight.Inc()
	start := time.Now()
	return func() {
		m.agentInFlight.Dec()
		m.agentDuration.Observe(time.Since(start).Seconds())
	}
}
