package audit

import (
	"slices"

	"github.com/gallivant/gallivant/ledger"
)

// replayDispatchTask proves `loop: dispatch task <id>`: the task was due
// (ledger.NextWave on the parent's tasks names it, within the ledger's
// allowance and with no bound on parallelism, which is configuration the
// history does not hold), and the
// child is ledger.DispatchTask of the parent from the head the commit's
// trailer names.
func replayDispatchTask(s *step) []outcome {
	id := s.sub.Task
	if _, ok := s.parent.Task(id); !ok {
		return refuse(SectionTasks, "the ledger lists no task %s", id)
	}
	due := ledger.NextWave(s.parent.Tasks, len(s.parent.Tasks), s.parent.Allowance)
	if due.Kind != ledger.WaveDispatch || !slices.Contains(due.Dispatch, id) {
		return refuse(SectionTasks, "task %s is not due: wave %d is current and its tasks to dispatch are %v", id, due.Wave, due.Dispatch)
	}
	want, c, err := ledger.DispatchTask(s.parent, id, s.c.trailer(ledger.TrailerHead))
	if err != nil {
		return refuse(SectionTasks, "%v", err)
	}
	return one(want, c)
}

// replayRecordTask proves `loop: record task <id> <status>`: the parent's
// task was pending, and the child is ledger.RecordTask of the parent with
// the status the subject names and, for done, the admitted commit the
// child's task line names (an input the control repository cannot know).
// A failed record's reason is prose of the commit body, which the checker
// does not compare.
func replayRecordTask(s *step) []outcome {
	id := s.sub.Task
	got, ok := s.child.Task(id)
	if !ok {
		return refuse(SectionTasks, "the ledger no longer lists task %s", id)
	}
	commit := ""
	if s.sub.Status == ledger.Done {
		commit = got.SHA
	}
	want, c, err := ledger.RecordTask(s.parent, id, ledger.TaskStatus(s.sub.Status), commit, "")
	if err != nil {
		return refuse(SectionTasks, "%v", err)
	}
	return one(want, c)
}
