package daemon

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Each entry has its phase, stop reason, last change, attempts, rounds and
// spend; label values have no spaces; the last pass that ran and the build
// are there too.
func TestEntryMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	m.SetBuildInfo("v1.2.3", "abc123")
	before := time.Now().Unix()
	m.ObservePass(nil, ResultFailed, time.Second)
	v := sampleView()
	when := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	v.Entries[0].History[0].When = when
	m.ObserveView(v)
	ts := httptest.NewServer(Handler(HandlerOptions{Metrics: m}))
	defer ts.Close()
	got := scrape(t, ts.URL)
	if got["gallivant_last_pass_success_timestamp_seconds"] != 0 {
		t.Errorf("a failed pass set the last success to %v", got["gallivant_last_pass_success_timestamp_seconds"])
	}
	want := map[string]float64{
		`gallivant_entry_phase{phase="review",repo="acme/api",spec="specs/a.md"}`:                        1,
		`gallivant_entry_phase{phase="implement",repo="",spec="specs/b.md"}`:                             1,
		`gallivant_entry_phase{phase="not-seeded",repo="",spec="specs/c.md"}`:                            1,
		`gallivant_entry_stopped{reason="allowance",spec="specs/b.md"}`:                                  1,
		`gallivant_entry_last_transition_timestamp_seconds{spec="specs/a.md"}`:                           float64(when.Unix()),
		`gallivant_entry_attempts{spec="specs/a.md"}`:                                                    3,
		`gallivant_entry_review_rounds{spec="specs/a.md"}`:                                               1,
		`gallivant_entry_spent_tokens{spec="specs/d.md"}`:                                                120000,
		`gallivant_entry_spent_dollars{spec="specs/d.md"}`:                                               1.5,
		`gallivant_build_info{goversion="` + runtime.Version() + `",revision="abc123",version="v1.2.3"}`: 1,
		`gallivant_entries{phase="not-seeded"}`:                                                          1,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	for k := range got {
		if strings.Contains(k, `="not seeded"`) || strings.Contains(k, `spec="specs/c.md"}`) && strings.HasPrefix(k, "gallivant_entry_stopped") {
			t.Errorf("unexpected series %s", k)
		}
	}
	// The next pass that runs sets the success time; an entry that left
	// the repository leaves the series.
	m.ObservePass(nil, ResultProblems, time.Second)
	v.Entries = v.Entries[:1]
	m.ObserveView(v)
	got = scrape(t, ts.URL)
	if s := got["gallivant_last_pass_success_timestamp_seconds"]; s < float64(before) {
		t.Errorf("last success %v, want at least %d", s, before)
	}
	var entries []string
	for k := range got {
		if strings.HasPrefix(k, "gallivant_entry_phase{") {
			entries = append(entries, k)
		}
	}
	if diff := cmp.Diff([]string{`gallivant_entry_phase{phase="review",repo="acme/api",spec="specs/a.md"}`}, entries); diff != "" {
		t.Errorf("entry series after the repository shrank (-want +got):\n%s", diff)
	}
}

func TestLabelValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"not seeded": "not-seeded", "review": "review", "no-escalation-model": "no-escalation-model", " a  b ": "a-b"} {
		if got := LabelValue(in); got != want {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// promtool (Debian's prometheus package) lints the exposition: names,
// units, help texts, counters' _total. Skipped where it is not installed.
func TestMetricsPassPromtoolLint(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	m := NewMetrics()
	m.SetBuildInfo("v1.2.3", "abc123")
	m.ObservePass(nil, ResultOK, time.Second)
	m.ObserveView(sampleView())
	ts := httptest.NewServer(Handler(HandlerOptions{Metrics: m}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
