package daemon

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/google/go-cmp/cmp"
)

// Issue 31: a card does not say "dispatched" of a run that has ended or
// was stopped; it says what became of it.
func TestDispatchFact(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	captured := now.Add(-3 * time.Minute)
	pending := Entry{EntryStatus: reconcile.EntryStatus{Spec: "specs/a.md", Pending: "2 | home | " + strings.Repeat("a", 40)}, DispatchedAt: now.Add(-5 * time.Minute)}
	stopped := pending
	stopped.Stop = &reconcile.StopStatus{Reason: "harness-error"}
	undated := pending
	undated.DispatchedAt = time.Time{}
	seed := Entry{EntryStatus: reconcile.EntryStatus{Spec: "specs/a.md", Pending: "seed | home | abc"}}
	running := []LiveRun{{Spec: "specs/a.md", Task: "row 2", Started: now.Add(-90 * time.Second)}}
	endedAfter := &LiveRun{Spec: "specs/a.md", Task: "row 2", Ended: now.Add(-30 * time.Second)}
	endedBefore := &LiveRun{Spec: "specs/a.md", Task: "row 1", Ended: captured.Add(-time.Second)}
	tests := []struct {
		name    string
		e       Entry
		running []LiveRun
		ended   *LiveRun
		want    *DispatchFact
	}{
		{"no dispatch", Entry{EntryStatus: reconcile.EntryStatus{Spec: "specs/a.md"}}, running, endedAfter, nil},
		{"dispatched", pending, nil, nil, &DispatchFact{"dispatched", "row 2 of home, from aaaaaaa, 5m ago"}},
		{"dispatched, no time", undated, nil, nil, &DispatchFact{"dispatched", "row 2 of home, from aaaaaaa"}},
		{"the seed", seed, nil, nil, &DispatchFact{"dispatched", "the seed of home, from abc"}},
		{"running", pending, running, nil, &DispatchFact{"running", "row 2 of home, from aaaaaaa: row 2, started 1m ago"}},
		{"returned after the view", pending, nil, endedAfter, &DispatchFact{"returned", "row 2 of home, from aaaaaaa: row 2 ended 30s ago; the next pass admits or refuses it"}},
		{"a run that ended before the view is not this dispatch's", pending, nil, endedBefore, &DispatchFact{"dispatched", "row 2 of home, from aaaaaaa, 5m ago"}},
		{"stopped", stopped, nil, endedAfter, &DispatchFact{"interrupted", "row 2 of home, from aaaaaaa; stopped before its return was admitted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := dispatchFact(tc.e, tc.running, tc.ended, captured, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("dispatchFact(%s) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// The card follows the run: running while the agent runs, returned once
// it ended, and nothing once a pass settled it.
func TestCardFollowsTheRun(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	live := NewLiveRuns()
	live.now = now
	state := &State{}
	v := sampleView()
	v.Captured = clock.Add(-time.Minute)
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: v.Captured, Result: ResultOK})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Live: live, Now: now}))
	defer ts.Close()
	card := func(url string) string {
		t.Helper()
		_, body := get(t, ts.URL+url)
		i := strings.Index(body, `id="specs/a.md"`)
		if i < 0 {
			t.Fatalf("%s has no card of specs/a.md:\n%s", url, body)
		}
		body = body[i:]
		return body[:strings.Index(body, "</article>")]
	}
	facts := func(step string, want, gone []string) {
		t.Helper()
		for _, url := range []string{"/", "/entry/specs/a.md"} {
			c := card(url)
			for _, w := range want {
				if !strings.Contains(c, w) {
					t.Errorf("%s: the card on %s lacks %q:\n%s", step, url, w, c)
				}
			}
			for _, g := range gone {
				if strings.Contains(c, g) {
					t.Errorf("%s: the card on %s still says %q:\n%s", step, url, g, c)
				}
			}
		}
	}
	facts("before the run", []string{"<dt>dispatched</dt><dd>row 2 of home, from abc</dd>"}, []string{"<dt>running</dt>", "<dt>returned</dt>"})

	r := agent.Run{Spec: "specs/a.md", Task: "row 2", Started: clock.Add(-2 * time.Minute)}
	live.Started(r)
	facts("while it runs", []string{"<dt>running</dt><dd>row 2 of home, from abc: row 2, started 2m ago</dd>"}, []string{"<dt>dispatched</dt>", "<dt>returned</dt>"})

	clock = clock.Add(30 * time.Second)
	live.Finished(r)
	clock = clock.Add(10 * time.Second)
	facts("after it ended", []string{"<dt>returned</dt><dd>row 2 of home, from abc: row 2 ended 10s ago; the next pass admits or refuses it</dd>"}, []string{"<dt>dispatched</dt>", "<dt>running</dt>"})

	settled := sampleView()
	settled.Captured = clock
	settled.Entries[0].Pending = ""
	state.SetView(settled)
	facts("after a pass settled it", nil, []string{"<dt>dispatched</dt>", "<dt>running</dt>", "<dt>returned</dt>"})
}
