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

// Issue 35: the index lists the open lesson proposals on the control
// repository, each linked, and a done entry's card says where its learn
// task stands; a merged proposal is no longer listed as open.
func TestDashboardLessonProposals(t *testing.T) {
	t.Parallel()
	state := &State{}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	v := ownedView()
	v.Captured = time.Now()
	v.Entries = []Entry{
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/e.md", Ledger: "plans/e-ledger.md", Status: "active", Phase: "done", PR: "acme/api#3",
			Lessons: &reconcile.LessonsStatus{State: "proposed", Proposal: "acme/control#5", Candidates: 2, Words: "2 lessons proposed in acme/control#5, waiting for a person to merge or close it"}},
			PRURL: "https://github.com/acme/api/pull/3", LessonsURL: "https://github.com/acme/control/pull/5"},
		{EntryStatus: reconcile.EntryStatus{Spec: "specs/f.md", Ledger: "plans/f-ledger.md", Status: "active", Phase: "done", PR: "acme/api#4",
			Lessons: &reconcile.LessonsStatus{State: "merged", Proposal: "acme/control#6", Candidates: 1, Words: "1 lesson approved in acme/control#6"}},
			PRURL: "https://github.com/acme/api/pull/4", LessonsURL: "https://github.com/acme/control/pull/6"},
	}
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultOK})
	_, body := get(t, ts.URL+"/")
	for _, w := range []string{"<h2>Open lesson proposals</h2>",
		`<a class="pr" href="https://github.com/acme/control/pull/5">acme/control#5</a>: 2 candidate lessons learned from <a class="pr" href="https://github.com/acme/api/pull/3">acme/api#3</a>`,
		`<dt>lessons</dt><dd><a class="pr" href="https://github.com/acme/control/pull/5">acme/control#5</a>: 2 lessons proposed in acme/control#5, waiting for a person to merge or close it</dd>`,
		"1 lesson approved in acme/control#6"} {
		if !strings.Contains(body, w) {
			t.Errorf("the index lacks %q:\n%s", w, body)
		}
	}
	if strings.Contains(body, "acme/control#6</a>: 1 candidate") {
		t.Errorf("a merged proposal is listed as open:\n%s", body)
	}
}
