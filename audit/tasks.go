package audit

import (
	"slices"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// seededTasks holds a seed's `## Tasks` section to what a seed writes:
// every task open (the grammar already holds an open task to 0 attempts
// and no commit, and waves to 1, 2, … without a gap), and tasks only for a
// spec delivered by waves. Which tasks the plan has is an input the seed
// reads from the plan; `gallivant check` holds the section to the plan
// (ledger.ValidateTasks). Nil when the section is as a seed writes it.
func seededTasks(s *step) []outcome {
	ch := s.child
	if ch.Tasks == nil {
		return nil
	}
	if sp := s.c.Spec; sp != nil && sp.Engine != specs.EngineWaves {
		return refuse(SectionTasks, "the seed lists tasks but %s is delivered by its rows (engine %s); only a waves spec's seed lists its plan's tasks", sp.Path, sp.Engine)
	}
	for _, t := range ch.Tasks {
		if t.Status != ledger.TaskOpen {
			return refuse(SectionTasks, "seeded task %s is %s; a seed writes every task open", t.ID, t.Status)
		}
	}
	return nil
}

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
	want, c, err := ledger.DispatchTask(s.parent, id, s.c.trailer(ledger.TrailerHead), s.child.Delivery.DispatchedAt)
	if err != nil {
		return refuse(SectionTasks, "%v", err)
	}
	return one(want, c)
}

// replayRecordTask proves `loop: record task <id> <status>`: the parent's
// task was pending, and the child is ledger.RecordTask of the parent with
// the status the subject names and, for done, the admitted commit the
// child's task line names (an input the control repository cannot know).
// A failed record's reason is an input too: the child's appended
// `task <id> failed | attempt <k> | <why>` decision carries it, and the
// replay records the same why. A failed record written before task
// decisions existed appends none; it is proven without one.
func replayRecordTask(s *step) []outcome {
	id := s.sub.Task
	got, ok := s.child.Task(id)
	if !ok {
		return refuse(SectionTasks, "the ledger no longer lists task %s", id)
	}
	commit, reason := "", ""
	if s.sub.Status == ledger.Done {
		commit = got.SHA
	}
	appended := len(s.child.Decisions) > len(s.parent.Decisions)
	if s.sub.Status == ledger.Failed && appended {
		reason = s.child.Decisions[len(s.child.Decisions)-1].Slot2
	}
	want, c, err := ledger.RecordTask(s.parent, id, ledger.TaskStatus(s.sub.Status), commit, reason)
	if err != nil {
		return refuse(SectionTasks, "%v", err)
	}
	if s.sub.Status == ledger.Failed && !appended {
		want.Decisions = want.Decisions[:len(s.parent.Decisions)]
	}
	return one(want, c)
}
