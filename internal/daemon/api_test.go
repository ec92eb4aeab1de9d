package daemon

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/reconcile"
	"github.com/google/go-cmp/cmp"
)

// Each card shows what its entry waits for and the problem the last pass
// hit; a problem naming no entry goes to the page's problems.
func TestCardsShowWaitsAndProblems(t *testing.T) {
	t.Parallel()
	v := sampleView()
	v.AttachNotes([]reconcile.Note{
		{Spec: "specs/a.md", Message: "acme/api#7 waits for an approval by @alice"},
		{Spec: "specs/b.md", Message: "the plan plans/b-plan.md has errors (gallivant check)", Problem: true},
		{Spec: "gallivant.yaml", Message: "has errors; the change is refused", Problem: true},
	})
	state := &State{}
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultProblems})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	_, body := get(t, ts.URL+"/")
	card := func(spec string) string {
		i := strings.Index(body, `id="`+spec+`"`)
		if i < 0 {
			t.Fatalf("no card for %s:\n%s", spec, body)
		}
		rest := body[i:]
		return rest[:strings.Index(rest, "</article>")]
	}
	if c := card("specs/a.md"); !strings.Contains(c, "waiting: acme/api#7 waits for an approval by @alice") {
		t.Errorf("card a lacks its wait:\n%s", c)
	}
	if c := card("specs/b.md"); !strings.Contains(c, "last pass: the plan plans/b-plan.md has errors (gallivant check)") {
		t.Errorf("card b lacks its problem:\n%s", c)
	}
	if c := card("specs/c.md"); strings.Contains(c, "waiting:") || strings.Contains(c, "last pass:") {
		t.Errorf("card c shows another entry's notes:\n%s", c)
	}
	if !strings.Contains(body, `<p class="problem">gallivant.yaml: has errors; the change is refused</p>`) {
		t.Errorf("the page lacks the problem that names no entry")
	}
}

// The index filters by phase, stop and repository with links (the CSP
// allows no form), and says so when nothing matches.
func TestDashboardFilters(t *testing.T) {
	t.Parallel()
	state := &State{}
	state.SetView(sampleView())
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultOK})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	cards := func(path string) []string {
		_, body := get(t, ts.URL+path)
		var out []string
		for _, part := range strings.Split(body, `<article class="card`)[1:] {
			i := strings.Index(part, `id="`)
			out = append(out, part[i+4:i+4+strings.Index(part[i+4:], `"`)])
		}
		return out
	}
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/", []string{"specs/b.md", "specs/a.md", "specs/c.md", "specs/d.md"}},
		{"/?phase=review", []string{"specs/a.md", "specs/d.md"}},
		{"/?phase=not-seeded", []string{"specs/c.md"}},
		{"/?stop=allowance", []string{"specs/b.md"}},
		{"/?repo=acme/api", []string{"specs/a.md"}},
		{"/?phase=review&repo=ACME/api", []string{"specs/a.md"}},
		{"/?phase=done", nil},
	} {
		if diff := cmp.Diff(tt.want, cards(tt.path)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
	_, body := get(t, ts.URL+"/?phase=review")
	for _, want := range []string{`<a href="/?phase=review" class="active" aria-current="true">review</a>`, `<a href="/?phase=review&amp;stop=allowance">allowance</a>`, `<a href="/">all</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("filtered index lacks %s", want)
		}
	}
	if _, body := get(t, ts.URL+"/?phase=done"); !strings.Contains(body, "No entry matches this filter.") {
		t.Errorf("an empty filter result does not say so")
	}
}

// /api/v1/entries is `gallivant status --format json` over HTTP, with the
// index's filters; /api/v1/entries/{spec} one entry.
func TestEntriesAPI(t *testing.T) {
	t.Parallel()
	state := &State{}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	if resp, body := get(t, ts.URL+"/api/v1/entries"); resp.StatusCode != 503 || !strings.Contains(body, `"error": "no pass has finished yet"`) {
		t.Errorf("before the first pass: %d %s", resp.StatusCode, body)
	}
	v := sampleView()
	state.SetView(v)
	resp, body := get(t, ts.URL+"/api/v1/entries")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var got []reconcile.EntryStatus
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	var want []reconcile.EntryStatus
	for _, e := range v.Entries {
		want = append(want, e.EntryStatus)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/api/v1/entries (-want +got):\n%s", diff)
	}
	_, body = get(t, ts.URL+"/api/v1/entries?stop=allowance")
	got = nil
	json.Unmarshal([]byte(body), &got)
	if len(got) != 1 || got[0].Spec != "specs/b.md" || got[0].Stop.Reason != "allowance" {
		t.Errorf("?stop=allowance: %+v", got)
	}
	resp, body = get(t, ts.URL+"/api/v1/entries/specs/a.md")
	var one reconcile.EntryStatus
	if err := json.Unmarshal([]byte(body), &one); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v %s", resp.StatusCode, err, body)
	}
	if diff := cmp.Diff(v.Entries[0].EntryStatus, one); diff != "" {
		t.Errorf("/api/v1/entries/specs/a.md (-want +got):\n%s", diff)
	}
	if resp, body := get(t, ts.URL+"/api/v1/entries/specs/zzz.md"); resp.StatusCode != 404 || !strings.Contains(body, `no entry for spec \"specs/zzz.md\"`) {
		t.Errorf("unknown spec: %d %s", resp.StatusCode, body)
	}
}
