package ledger

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// closeFixture is a waves ledger of three rows whose every task is done,
// and a spec-kit spec and plan: T001 [US1] tests US1.1 and US1.2, T002
// [US2] tests US2.1, T003 cites nothing.
func closeFixture() (*Ledger, *specs.Spec, *specs.Plan) {
	l := &Ledger{
		Spec: "specs/001-rate-limit/spec.md", Base: taskHead, Verification: "none", Allowance: 3,
		Rows: []Row{{N: 1, Status: Open}, {N: 2, Status: Open}, {N: 3, Status: Open}},
		Tasks: []Task{
			{ID: "T001", Wave: 1, Status: TaskDone, Attempts: 1, SHA: taskCommit},
			{ID: "T002", Wave: 2, Status: TaskDone, Attempts: 1, SHA: taskCommit},
			{ID: "T003", Wave: 2, Status: TaskDone, Attempts: 1, SHA: taskCommit},
		},
	}
	s := &specs.Spec{ACs: []specs.AC{{N: 1, ID: "US1.1"}, {N: 2, ID: "US1.2"}, {N: 3, ID: "US2.1"}}}
	cmdTest := func(c string) specs.PlanTest { return specs.PlanTest{Kind: "command", Text: c} }
	plan := &specs.Plan{Format: specs.FormatSpecKit, Waves: []*specs.Wave{
		{N: 1, Tasks: []*specs.Task{{N: 1, ID: "T001", Criteria: []specs.PlanValue{{Text: "US1"}}, Tests: []specs.PlanTest{cmdTest("go test ./limit -run TestLimit")}}}},
		{N: 2, Tasks: []*specs.Task{
			{N: 2, ID: "T002", Criteria: []specs.PlanValue{{Text: "US2.1"}}, Tests: []specs.PlanTest{cmdTest("go test ./burst"), {Kind: "none", Text: "docs"}}},
			{N: 3, ID: "T003", Tests: []specs.PlanTest{cmdTest("go test ./other")}},
		}},
	}}
	return l, s, plan
}

// TestCloseChecks maps each open row to the tasks citing its criterion and
// the command that replays it (docs/plans.md "Wave execution").
func TestCloseChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*Ledger, *specs.Spec, *specs.Plan)
		want []CloseCheck
	}{
		{name: "rows of one story share one replay; a task citing nothing closes nothing",
			want: []CloseCheck{
				{Command: "go test ./limit -run TestLimit", Rows: []int{1, 2}, Tasks: []string{"T001"}},
				{Command: "go test ./burst", Rows: []int{3}, Tasks: []string{"T002"}},
			}},
		{name: "a row's own evidence command is its replay",
			edit: func(l *Ledger, _ *specs.Spec, _ *specs.Plan) {
				l.Rows[2].Evidence = "go test ./burst -run TestBurst; the burst row"
			},
			want: []CloseCheck{
				{Command: "go test ./limit -run TestLimit", Rows: []int{1, 2}, Tasks: []string{"T001"}},
				{Command: "go test ./burst -run TestBurst", Rows: []int{3}, Tasks: []string{"T002"}},
			}},
		{name: "two citing tasks' tests are joined",
			edit: func(_ *Ledger, _ *specs.Spec, p *specs.Plan) {
				p.Waves[1].Tasks[1].Criteria = []specs.PlanValue{{Text: "US2.1"}}
			},
			want: []CloseCheck{
				{Command: "go test ./limit -run TestLimit", Rows: []int{1, 2}, Tasks: []string{"T001"}},
				{Command: "go test ./burst && go test ./other", Rows: []int{3}, Tasks: []string{"T002", "T003"}},
			}},
		{name: "a done row and a replayed row are not replayed",
			edit: func(l *Ledger, _ *specs.Spec, _ *specs.Plan) {
				l.Rows[0].Status = Done
				l.Proofs = []Proof{{Row: 3, Head: taskHead, Exit: 1, Tests: "1 test", Command: "go test ./burst"}}
			},
			want: []CloseCheck{{Command: "go test ./limit -run TestLimit", Rows: []int{2}, Tasks: []string{"T001"}}}},
		{name: "a task not done: the waves are not over",
			edit: func(l *Ledger, _ *specs.Spec, _ *specs.Plan) { l.Tasks[2].Status = TaskPending }},
		{name: "a row dispatched: the row loop has begun",
			edit: func(l *Ledger, _ *specs.Spec, _ *specs.Plan) { l.Rows[1].Attempts = 1 }},
		{name: "no tasks: not a waves ledger",
			edit: func(l *Ledger, _ *specs.Spec, _ *specs.Plan) { l.Tasks = nil }},
		{name: "a command with a semicolon is left to the row loop",
			edit: func(_ *Ledger, _ *specs.Spec, p *specs.Plan) {
				p.Waves[0].Tasks[0].Tests = []specs.PlanTest{{Kind: "command", Text: "make a; make b"}}
			},
			want: []CloseCheck{{Command: "go test ./burst", Rows: []int{3}, Tasks: []string{"T002"}}}},
		{name: "a gallivant task cites by its anchor's lines",
			edit: func(l *Ledger, s *specs.Spec, p *specs.Plan) {
				for i := range s.ACs {
					s.ACs[i].ID = ""
					s.ACs[i].Pos = parse.Pos{Line: 10 + i, Col: 1}
				}
				p.Format = specs.FormatGallivant
				for _, w := range p.Waves {
					for _, tk := range w.Tasks {
						tk.ID, tk.Criteria = "", nil
					}
				}
				p.Waves[0].Tasks[0].Anchors = []specs.Anchor{{Section: "Acceptance criteria", From: 10, To: 10}}
				p.Waves[1].Tasks[0].Anchors = []specs.Anchor{{Section: "Acceptance criteria", From: 11, To: 12}}
				l.Tasks[0].ID, l.Tasks[1].ID, l.Tasks[2].ID = "1", "2", "3"
			},
			want: []CloseCheck{
				{Command: "go test ./limit -run TestLimit", Rows: []int{1}, Tasks: []string{"1"}},
				{Command: "go test ./burst", Rows: []int{2, 3}, Tasks: []string{"2"}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, s, p := closeFixture()
			if tc.edit != nil {
				tc.edit(l, s, p)
			}
			if diff := cmp.Diff(tc.want, CloseChecks(l, s, p)); diff != "" {
				t.Errorf("CloseChecks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCloseByReplay closes the rows whose replay passed with a test
// selected and leaves the others open, every run recorded.
func TestCloseByReplay(t *testing.T) {
	t.Parallel()
	l, _, _ := closeFixture()
	proofs := []Proof{
		{Row: 1, Head: taskHead, Exit: 0, Tests: "2 tests", Command: "go test ./limit"},
		{Row: 2, Head: taskHead, Exit: 0, Tests: "0 tests", Command: "go test ./limit -run TestNone"},
		{Row: 3, Head: taskHead, Exit: 1, Tests: "1 test", Command: "go test ./burst"},
	}
	n, c, err := CloseByReplay(l, taskHead, proofs)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []Row{
		{N: 1, Status: Done, Evidence: "go test ./limit; replayed on " + short(taskHead) + " after the last wave: exit 0, 2 tests"},
		{N: 2, Status: Open},
		{N: 3, Status: Open},
	}
	if diff := cmp.Diff(wantRows, n.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(proofs, n.Proofs); diff != "" {
		t.Errorf("proofs (-want +got):\n%s", diff)
	}
	if EvidenceCommand(n.Rows[0].Evidence) != "go test ./limit" {
		t.Errorf("the closed row's evidence command is %q, want the replayed command", EvidenceCommand(n.Rows[0].Evidence))
	}
	sub, err := ParseSubject(c.Subject)
	if err != nil || sub.Kind != KindCloseRows {
		t.Errorf("subject %q parses as %+v, %v; want kind %q", c.Subject, sub, err, KindCloseRows)
	}
	if c.Subject != "loop: close rows by replay" {
		t.Errorf("subject = %q", c.Subject)
	}
	wantTrailers := []Trailer{{TrailerHead, taskHead}, {TrailerProof, proofs[0].String()}, {TrailerProof, proofs[1].String()}, {TrailerProof, proofs[2].String()}}
	if diff := cmp.Diff(wantTrailers, c.Trailers); diff != "" {
		t.Errorf("trailers (-want +got):\n%s", diff)
	}
	if want := "row 1 closed; rows 2, 3 left to the row loop"; !strings.Contains(c.Sentence, want) {
		t.Errorf("sentence %q does not say %q", c.Sentence, want)
	}
	if l.Rows[0].Status != Open || len(l.Proofs) != 0 {
		t.Error("CloseByReplay changed its input ledger")
	}
	out := Format(n)
	back, diags := Parse("plans/x.ledger.md", out)
	if len(diags) != 0 {
		t.Fatalf("the closed ledger does not parse: %v\n%s", diags, out)
	}
	if diff := cmp.Diff(n.Rows, back.Rows); diff != "" {
		t.Errorf("rows after a round trip (-want +got):\n%s", diff)
	}
}

func TestCloseByReplayRefuses(t *testing.T) {
	t.Parallel()
	ok := Proof{Row: 1, Head: taskHead, Exit: 0, Tests: "1 test", Command: "go test ./limit"}
	tests := []struct {
		name    string
		edit    func(*Ledger)
		head    string
		proofs  []Proof
		errWord string
	}{
		{name: "no runs", head: taskHead, errWord: "at least one run"},
		{name: "short head", head: "abc", proofs: []Proof{ok}, errWord: "40-hex"},
		{name: "a run on another head", head: taskCommit, proofs: []Proof{ok}, errWord: "not on the head"},
		{name: "a row twice", head: taskHead, proofs: []Proof{ok, ok}, errWord: "twice"},
		{name: "no such row", head: taskHead, proofs: []Proof{{Row: 9, Head: taskHead, Command: "x"}}, errWord: "no row 9"},
		{name: "a dispatched row", head: taskHead, proofs: []Proof{ok}, edit: func(l *Ledger) { l.Rows[0].Attempts = 1 }, errWord: "never dispatched"},
		{name: "a done row", head: taskHead, proofs: []Proof{ok}, edit: func(l *Ledger) { l.Rows[0].Status = Done }, errWord: "only an open row"},
		{name: "a semicolon", head: taskHead, proofs: []Proof{{Row: 1, Head: taskHead, Tests: "1 test", Command: "a; b"}}, errWord: "without `;`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, _, _ := closeFixture()
			if tc.edit != nil {
				tc.edit(l)
			}
			if _, _, err := CloseByReplay(l, tc.head, tc.proofs); err == nil || !strings.Contains(err.Error(), tc.errWord) {
				t.Errorf("CloseByReplay = %v; want an error saying %q", err, tc.errWord)
			}
		})
	}
}

// A seed dispatched after rows were closed by replay carries them as they
// are: its return template shows them done with their evidence, and only
// the open rows are left for the agent to fill.
func TestSeedTemplateCarriesClosedRows(t *testing.T) {
	t.Parallel()
	l, _, _ := closeFixture()
	l.Rows[0].Status, l.Rows[0].Evidence = Done, "sh one.sh; replayed on 3f9c2e7 after the last wave: exit 0, 1 test"
	got := returnTemplate(l, Pending{Target: SeedTarget, Member: "home", SHA: taskHead}, 0)
	for _, want := range []string{
		"| 1 | done | 0 | sh one.sh; replayed on 3f9c2e7 after the last wave: exit 0, 1 test |\n",
		"| 2 | <open or done> | 0 |",
		"seeded 3 rows",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the seed template does not hold %q:\n%s", want, got)
		}
	}
}
