package gatekeep

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// A row's files are read off its evidence command; anything else is
// unknown, and its proof is never carried.
func TestFilesOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  string
		want RowFiles
		ok   bool
	}{
		{"go test ./calc -run TestAdd", RowFiles{Trees: []string{"calc"}, Go: true}, true},
		{"go test -count=1 ./calc ./str/... -run X", RowFiles{Trees: []string{"calc", "str"}, Go: true}, true},
		{"go test ./...", RowFiles{Trees: []string{""}, Go: true}, true},
		{"go test .", RowFiles{Trees: []string{""}, Go: true}, true},
		{"test -f rows/row-1.txt", RowFiles{Files: []string{"rows/row-1.txt"}}, true},
		{"test -d docs", RowFiles{Trees: []string{"docs"}}, true},
		{"go test github.com/acme/api/calc", RowFiles{}, false},
		{"go test -v ./calc -count 1 -run TestAdd", RowFiles{Trees: []string{"calc"}, Go: true}, true},
		{"go test -v ./calc github.com/acme/api/str", RowFiles{}, false},
		{"go test -run TestAdd", RowFiles{}, false},
		{"go test ./../other", RowFiles{}, false},
		{"test -f /etc/passwd", RowFiles{}, false},
		{"test -f rows/*.txt", RowFiles{}, false},
		{"test -f a/../b", RowFiles{}, false},
		{"grep -q Add calc/calc.go", RowFiles{}, false},
		{"make test", RowFiles{}, false},
		{"", RowFiles{}, false},
	}
	for _, tt := range tests {
		got, ok := FilesOf(tt.cmd)
		if ok != tt.ok {
			t.Errorf("FilesOf(%q) ok = %v, want %v", tt.cmd, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("FilesOf(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

// A Go row is touched by its own trees, and by any non-test Go file or
// module file anywhere (it may import it); an assertion row by its file.
func TestRowFilesTouches(t *testing.T) {
	t.Parallel()
	goRow, _ := FilesOf("go test ./calc -run TestAdd")
	fileRow, _ := FilesOf("test -f rows/row-1.txt")
	tests := []struct {
		rf      RowFiles
		changed string
		want    bool
	}{
		{goRow, "calc/calc.go", true},
		{goRow, "calc/testdata/x.txt", true},
		{goRow, "calculator/README.md", false},
		{goRow, "str/str.go", true},
		{goRow, "str/str_test.go", false},
		{goRow, "go.mod", true},
		{goRow, "sub/go.sum", true},
		{goRow, "README.md", false},
		{fileRow, "rows/row-1.txt", true},
		{fileRow, "rows", true},
		{fileRow, "rows/row-2.txt", false},
	}
	for _, tt := range tests {
		if got := tt.rf.Touches(tt.changed); got != tt.want {
			t.Errorf("%+v.Touches(%q) = %v, want %v", tt.rf, tt.changed, got, tt.want)
		}
	}
}

// carryLedger has two done rows, each with its own assertion evidence,
// both proved on old.
func carryLedger(t *testing.T, ev1, ev2 string, proofs ...ledger.Proof) *ledger.Ledger {
	t.Helper()
	l := &ledger.Ledger{Rows: []ledger.Row{
		{N: 1, Status: ledger.Done, Evidence: ev1 + "; passes"},
		{N: 2, Status: ledger.Done, Evidence: ev2 + "; passes"},
	}}
	l.SetProofs(proofs)
	return l
}

func proofOn(row int, h, cmd string) ledger.Proof {
	return ledger.Proof{Row: row, Head: h, Tests: "assertion", Duration: 5 * time.Millisecond, Command: cmd}
}

// A row's proof on an earlier head is carried to the new head when the
// diff between them touches none of its files and each changed path is
// another done row's; otherwise its evidence re-runs.
func TestPlanReplay(t *testing.T) {
	t.Parallel()
	const (
		c1 = "test -f rows/row-1.txt"
		c2 = "test -f rows/row-2.txt"
		g1 = "go test ./calc -run TestAdd"
		g2 = "go test ./str -run TestUpper"
		// older is the head a carried proof's run was on.
		older = "3333333333333333333333333333333333333333"
	)
	carried := func(row int, cmd, from string) ledger.Proof {
		p := proofOn(row, head, cmd)
		p.CarriedFrom = from
		return p
	}
	tests := []struct {
		name     string
		ev1, ev2 string
		proofs   []ledger.Proof
		diffs    Diffs
		want     ReplayPlan
	}{
		{"only row 2's file changed: row 1 carries", c1, c2,
			[]ledger.Proof{proofOn(1, old, c1), proofOn(2, old, c2)}, Diffs{old: {"rows/row-2.txt"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: c2, Rows: []int{2}}}, Carried: []ledger.Proof{carried(1, c1, old)}}},
		{"nothing changed: both carry", c1, c2,
			[]ledger.Proof{proofOn(1, old, c1), proofOn(2, old, c2)}, Diffs{old: nil},
			ReplayPlan{Carried: []ledger.Proof{carried(1, c1, old), carried(2, c2, old)}}},
		{"the diff is unknown: both re-run", c1, c2,
			[]ledger.Proof{proofOn(1, old, c1), proofOn(2, old, c2)}, nil,
			ReplayPlan{Checks: []ReplayCheck{{Command: c1, Rows: []int{1}}, {Command: c2, Rows: []int{2}}}}},
		{"a file outside every row changed: both re-run", c1, c2,
			[]ledger.Proof{proofOn(1, old, c1), proofOn(2, old, c2)}, Diffs{old: {"rows/row-2.txt", "helper.sh"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: c1, Rows: []int{1}}, {Command: c2, Rows: []int{2}}}}},
		{"the row's own file changed: it re-runs", c1, c2,
			[]ledger.Proof{proofOn(1, old, c1), proofOn(2, old, c2)}, Diffs{old: {"rows/row-1.txt"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: c1, Rows: []int{1}}}, Carried: []ledger.Proof{carried(2, c2, old)}}},
		{"a failed proof never carries", c1, c2,
			[]ledger.Proof{{Row: 1, Head: old, Exit: 1, Tests: "assertion", Command: c1}, proofOn(2, old, c2)}, Diffs{old: {"rows/row-2.txt"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: c1, Rows: []int{1}}, {Command: c2, Rows: []int{2}}}}},
		{"a proof of another command never carries", c1, c2,
			[]ledger.Proof{proofOn(1, old, "test -f rows/old.txt"), proofOn(2, old, c2)}, Diffs{old: {"rows/row-2.txt"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: c1, Rows: []int{1}}, {Command: c2, Rows: []int{2}}}}},
		{"an evidence command of unknown files never carries", "make check", c2,
			[]ledger.Proof{proofOn(1, old, "make check"), proofOn(2, old, c2)}, Diffs{old: {"rows/row-2.txt"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: "make check", Rows: []int{1}}, {Command: c2, Rows: []int{2}}}}},
		{"a carried proof carries again from the head its run was on", c1, c2,
			[]ledger.Proof{{Row: 1, Head: old, CarriedFrom: older, Tests: "assertion", Duration: 5 * time.Millisecond, Command: c1}, proofOn(2, head, c2)},
			Diffs{older: {"rows/row-2.txt"}, old: {"rows/row-1.txt"}},
			ReplayPlan{Carried: []ledger.Proof{carried(1, c1, older)}}},
		{"go rows: a test file of the other row's package carries", g1, g2,
			[]ledger.Proof{proofOn(1, old, g1), proofOn(2, old, g2)}, Diffs{old: {"str/str_test.go"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: g2, Rows: []int{2}}}, Carried: []ledger.Proof{carried(1, g1, old)}}},
		{"go rows: a source file of the other row's package may be imported: both re-run", g1, g2,
			[]ledger.Proof{proofOn(1, old, g1), proofOn(2, old, g2)}, Diffs{old: {"str/str.go"}},
			ReplayPlan{Checks: []ReplayCheck{{Command: g1, Rows: []int{1}}, {Command: g2, Rows: []int{2}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := carryLedger(t, tt.ev1, tt.ev2, tt.proofs...)
			got := PlanReplay(l, head, tt.diffs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PlanReplay (-want +got):\n%s", diff)
			}
		})
	}
}

// CarryFrom names each earlier head a passed proof of current evidence
// ran on, once.
func TestCarryFrom(t *testing.T) {
	t.Parallel()
	const c1, c2 = "test -f a", "test -f b"
	p2 := proofOn(2, head, c2)
	p2.CarriedFrom = old
	l := carryLedger(t, c1, c2, proofOn(1, old, c1), p2)
	if diff := cmp.Diff([]string{old}, CarryFrom(l, head)); diff != "" {
		t.Errorf("CarryFrom (-want +got):\n%s", diff)
	}
	if got := CarryFrom(carryLedger(t, c1, c2, proofOn(1, head, c1)), head); len(got) != 0 {
		t.Errorf("CarryFrom of proofs on head = %v, want none", got)
	}
}

// The gate accepts a carried proof, and the receipt names the head its
// run was on.
func TestCarriedProofPassesGateAndShows(t *testing.T) {
	t.Parallel()
	sp, l, id := fixture(t)
	_, done := proofFixture(t)
	n := l.Clone()
	ps := proved(done, head, 0, "3 tests")
	ps[0].CarriedFrom = old
	n.SetProofs(ps)
	if p := ProofProblem(n, head); p != nil {
		t.Errorf("ProofProblem with a carried proof = %+v, want none", p)
	}
	body := Compose("x", id, ReceiptFor(n, sp))
	want := "| proof | passed | row 1: `go test ./limiter -run TestLimit` on 1111111 (carried from 2222222), exit 0, 3 tests |"
	if !strings.Contains(body, want) {
		t.Errorf("the receipt lacks %q:\n%s", want, body)
	}
	if _, err := ParseReceipt(body); err != nil {
		t.Errorf("ParseReceipt: %v", err)
	}
}

// FilesOf never panics, and what it reads is clean relative paths.
func FuzzFilesOf(f *testing.F) {
	f.Add("go test -v ./calc -run TestAdd")
	f.Add("test -f rows/row-1.txt")
	f.Add("go test ./...")
	f.Add("test -d ../x")
	f.Fuzz(func(t *testing.T, cmd string) {
		rf, ok := FilesOf(cmd)
		if !ok {
			if diff := cmp.Diff(RowFiles{}, rf); diff != "" {
				t.Fatalf("FilesOf(%q) is not ok but reads %+v", cmd, rf)
			}
			return
		}
		for _, p := range append(append([]string{}, rf.Trees...), rf.Files...) {
			if p == "" {
				continue
			}
			if _, clean := cleanRel(p); !clean || strings.HasPrefix(p, "/") {
				t.Fatalf("FilesOf(%q) reads the unclean path %q", cmd, p)
			}
		}
	})
}
