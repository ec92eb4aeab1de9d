package daemon

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
)

// sampleView has one entry of each kind the templates branch on.
func sampleView() *View {
	v := ownedView()
	v.Captured = time.Now()
	v.Entries = []Entry{
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/a.md", Ledger: "plans/a-ledger.md", Status: "active", Phase: "review", PR: "acme/api#7",
			Rows: reconcile.RowCounts{Done: 1, Total: 2, Open: 1}, Glyphs: "✓→", Pending: "2 | home | abc"},
			PRURL: "https://github.com/acme/api/pull/7", Repo: "acme/api", Attempts: 3, Rounds: 1, MaxRounds: 10,
			Table:     []ledger.Row{{N: 1, Status: ledger.Done, Attempts: 1, Evidence: "go test ./... ok"}, {N: 2, Status: ledger.Open}},
			Decisions: []string{"row 1 done | x | y"}, Delivery: []string{"phase: review"}, Why: []string{"waits"},
			History: []store.LogEntry{{SHA: strings.Repeat("b", 40), When: time.Now(), Subject: "loop: dispatch row 2"}}},
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/b.md", Ledger: "plans/b-ledger.md", Status: "active", Phase: "implement",
			Stop:  &reconcile.StopStatus{Reason: "allowance", Detail: "row 2 used 4 of 4 attempts", Clear: []string{"loop: retry row 2", "loop: cut row 2"}},
			Waves: []string{"wave 1 of 2, done: ✓ T001 (1)", "wave 2 of 2, running: → T002 (1), ○ T003 <b>"}}},
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/c.md", Status: "draft", Phase: "not seeded"}},
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/d.md", Ledger: "plans/d-ledger.md", Status: "active", Phase: "review", Spent: "120000 tokens, $1.50", Budget: "500000 tokens"},
			LegLinks: []LegLink{
				{LegStatus: reconcile.LegStatus{Leg: "api", Repo: "acme/api", Phase: "ready", PR: "acme/api#9"}, URL: "https://github.com/acme/api/pull/9"},
				{LegStatus: reconcile.LegStatus{Leg: "web", Repo: "acme/web", Phase: "review", PR: "acme/web#4", Round: 1}, URL: "https://github.com/acme/web/pull/4"}}},
	}
	return v
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestDashboardPages(t *testing.T) {
	t.Parallel()
	state := &State{}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	if resp, body := get(t, ts.URL+"/"); resp.StatusCode != 200 || !strings.Contains(body, "No pass has finished yet") {
		t.Errorf("before the first pass: %d\n%s", resp.StatusCode, body)
	}
	state.SetView(sampleView())
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultOK})
	tests := []struct {
		name, path string
		code       int
		want       []string
	}{
		{"index", "/", 200, []string{"specs/a.md", "specs/b.md", "stopped: allowance", "loop: retry row 2", "https://github.com/acme/api/pull/7", "round 1 of 10", "last pass ok",
			// Issue 17: a coordinated entry's legs, each with its pull request; issue 14: spend against budget.
			"leg api", "https://github.com/acme/api/pull/9", "leg web", "https://github.com/acme/web/pull/4", "120000 tokens, $1.50 of a 500000 tokens budget",
			// Issue 36: a planned entry's waves, one a line, escaped as text.
			"<dt>waves</dt><dd>wave 1 of 2, done: ✓ T001 (1)<br>wave 2 of 2, running: → T002 (1), ○ T003 &lt;b&gt;</dd>"}},
		{"entry", "/entry/specs/a.md", 200, []string{"go test ./... ok", "row 1 done | x | y", "phase: review", "loop: dispatch row 2", "bbbbbbb"}},
		{"unknown entry", "/entry/specs/zzz.md", 404, []string{"No entry by that name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := get(t, ts.URL+tt.path)
			if resp.StatusCode != tt.code {
				t.Errorf("status %d, want %d\n%s", resp.StatusCode, tt.code, body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); csp != cspPolicy {
				t.Errorf("CSP %q", csp)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q:\n%s", w, body)
				}
			}
		})
	}
}
