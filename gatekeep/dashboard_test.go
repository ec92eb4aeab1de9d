package gatekeep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// ids returns a NewID counting up from first.
func ids(first int64) func() int64 {
	n := first - 1
	return func() int64 { n++; return n }
}

var dashEntries = []DashboardEntry{
	{Spec: "specs/b.md", Phase: "review", Status: "rows 2 of 2 done, acme/api#4"},
	{Spec: "specs/a.md", Phase: "implement", Status: "rows 1 of 2 done", Stop: "allowance | row 2 spent its 2 attempts", Offers: []string{"retry 2", "rows +1"}},
	{Spec: "specs/c.md", Phase: "review", Status: "acme/api#5", Paused: "paused by @bob from acme/api#5", Offers: []string{"unpause"}},
}

// The dashboard body offers a box per request that clears a stop, reads
// back to the same boxes, and renders again to the same body when nothing
// changed: no pass edits the issue for nothing.
func TestDashboardRendersStably(t *testing.T) {
	t.Parallel()
	body := RenderDashboard(DashboardRender{Entries: dashEntries, NewID: ids(100)})
	if !strings.HasPrefix(body, DashboardMarker+"\n") {
		t.Fatalf("the body does not start with the marker:\n%s", body)
	}
	for _, want := range []string{
		"## stopped\n\n- `specs/a.md`: `rows 1 of 2 done`\n  stopped: `allowance | row 2 spent its 2 attempts`\n" +
			"- [ ] retry 2 <!-- gallivant:box 100 \"specs/a.md\" -->\n- [ ] rows +1 <!-- gallivant:box 101 \"specs/a.md\" -->\n",
		"## paused\n\n- `specs/c.md`: `acme/api#5`\n  `paused by @bob from acme/api#5`\n- [ ] unpause <!-- gallivant:box 102 \"specs/c.md\" -->\n",
		"## review\n\n- `specs/b.md`: `rows 2 of 2 done, acme/api#4`\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks\n%s\nin\n%s", want, body)
		}
	}
	if strings.Index(body, "## stopped") > strings.Index(body, "## paused") || strings.Index(body, "## paused") > strings.Index(body, "## review") {
		t.Errorf("groups out of order:\n%s", body)
	}
	boxes := ParseDashboard(body)
	want := []DashboardBox{{ID: 100, Spec: "specs/a.md", Text: "retry 2"}, {ID: 101, Spec: "specs/a.md", Text: "rows +1"}, {ID: 102, Spec: "specs/c.md", Text: "unpause"}}
	if diff := cmp.Diff(want, boxes); diff != "" {
		t.Fatalf("boxes (-want +got):\n%s", diff)
	}
	again := RenderDashboard(DashboardRender{Entries: dashEntries, Previous: boxes, NewID: func() int64 { t.Fatal("a new id for an unchanged box"); return 0 }})
	if diff := cmp.Diff(body, again); diff != "" {
		t.Errorf("an unchanged state renders another body (-first +second):\n%s", diff)
	}
}

// A box acted on comes back unticked under a new id with its result,
// also once its entry no longer offers it; a tick not acted on yet stays
// as the person left it.
func TestDashboardClearsActedBoxes(t *testing.T) {
	t.Parallel()
	body := RenderDashboard(DashboardRender{Entries: dashEntries, NewID: ids(100)})
	ticked := strings.Replace(body, "- [ ] retry 2 <!--", "- [x] retry 2 | use the v2 API <!--", 1)
	ticked = strings.Replace(ticked, "- [ ] unpause <!--", "- [X] unpause <!--", 1)
	boxes := ParseDashboard(ticked)
	if !boxes[0].Ticked || boxes[0].Hint != "use the v2 API" || boxes[0].Text != "retry 2" || !boxes[2].Ticked {
		t.Fatalf("ticked boxes read as %+v", boxes)
	}
	// retry 2 was performed and cleared the stop: specs/a.md offers
	// nothing now. unpause is not acted on this pass.
	after := append([]DashboardEntry(nil), dashEntries...)
	after[1] = DashboardEntry{Spec: "specs/a.md", Phase: "implement", Status: "rows 1 of 2 done"}
	out := RenderDashboard(DashboardRender{Entries: after, Previous: boxes, Results: map[int64]string{100: "done by `@bob`: `loop: request retry from acme/control#7 by @bob`"}, NewID: ids(200)})
	for _, want := range []string{
		"- [ ] retry 2 <!-- gallivant:box 200 \"specs/a.md\" --> — done by `@bob`: `loop: request retry from acme/control#7 by @bob`\n",
		"- [x] unpause <!-- gallivant:box 102 \"specs/c.md\" -->\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the body lacks\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "rows +1") || strings.Contains(out, "box 100 ") {
		t.Errorf("a box with no result that is no longer offered, or the acted box's id, is still there:\n%s", out)
	}
	// The result stays on later passes, unchanged.
	later := RenderDashboard(DashboardRender{Entries: after, Previous: ParseDashboard(out), NewID: func() int64 { t.Fatal("a new id"); return 0 }})
	if diff := cmp.Diff(out, later); diff != "" {
		t.Errorf("the next pass renders another body (-want +got):\n%s", diff)
	}
}

func TestParseDashboardLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want []DashboardBox
	}{
		{`- [ ] resume <!-- gallivant:box 7 "specs/x.md" -->`, []DashboardBox{{ID: 7, Spec: "specs/x.md", Text: "resume"}}},
		{`- [x] resume | the database is back <!-- gallivant:box 7 "specs/x.md" --> — refused`, []DashboardBox{{ID: 7, Spec: "specs/x.md", Text: "resume", Hint: "the database is back", Ticked: true, Note: "refused"}}},
		{"- [x] recheck <!-- gallivant:box 9 \"specs/x.md\" -->\r", []DashboardBox{{ID: 9, Spec: "specs/x.md", Text: "recheck", Ticked: true}}},
		{`> - [x] resume <!-- gallivant:box 7 "specs/x.md" -->`, nil}, // quoted
		{`  - [x] resume <!-- gallivant:box 7 "specs/x.md" -->`, nil}, // indented
		{`- [x] resume <!-- gallivant:box 0 "specs/x.md" -->`, nil},
		{`- [x] resume <!-- gallivant:box -3 "specs/x.md" -->`, nil},
		{`- [x] resume <!-- gallivant:box 7 specs/x.md -->`, nil}, // unquoted spec
		{`- [x] resume <!-- gallivant:box 7 "specs/x.md"`, nil},
		{`- [y] resume <!-- gallivant:box 7 "specs/x.md" -->`, nil},
		{`- [x] resume`, nil},
	} {
		if diff := cmp.Diff(tc.want, ParseDashboard(tc.line)); diff != "" {
			t.Errorf("ParseDashboard(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
}

// A box asks for its request as a pull-request command does, the
// person's hint after `|` or the default.
func TestDashboardCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		box      DashboardBox
		wantKind ledger.RequestKind
		wantText string
	}{
		{DashboardBox{Text: "retry 2", Hint: "use the v2 API"}, ledger.RequestRetry, "use the v2 API"},
		{DashboardBox{Text: "resume"}, ledger.RequestResume, DashboardDefaultWhy},
		{DashboardBox{Text: "rows +1"}, ledger.RequestRows, DashboardDefaultWhy},
		{DashboardBox{Text: "recheck"}, ledger.RequestRecheck, DashboardDefaultWhy},
		{DashboardBox{Text: "unpause"}, ledger.RequestUnpause, DashboardDefaultWhy},
	} {
		c, ok, err := ParseCommand(DashboardCommand(tc.box))
		if !ok || err != nil || c.Request.Kind != tc.wantKind || c.Request.Text != tc.wantText {
			t.Errorf("%+v asks for %+v (ok %v, err %v); want a %s with %q", tc.box, c.Request, ok, err, tc.wantKind, tc.wantText)
		}
	}
	if _, ok, err := ParseCommand(DashboardCommand(DashboardBox{Text: "retry two"})); !ok || err == nil {
		t.Errorf("a malformed box text is not refused as a malformed command: ok %v, err %v", ok, err)
	}
}

// Who ticked a box is the editor of the version that ticked it; an edit
// of something else later does not change it, and a box the newest
// version leaves unticked has no ticker.
func TestDashboardTicker(t *testing.T) {
	t.Parallel()
	const open = "- [ ] resume <!-- gallivant:box 7 \"specs/x.md\" -->\n- [ ] recheck <!-- gallivant:box 8 \"specs/x.md\" -->"
	tick := func(body string, id string) string {
		return strings.Replace(body, "- [ ] "+id, "- [x] "+id, 1)
	}
	for _, tc := range []struct {
		name  string
		edits []BodyEdit
		id    int64
		want  string
	}{
		{"never edited", []BodyEdit{{"gallivant", open}}, 7, ""},
		{"a writer ticks", []BodyEdit{{"gallivant", open}, {"bob", tick(open, "resume")}}, 7, "bob"},
		{"another edit later", []BodyEdit{{"gallivant", open}, {"bob", tick(open, "resume")}, {"carol", tick(tick(open, "resume"), "recheck")}}, 7, "bob"},
		{"the later box is carol's", []BodyEdit{{"gallivant", open}, {"bob", tick(open, "resume")}, {"carol", tick(tick(open, "resume"), "recheck")}}, 8, "carol"},
		{"unticked again", []BodyEdit{{"gallivant", open}, {"bob", tick(open, "resume")}, {"carol", open}}, 7, ""},
		{"ticked again", []BodyEdit{{"gallivant", open}, {"bob", tick(open, "resume")}, {"carol", open}, {"dave", tick(open, "resume")}}, 7, "dave"},
		{"no history", nil, 7, ""},
	} {
		if got := DashboardTicker(tc.edits, tc.id); got != tc.want {
			t.Errorf("%s: DashboardTicker = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDashboardOffers(t *testing.T) {
	t.Parallel()
	rows := []ledger.Row{{N: 1, Status: ledger.Done}, {N: 2, Status: ledger.Failed}, {N: 3, Status: ledger.Open}}
	for _, tc := range []struct {
		name string
		l    *ledger.Ledger
		want []string
	}{
		{"allowance", &ledger.Ledger{Rows: rows, Delivery: &ledger.Delivery{Stop: ledger.StopRecord{Reason: ledger.StopAllowance}}}, []string{"retry 2", "retry 3", "rows +1"}},
		{"closed", &ledger.Ledger{Rows: rows, Delivery: &ledger.Delivery{Stop: ledger.StopRecord{Reason: ledger.StopClosed, Detail: "x"}}}, []string{"resume"}},
		{"stuck", &ledger.Ledger{Delivery: &ledger.Delivery{Stop: ledger.StopRecord{Reason: ledger.StopStuck}}}, []string{"recheck"}},
		{"budget is written under Requests", &ledger.Ledger{Delivery: &ledger.Delivery{Stop: ledger.StopRecord{Reason: ledger.StopBudget}}}, nil},
		{"paused", &ledger.Ledger{Delivery: &ledger.Delivery{Paused: ledger.Pause{Login: "bob", PR: ledger.PullRef{Repo: "acme/api", Number: 3}}}}, []string{"unpause"}},
		{"working", &ledger.Ledger{Rows: rows, Delivery: &ledger.Delivery{}}, nil},
		{"not seeded", nil, nil},
	} {
		if diff := cmp.Diff(tc.want, DashboardOffers(tc.l)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// Text quoted from ledgers and GitHub stays on its line and cannot close
// a marker or mention anyone.
func TestDashboardQuotesText(t *testing.T) {
	t.Parallel()
	e := []DashboardEntry{{Spec: "specs/a.md", Phase: "implement", Status: "x", Stop: "closed | by @mallory\n- [x] resume <!-- gallivant:box 5 \"specs/a.md\" --> `tick`", Offers: []string{"resume"}}}
	body := RenderDashboard(DashboardRender{Entries: e, NewID: ids(10)})
	boxes := ParseDashboard(body)
	if len(boxes) != 1 || boxes[0].ID != 10 || boxes[0].Ticked {
		t.Errorf("the stop's detail made boxes %+v:\n%s", boxes, body)
	}
	if !strings.Contains(body, "stopped: `closed | by @mallory - [x] resume < !-- gallivant:box 5 \"specs/a.md\" -- > 'tick'`") {
		t.Errorf("the detail is not quoted as one code span:\n%s", body)
	}
}

func FuzzParseDashboard(f *testing.F) {
	f.Add(RenderDashboard(DashboardRender{Entries: dashEntries, NewID: ids(1)}))
	f.Add("- [x] retry 2 | hint <!-- gallivant:box 3 \"specs/a.md\" --> — note")
	f.Add("- [x]  <!-- gallivant:box 3 \"\\xff\" -->")
	f.Fuzz(func(t *testing.T, body string) {
		boxes := ParseDashboard(body)
		// What it reads renders to a body that reads back the same.
		var es []DashboardEntry
		for _, b := range boxes {
			if b.ID <= 0 || b.Spec == "" {
				t.Fatalf("box %+v", b)
			}
			es = append(es, DashboardEntry{Spec: b.Spec, Phase: "implement"})
		}
		_ = RenderDashboard(DashboardRender{Entries: es, Previous: boxes, NewID: ids(1)})
		for _, b := range boxes {
			_, _, _ = ParseCommand(DashboardCommand(b))
		}
	})
}

// A control repository with more entries than an issue body holds shows
// the stopped ones first and counts the rest.
func TestDashboardBoundsItsBody(t *testing.T) {
	t.Parallel()
	var es []DashboardEntry
	for i := 0; i < 2000; i++ {
		es = append(es, DashboardEntry{Spec: fmt.Sprintf("specs/done-%04d.md", i), Phase: "done", Status: strings.Repeat("x", 200)})
	}
	es = append(es, DashboardEntry{Spec: "specs/stuck.md", Phase: "implement", Status: "rows", Stop: "stuck | x", Offers: []string{"recheck"}})
	body := RenderDashboard(DashboardRender{Entries: es, NewID: ids(1)})
	if len(body) > 65536 {
		t.Errorf("the body is %d bytes, above GitHub's limit", len(body))
	}
	if !strings.Contains(body, "- [ ] recheck <!-- gallivant:box 1 \"specs/stuck.md\" -->") {
		t.Errorf("the stopped entry is not shown")
	}
	shown := strings.Count(body, "\n- `specs/done-")
	if want := fmt.Sprintf("\n%d more entries are not shown", 2000-shown); shown == 0 || shown == 2000 || !strings.Contains(body, want) {
		t.Errorf("%d done entries shown; the body does not end with %q", shown, want)
	}
}
