package daemon

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gallivant/gallivant/reconcile"
)

func TestTransitionKind(t *testing.T) {
	t.Parallel()
	for subject, want := range map[string]string{
		"loop: dispatch row 3":     "dispatch",
		"loop: stop allowance":     "stop",
		"loop: ready acme/api#1":   "ready",
		"loop: record home seed":   "record",
		"loop: ":                   "other",
		"Approve the launch specs": "other",
	} {
		if got := TransitionKind(subject); got != want {
			t.Errorf("TransitionKind(%q) = %q, want %q", subject, got, want)
		}
	}
}

// Every GitHub response is counted once by outcome, and the remaining
// budget follows the last response that states it.
func TestTransportCountsOutcomes(t *testing.T) {
	t.Parallel()
	type answer struct {
		code    int
		headers map[string]string
	}
	answers := []answer{
		{200, map[string]string{"X-RateLimit-Remaining": "4999"}},
		{304, map[string]string{"X-RateLimit-Remaining": "4999"}},
		{404, nil},
		{502, nil},
		{403, map[string]string{"X-RateLimit-Remaining": "0"}},
		{429, map[string]string{"Retry-After": "30"}},
		{403, map[string]string{"X-RateLimit-Remaining": "4321"}},
	}
	i := 0
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a := answers[i]
		i++
		for k, v := range a.headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.code)
	}))
	defer gh.Close()
	m := NewMetrics()
	c := &http.Client{Transport: m.Transport(nil)}
	for range answers {
		resp, err := c.Get(gh.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	gh.Close()
	if _, err := c.Get(gh.URL); err == nil {
		t.Fatal("a closed server answered")
	}
	ts := httptest.NewServer(Handler(HandlerOptions{Metrics: m}))
	defer ts.Close()
	got := scrape(t, ts.URL)
	want := map[string]float64{
		`gallivant_github_requests_total{outcome="2xx"}`:       1,
		`gallivant_github_requests_total{outcome="304"}`:       1,
		`gallivant_github_requests_total{outcome="4xx"}`:       2,
		`gallivant_github_requests_total{outcome="5xx"}`:       1,
		`gallivant_github_requests_total{outcome="throttled"}`: 2,
		`gallivant_github_requests_total{outcome="error"}`:     1,
		`gallivant_github_rate_remaining`:                      4321,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// A pass's result and transitions, the entry gauges and agent runs.
func TestPassMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	rep := &reconcile.Report{Transitions: []reconcile.Transition{{Subject: "loop: dispatch row 1"}, {Subject: "loop: stop allowance"}},
		Notes: []reconcile.Note{{Spec: "specs/a.md", Message: "GitHub said 500", Problem: true}}}
	m.ObservePass(rep, PassResult(rep, nil), 2*time.Second)
	m.ObservePass(nil, PassResult(nil, errors.New("unreachable")), time.Second)
	m.ObserveView(sampleView())
	done := m.AgentRun()
	ts := httptest.NewServer(Handler(HandlerOptions{Metrics: m}))
	defer ts.Close()
	got := scrape(t, ts.URL)
	done()
	after := scrape(t, ts.URL)
	want := map[string]float64{
		`gallivant_passes_total{result="problems"}`:          1,
		`gallivant_passes_total{result="failed"}`:            1,
		`gallivant_passes_total{result="ok"}`:                0,
		`gallivant_transitions_total{kind="dispatch"}`:       1,
		`gallivant_transitions_total{kind="stop"}`:           1,
		`gallivant_pass_duration_seconds_count`:              2,
		`gallivant_entries{phase="review"}`:                  2,
		`gallivant_entries{phase="implement"}`:               1,
		`gallivant_entries{phase="not-seeded"}`:              1,
		`gallivant_stopped_entries{reason="allowance"}`:      1,
		`gallivant_agent_runs_in_flight`:                     1,
		`gallivant_notifications_total{outcome="delivered"}`: 0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if after[`gallivant_agent_runs_in_flight`] != 0 || after[`gallivant_agent_run_duration_seconds_count`] != 1 {
		t.Errorf("after the run: in flight %v, runs timed %v", after[`gallivant_agent_runs_in_flight`], after[`gallivant_agent_run_duration_seconds_count`])
	}
}
