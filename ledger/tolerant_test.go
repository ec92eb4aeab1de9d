package ledger

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeEvidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"go test ./calc -run TestAdd; ok  \texample.com/calc\t0.004s", "go test ./calc -run TestAdd; ok example.com/calc 0.004s"},
		{"go test ./calc -run TestAdd; ok example.com/calc 0.004s\n", "go test ./calc -run TestAdd; ok example.com/calc 0.004s"},
		{"`go test ./calc -run TestAdd`; ok", "go test ./calc -run TestAdd; ok"},
		{"`go test ./calc -run TestAdd; ok`", "go test ./calc -run TestAdd; ok"},
		{"```go test ./calc -run TestAdd```; `ok`", "go test ./calc -run TestAdd; ok"},
		{"**`$ go test ./calc -run TestAdd`**; ok", "go test ./calc -run TestAdd; ok"},
		{"go test ./calc -run TestAdd; ok;", "go test ./calc -run TestAdd; ok"},
		{"  go\u00a0test  ./calc -run TestAdd;ok  ", "go test ./calc -run TestAdd;ok"},
		// Backticks inside the text are substance, not a wrapper.
		{"grep -c `x` a.txt; 1", "grep -c `x` a.txt; 1"},
		{"`a` and `b`", "`a` and `b`"},
		// A control character that is not white space stays, for
		// admission to name.
		{"go test ./x -run T; \x1b[31mok", "go test ./x -run T; \x1b[31mok"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizeEvidence(tt.in); got != tt.want {
			t.Errorf("NormalizeEvidence(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if got := NormalizeEvidence(tt.want); got != tt.want {
			t.Errorf("NormalizeEvidence is not idempotent on %q: %q", tt.want, got)
		}
	}
}

// A verbatim `go test` line with tabs, a trailing tab and a decision with a
// doubled space is form, not substance: admitted, and stored as plain text
// that the ledger parses back (docs/ledger.md "The return commit", L-61..L-67).
func TestAdmitVerbatimGoTestLine(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"done/1", "failed/1"}, seeded, "row 2 failed | header missing | add it"), 2)
	r := rowReturn(2, "done", 2, "`go test ./calc -run TestAdd`; ok  \texample.com/calc\t0.004s\t", "row 2 done |  header added | verify next", 1)
	n, _, err := Admit(l, r)
	if err != nil {
		t.Fatalf("Admit refused a verbatim go test line: %v", err)
	}
	row, _ := n.Row(2)
	if diff := cmp.Diff("go test ./calc -run TestAdd; ok example.com/calc 0.004s", row.Evidence); diff != "" {
		t.Errorf("stored evidence (-want +got):\n%s", diff)
	}
	if got := n.Decisions[len(n.Decisions)-1].Line; got != "row 2 done | header added | verify next" {
		t.Errorf("stored decision %q", got)
	}
	back, diags := Parse("ledgers/x.md", Format(n))
	if len(diags) > 0 {
		t.Fatalf("the admitted ledger does not parse: %v", diags)
	}
	if r, _ := back.Row(2); r.Evidence != row.Evidence {
		t.Errorf("evidence after a round trip %q; want %q", r.Evidence, row.Evidence)
	}
}

// A refusal that remains names the line, the character by codepoint and
// name, and shows an accepted example.
func TestRefusalsNameTheCharacter(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"done/1", "failed/1"}, seeded, "row 2 failed | header missing | add it"), 2)
	tests := []struct {
		name string
		ret  Return
		want []string
	}{
		{"escape in the decision", rowReturn(2, "done", 2, "go test ./x -run T; ok", "row 2 done | header\x1b[31m added | next", 1),
			[]string{"body line 6", "character 20 is U+001B (ESC", "for example the row line `| 2 | done | 1 |"}},
		{"bell in evidence", rowReturn(2, "done", 2, "go test ./x -run T; ok\x07", "row 2 done | a | b", 1),
			[]string{"body line 4", "U+0007 (BEL"}},
		{"whole-suite command", rowReturn(2, "done", 2, "go test ./...; ok", "row 2 done | a | b", 1),
			[]string{"whole-suite verification command (## Verify)", "for example go test ./checkout -run 'TestTax$'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Admit(l, tt.ret)
			var miss *Miss
			if !errors.As(err, &miss) {
				t.Fatalf("Admit = %v; want a miss", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(miss.Reason, w) {
					t.Errorf("miss %q does not say %q", miss.Reason, w)
				}
			}
			if msg := EvidenceProblem(cleanEvidence("iteration 0: " + miss.Reason)); msg != "" {
				t.Errorf("the miss cannot be written as evidence: %s", msg)
			}
		})
	}
}

func TestEvidenceProblemNamesTheCharacter(t *testing.T) {
	t.Parallel()
	got := EvidenceProblem("go test ./x; ok\x1b[0m")
	if want := "has a control character (character 16 is U+001B (ESC, the start of a terminal colour or cursor code), a control character); evidence is one line of plain text"; got != want {
		t.Errorf("EvidenceProblem = %q; want %q", got, want)
	}
}

// A one-criterion spec whose natural check is its ## Verify: the command
// is the only selective check there can be, so it is admitted; with more
// rows, or when it selects nothing, it is still refused.
func TestVerifyAsOnlySelectiveCheck(t *testing.T) {
	t.Parallel()
	one := func(verify string, rows []string) *Ledger {
		l := ledgerOf(t, 4, rows, "row 0 done | seeded 1 rows, closed 0 on baseline | row 1")
		l.Verification = verify
		return dispatched(t, l, 1)
	}
	tests := []struct {
		name     string
		l        *Ledger
		evidence string
		want     string // "" admitted, else part of the miss
	}{
		{"one row, selective verify", one("go test ./calc -run TestAdd", []string{"open/0"}), "go test ./calc -run TestAdd; ok", ""},
		{"one row and a cut row", one("go test ./calc", []string{"open/0", "cut/0"}), "go test ./calc; ok", ""},
		{"one row, bare verify", one("go test ./...", []string{"open/0"}), "go test ./...; ok", "whole-suite verification command"},
		{"two rows", one("go test ./calc -run TestAdd", []string{"open/0", "open/0"}), "go test ./calc -run TestAdd; ok", "whole-suite verification command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Brief(BriefInput{Ledger: tt.l, Spec: specOf(t, acList(len(tt.l.Rows), nil)), LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x"})
			if err != nil {
				t.Fatal(err)
			}
			if says := strings.Contains(b, "so it may\nalso be the evidence"); says != (tt.want == "") {
				t.Errorf("the brief says the verification may be the evidence: %v; want %v", says, tt.want == "")
			}
			_, _, err = Admit(tt.l, rowReturn(1, "done", 1, tt.evidence, "row 1 done | adds | ship", 1))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Admit refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Admit = %v; want a miss saying %q", err, tt.want)
			}
		})
	}
}

func TestSeedCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		slot           string
		seeded, closed int
		err            string
	}{
		{"seeded 2 rows, closed 1 on baseline", 2, 1, ""},
		{"Seeded 2 rows; 1 already passes on baseline.", 2, 1, ""},
		{"2 rows seeded with 1 closed on baseline", 2, 1, ""},
		{"baseline established for two rows, none closed", 2, 0, ""},
		{"seeded both rows (row 2 already passes), closed 1", 2, 1, ""},
		{"1 row open and 1 done", 2, 1, ""},
		{"seeded 2 rows, 1 still open", 2, 1, ""},
		{"3 rows, 1 does not pass, 2 pass", 3, 2, ""},
		{"seeded 2 rows", 0, 0, "does not state how many rows were closed"},
		{"all good", 0, 0, "states neither"},
		{"2 of 3 rows pass", 0, 0, "holds 2 numbers"},
		{"seeded 2 rows, seeded 3 rows, closed 1", 0, 0, "two different seeded counts, 2 and 3"},
		{"closed 3 of seeded rows, 2 rows", 0, 0, "closes 3 of only 2 rows"},
		{"2 rows, 7", 0, 0, "gives the number 7 without saying"},
	}
	for _, tt := range tests {
		s, c, err := seedCounts(tt.slot)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("seedCounts(%q) = %v", tt.slot, err)
		case tt.err == "" && (s != tt.seeded || c != tt.closed):
			t.Errorf("seedCounts(%q) = %d, %d; want %d, %d", tt.slot, s, c, tt.seeded, tt.closed)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("seedCounts(%q) = %d, %d, %v; want an error saying %q", tt.slot, s, c, err, tt.err)
		}
	}
}

// A seed decision in natural words is admitted when its counts are
// unambiguous and match the rows, recorded in the canonical grammar;
// otherwise it is refused with the accepted line for these rows (L-64).
func TestAdmitSeedInNaturalWords(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"open/0", "open/0", "cut/0"})
	l, _ = Dispatch(l, Action{Target: SeedTarget, Member: "home"}, shaB, now)
	rows := "| 1 | open | 0 | go test ./x -run TestA;\tFAIL: missing |\n| 2 | done | 0 | `go test ./x -run TestB`; ok |\n"
	n, _, err := Admit(l, seedReturn(rows, "row 0 done | Seeded both rows: 1 is still open, 1 already passes on baseline. | start with row 1"))
	if err != nil {
		t.Fatalf("Admit refused a natural seed decision: %v", err)
	}
	want := "row 0 done | seeded 2 rows, closed 1 on baseline | start with row 1"
	if got := n.Decisions[len(n.Decisions)-1]; got.Line != want || got.Kind != DecisionSeed {
		t.Errorf("recorded decision %q (kind %d); want %q", got.Line, got.Kind, want)
	}
	if r, _ := n.Row(2); r.Evidence != "go test ./x -run TestB; ok" {
		t.Errorf("row 2 evidence %q", r.Evidence)
	}
	for name, tt := range map[string]struct{ decision, want string }{
		"ambiguous":      {"row 0 done | checked everything | row 1", "states neither how many rows were seeded nor how many were closed on baseline; with these rows it reads `row 0 done | seeded 2 rows, closed 1 on baseline | ‹first row to take>`"},
		"wrong count":    {"row 0 done | seeded 2 rows, none pass yet | row 1", "the seed decision says seeded 2, closed 0; the rows say seeded 2, closed 1"},
		"no second slot": {"row 0 done | seeded 2 rows, closed one", "needs a second slot"},
		"not row 0":      {"seed done | 2 rows | row 1", "with these rows it reads `row 0 done | seeded 2 rows, closed 1 on baseline"},
	} {
		_, c, stopped, _ := Settle(l, Observation{Commits: []Return{seedReturn(rows, tt.decision)}})
		if !stopped || c.Subject != "loop: stop seed-refused" {
			t.Errorf("%s: settled as %q; want a seed-refused stop", name, c.Subject)
			continue
		}
		_, _, err := Admit(l, seedReturn(rows, tt.decision))
		if err == nil || !strings.Contains(cleanEvidence(err.Error()), tt.want) {
			t.Errorf("%s: Admit = %v; want it to say %q", name, err, tt.want)
		}
	}
}

// FuzzNormalizeEvidence: normalising never panics, is idempotent, and
// leaves no white space but single spaces; seedCounts never panics.
func FuzzNormalizeEvidence(f *testing.F) {
	for _, s := range []string{"go test ./calc -run TestAdd; ok  \texample.com/calc\t0.004s", "`a`; **b**", "$ `x`;;", "seeded two rows (row 2 passes), closed 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeEvidence(s)
		if again := NormalizeEvidence(n); again != n {
			t.Errorf("NormalizeEvidence(%q) = %q, then %q", s, n, again)
		}
		if strings.ContainsAny(n, "\t\n\r") || strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Errorf("NormalizeEvidence(%q) = %q keeps white space", s, n)
		}
		_, _, _ = seedCounts(s)
	})
}

// The repair brief after a validation miss (L-68) carries the last admitted
// decision and, as its hint, what was refused with the accepted form: the
// model learns what to fix. (L-43 said `none` for both; see docs/ledger.md.)
func TestRepairBriefCarriesTheRefusal(t *testing.T) {
	t.Parallel()
	sp := specOf(t, acList(2, nil))
	l := dispatched(t, ledgerOf(t, 4, []string{"done/1", "failed/1"}, seeded, "row 2 failed | header missing | add it"), 2)
	bad := rowReturn(2, "done", 2, "go test ./...; ok", "row 2 done | header added | next", 1)
	repaired, c, changed, err := Settle(l, Observation{Commits: []Return{bad}})
	if err != nil || !changed || c.Subject != "loop: repair row 2" {
		t.Fatalf("Settle = %q, %v, %v; want a repair", c.Subject, changed, err)
	}
	it, why, ok := repaired.Refusal(2)
	if !ok || it != 0 || !strings.Contains(why, "whole-suite verification command") {
		t.Fatalf("Refusal(2) = %d, %q, %v", it, why, ok)
	}
	next, _ := Dispatch(repaired, Action{Target: 2, Member: "home"}, shaC, now)
	b, err := Brief(BriefInput{Ledger: next, Spec: sp, LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"previous decision: row 2 failed | header missing | add it\n",
		"hint: the return of iteration 0 was refused: evidence command 'go test ./...' is the whole-suite verification command (## Verify); name a check that selects this row's criterion, for example go test ./checkout -run 'TestTax$'; push one return that fixes exactly that\n",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("the repair brief lacks %q:\n%s", want, b)
		}
	}
	// A row with no refusal, and one whose later return was admitted,
	// get no refusal hint.
	if _, _, ok := next.Refusal(1); ok {
		t.Errorf("Refusal(1) found a refusal on a done row")
	}
}
