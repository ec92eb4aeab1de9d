package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// gallivant verify replays the repair of a failed evidence replay: a
// `loop: repair row <n>` with no dispatch outstanding is legal exactly when
// the parent records a failed run of row n's own evidence on the commit's
// head, and the child is ledger.RepairReplay of it.
func TestVerifyReplaysReplayRepair(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	running := mustParse(t, fixture(t, "running.md"))
	failedRun := ledger.Proof{Row: 1, Head: head, Exit: 1, Tests: "assertion", Duration: 3 * time.Millisecond, Command: "test -f rows/row-1.txt"}
	failed, _ := gatekeep.Verified(running, head, false, failedRun.Command, "", []ledger.Proof{failedRun})
	passedRun := failedRun
	passedRun.Exit = 0
	passed, _ := gatekeep.Verified(running, head, true, "", "", []ledger.Proof{passedRun})
	repaired, c, err := ledger.RepairReplay(failed, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	after := ledger.Format(repaired)
	otherHead := ledger.Commit{Subject: c.Subject, Sentence: c.Sentence, Trailers: []ledger.Trailer{{Key: ledger.TrailerHead, Value: strings.Repeat("b", 40)}}}
	for _, tc := range []struct {
		name   string
		before *ledger.Ledger
		msg    string
		after  []byte
		want   []found
	}{
		{"the loop's own repair", failed, c.Message(), after, nil},
		{"a repair of a replay that passed", passed, c.Message(), after, []found{{SectionHeader, lp}}},
		{"a repair on another head than the run's", failed, otherHead.Message(), after, []found{{SectionHeader, lp}}},
		{"a repair that spares the attempt", failed, c.Message(), edit(t, after, "| 1 | failed | 2 |", "| 1 | failed | 1 |"), []found{{SectionRows, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: ledger.Format(tc.before), After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "repair" {
				t.Errorf("kind = %q, want repair", r.Kind)
			}
		})
	}
}
