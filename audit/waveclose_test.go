package audit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// TestCloseRowsReplay: `gallivant verify` replays `loop: close rows by
// replay` after the last wave and refuses forgeries of it.
func TestCloseRowsReplay(t *testing.T) {
	t.Parallel()
	head, admitted := strings.Repeat("a", 40), strings.Repeat("b", 40)
	base := mustParse(t, fixture(t, "running.md"))
	base.Tasks = []ledger.Task{{ID: "T001", Wave: 1, Status: ledger.TaskDone, Attempts: 1, SHA: admitted}}
	passed := ledger.Proof{Row: 2, Head: head, Exit: 0, Tests: "2 tests", Command: "go test ./rows -run TestRow2"}
	closed, closedCommit, err := ledger.CloseByReplay(base, head, []ledger.Proof{passed})
	if err != nil {
		t.Fatal(err)
	}
	failedRun := passed
	failedRun.Exit = 1
	left, leftCommit, err := ledger.CloseByReplay(base, head, []ledger.Proof{failedRun})
	if err != nil {
		t.Fatal(err)
	}
	running := base.Clone()
	running.Tasks[0].Status, running.Tasks[0].SHA = ledger.TaskPending, head
	f := ledger.Format
	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		want          []found
	}{
		{name: "a row closed by its passing replay", msg: closedCommit.Message(), before: f(base), after: f(closed)},
		{name: "a failed replay recorded, its row left open", msg: leftCommit.Message(), before: f(base), after: f(left)},
		{name: "a failed replay forged into a close", msg: leftCommit.Message(), before: f(base), after: f(closed), want: []found{{SectionRows, lp}, {SectionProof, lp}}},
		{name: "a close without its run", msg: message("loop: close rows by replay", ledger.Trailer{Key: ledger.TrailerHead, Value: head}),
			before: f(base), after: f(closed), want: []found{{SectionRows, lp}}},
		{name: "a close while a task runs", msg: closedCommit.Message(), before: f(running), after: f(closed), want: []found{{SectionTasks, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "close rows by replay" {
				t.Errorf("kind = %q, want close rows by replay", r.Kind)
			}
		})
	}
}
