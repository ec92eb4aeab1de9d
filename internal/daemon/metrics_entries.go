package daemon

import (
	"runtime"
	"strings"
	"time"

	"github.com/gallivant/gallivant/specs"
	"github.com/prometheus/client_golang/prometheus"
)

// entryMetrics are the per-entry series and the process's identity. Their
// cardinality is bounded by the control repository: one series per entry
// (spec) and gauge, replaced after every pass, so an entry that leaves the
// repository leaves the metrics.
type entryMetrics struct {
	phase      *prometheus.GaugeVec
	stop       *prometheus.GaugeVec
	lastChange *prometheus.GaugeVec
	attempts   *prometheus.GaugeVec
	rounds     *prometheus.GaugeVec
	tokens     *prometheus.GaugeVec
	dollars    *prometheus.GaugeVec
	lastOK     prometheus.Gauge
	build      *prometheus.GaugeVec
}

func newEntryMetrics() *entryMetrics {
	g := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	return &entryMetrics{
		phase:      g("gallivant_entry_phase", "1 for each entry, labelled with its phase after the last pass.", "spec", "repo", "phase"),
		stop:       g("gallivant_entry_stopped", "1 for each stopped entry, labelled with its stop reason after the last pass.", "spec", "reason"),
		lastChange: g("gallivant_entry_last_transition_timestamp_seconds", "When the entry's ledger last changed on the control branch (Unix time).", "spec"),
		attempts:   g("gallivant_entry_attempts", "Attempts the entry's rows have spent.", "spec"),
		rounds:     g("gallivant_entry_review_rounds", "Review rounds the entry's pull request has had.", "spec"),
		tokens:     g("gallivant_entry_spent_tokens", "Tokens the entry's agents reported spending.", "spec"),
		dollars:    g("gallivant_entry_spent_dollars", "Dollars the entry's agents reported spending.", "spec"),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gallivant_last_pass_success_timestamp_seconds",
			Help: "When the last pass that ran ended (Unix time): result ok or problems."}),
		build: g("gallivant_build_info", "1, labelled with the running gallivant's version, revision and Go version.", "version", "revision", "goversion"),
	}
}

func (em *entryMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{em.phase, em.stop, em.lastChange, em.attempts, em.rounds, em.tokens, em.dollars, em.lastOK, em.build}
}

// LabelValue is a phase or reason as a label value: words joined by
// hyphens (not seeded → not-seeded), as Prometheus label values are
// conventionally written without spaces.
func LabelValue(s string) string { return strings.Join(strings.Fields(s), "-") }

// SetBuildInfo sets gallivant_build_info for the running binary.
func (m *Metrics) SetBuildInfo(version, revision string) {
	m.entry.build.Reset()
	m.entry.build.WithLabelValues(version, revision, runtime.Version()).Set(1)
}

// observePassEnd records when a pass that ran ended.
func (m *Metrics) observePassEnd(result string, ended time.Time) {
	if result == ResultOK || result == ResultProblems {
		m.entry.lastOK.Set(float64(ended.Unix()))
	}
}

// observeEntries replaces the per-entry series with what v holds.
func (m *Metrics) observeEntries(v *View) {
	em := m.entry
	for _, g := range []*prometheus.GaugeVec{em.phase, em.stop, em.lastChange, em.attempts, em.rounds, em.tokens, em.dollars} {
		g.Reset()
	}
	for _, e := range v.Entries {
		em.phase.WithLabelValues(e.Spec, e.Repo, LabelValue(e.Phase)).Set(1)
		if e.Stop != nil {
			em.stop.WithLabelValues(e.Spec, LabelValue(e.Stop.Reason)).Set(1)
		}
		if len(e.History) > 0 && !e.History[0].When.IsZero() {
			em.lastChange.WithLabelValues(e.Spec).Set(float64(e.History[0].When.Unix()))
		}
		em.attempts.WithLabelValues(e.Spec).Set(float64(e.Attempts))
		em.rounds.WithLabelValues(e.Spec).Set(float64(e.Rounds))
		if e.Spent != "" {
			if a, err := specs.ParseAmount(e.Spent); err == nil {
				em.tokens.WithLabelValues(e.Spec).Set(float64(a.Tokens))
				em.dollars.WithLabelValues(e.Spec).Set(float64(a.Micros) / 1e6)
			}
		}
	}
}
