package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// gallivant verify replays the evidence records of a loop: verify commit:
// the ## Proof section must be exactly what its Gallivant-Proof trailers
// say, and each trailer a run of a done row's own command on the head.
func TestVerifyReplaysProof(t *testing.T) {
	running := fixture(t, "running.md")
	head := strings.Repeat("a", 40)
	proof := ledger.Proof{Row: 1, Head: head, Exit: 0, Tests: "assertion", Duration: 3 * time.Millisecond, Command: "test -f rows/row-1.txt"}
	n, c := gatekeep.Verified(mustParse(t, running), head, true, "", "", []ledger.Proof{proof})
	after := ledger.Format(n)
	forged := proof
	forged.Command = "go test ./x -run TestY"
	other, otherCommit := gatekeep.Verified(mustParse(t, running), head, true, "", "", []ledger.Proof{forged})
	for _, tc := range []struct {
		name  string
		msg   string
		after []byte
		want  []found
	}{
		{"the loop's own record", c.Message(), after, nil},
		{"a proof edited after the run", c.Message(), edit(t, after, "| assertion |", "| 3 tests |"), []found{{SectionProof, lp}}},
		{"a proof without its trailer", ledger.Commit{Subject: c.Subject, Sentence: c.Sentence, Trailers: c.Trailers[:1]}.Message(), after, []found{{SectionProof, lp}}},
		{"a proof of another command than the row's", otherCommit.Message(), ledger.Format(other), []found{{SectionTrailers, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: running, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "verify" {
				t.Errorf("kind = %q, want verify", r.Kind)
			}
		})
	}
}

// A carried proof replays only when the parent holds the passed run it
// carries: the same command, result and duration, on the head it names.
func TestVerifyReplaysCarriedProof(t *testing.T) {
	running := mustParse(t, fixture(t, "running.md"))
	earlier, head := strings.Repeat("b", 40), strings.Repeat("a", 40)
	ran := ledger.Proof{Row: 1, Head: earlier, Exit: 0, Tests: "assertion", Duration: 3 * time.Millisecond, Command: "test -f rows/row-1.txt"}
	before, _ := gatekeep.Verified(running, earlier, true, "", "", []ledger.Proof{ran})
	carried := ran
	carried.Head, carried.CarriedFrom = head, earlier
	longer := carried
	longer.Duration = time.Second
	elsewhere := carried
	elsewhere.CarriedFrom = strings.Repeat("c", 40)
	for _, tc := range []struct {
		name   string
		parent *ledger.Ledger
		proof  ledger.Proof
		want   []found
	}{
		{"carried from the parent's run", before, carried, nil},
		{"carried with no run in the parent", running, carried, []found{{SectionTrailers, lp}}},
		{"carried with another duration than the run", before, longer, []found{{SectionTrailers, lp}}},
		{"carried from another head than the run's", before, elsewhere, []found{{SectionTrailers, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, c := gatekeep.Verified(tc.parent, head, true, "", "", []ledger.Proof{tc.proof})
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: c.Message(), Path: lp, Before: ledger.Format(tc.parent), After: ledger.Format(n)})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
		})
	}
}
