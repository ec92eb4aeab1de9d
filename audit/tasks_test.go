package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// TestTaskTransitionsReplay: `gallivant verify` replays wave execution's
// task dispatches and records, and refuses forgeries of them.
// taskNow is when the tests' task dispatches are made.
var taskNow = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func TestTaskTransitionsReplay(t *testing.T) {
	t.Parallel()
	head, admitted := strings.Repeat("a", 40), strings.Repeat("b", 40)
	base := mustParse(t, fixture(t, "running.md"))
	base.Tasks = []ledger.Task{
		{ID: "T001", Wave: 1, Status: ledger.TaskOpen},
		{ID: "T002", Wave: 1, Status: ledger.TaskOpen},
		{ID: "T003", Wave: 2, Status: ledger.TaskOpen},
	}
	must := func(l *ledger.Ledger, c ledger.Commit, err error) (*ledger.Ledger, ledger.Commit) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l, c
	}
	one, oneCommit := must(ledger.DispatchTask(base, "T001", head, taskNow))
	two, twoCommit := must(ledger.DispatchTask(one, "T002", head, taskNow))
	done, doneCommit := must(ledger.RecordTask(two, "T001", ledger.TaskDone, admitted, ""))
	missed, missedCommit := must(ledger.RecordTask(two, "T002", ledger.TaskFailed, "", "the return touched go.mod, outside the task's files"))
	early := base.Clone()
	early.Tasks[0].Status, early.Tasks[0].Attempts, early.Tasks[0].SHA = ledger.TaskPending, 1, head
	// A dispatch of wave 2 while wave 1 runs: the child is well formed
	// only if the parent's wave 1 is done, so forge it over a done wave
	// that still has a failed task at its allowance.
	spent := base.Clone()
	spent.Tasks[0].Status, spent.Tasks[0].Attempts, spent.Tasks[0].SHA = ledger.TaskFailed, spent.Allowance, head
	f := ledger.Format

	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		want          []found
		kind          string
	}{
		{name: "dispatch of a due task", msg: oneCommit.Message(), before: f(base), after: f(one), kind: "dispatch task"},
		{name: "a second task of the same wave while the first runs", msg: twoCommit.Message(), before: f(one), after: f(two), kind: "dispatch task"},
		{name: "record of an admitted return", msg: doneCommit.Message(), before: f(two), after: f(done), kind: "record task"},
		{name: "record of a refused return", msg: missedCommit.Message(), before: f(two), after: f(missed), kind: "record task"},
		{name: "dispatch of a task of a later wave", msg: message("loop: dispatch task T003", ledger.Trailer{Key: ledger.TrailerHead, Value: head}),
			before: f(base), after: f(one), want: []found{{SectionTasks, lp}}, kind: "dispatch task"},
		{name: "dispatch of a task at its allowance", msg: message("loop: dispatch task T001", ledger.Trailer{Key: ledger.TrailerHead, Value: head}),
			before: f(spent), after: f(one), want: []found{{SectionTasks, lp}}, kind: "dispatch task"},
		{name: "dispatch from another head than its trailer", msg: message("loop: dispatch task T001", ledger.Trailer{Key: ledger.TrailerHead, Value: admitted}),
			before: f(base), after: f(one), want: []found{{SectionTasks, lp}}, kind: "dispatch task"},
		{name: "dispatch without a head", msg: message("loop: dispatch task T001"),
			before: f(base), after: f(one), want: []found{{SectionTasks, lp}}, kind: "dispatch task"},
		{name: "dispatch that does not count the iteration", msg: oneCommit.Message(), before: f(base),
			after: edit(t, f(one), "iterations: 3\n", "iterations: 2\n"), want: []found{{SectionHeader, lp}}, kind: "dispatch task"},
		{name: "record of a task never dispatched", msg: message("loop: record task T003 done"), before: f(two),
			after: f(two), want: []found{{SectionTasks, lp}}, kind: "record task"},
		{name: "record done under a failed subject", msg: message("loop: record task T001 failed"), before: f(two),
			after: f(done), want: []found{{SectionTasks, lp}}, kind: "record task"},
		{name: "record that also marks another task done", msg: doneCommit.Message(), before: f(two),
			after: edit(t, f(done), "task T002 | wave 1 | pending | 1 | "+head, "task T002 | wave 1 | done | 1 | "+admitted),
			want:  []found{{SectionTasks, lp}}, kind: "record task"},
		{name: "record of a refused return written before task decisions", msg: missedCommit.Message(), before: f(two),
			after: edit(t, f(missed), "\ntask T002 failed | attempt 1 | the return touched go.mod, outside the task's files", ""), kind: "record task"},
		{name: "record of a refused return whose decision names another task", msg: missedCommit.Message(), before: f(two),
			after: edit(t, f(missed), "task T002 failed | attempt 1", "task T001 failed | attempt 1"), want: []found{{SectionDecisions, lp}}, kind: "record task"},
		{name: "record of an admitted return that adds a refusal", msg: doneCommit.Message(), before: f(two),
			after: edit(t, f(done), "## Delivery", "task T001 failed | attempt 1 | forged\n\n## Delivery"), want: []found{{SectionDecisions, lp}}, kind: "record task"},
		{name: "a person starting a task", msg: "Start T001\n", before: f(base), after: f(early),
			want: []found{{SectionTasks, lp}}, kind: KindPerson},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != tc.kind {
				t.Errorf("kind = %q, want %q", r.Kind, tc.kind)
			}
		})
	}
}
