package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/gallivant/gallivant/specs"
)

// TaskObservation is what a pass saw of a pending task's run: the pass
// reads the task's branch, asks the executor what it knows of the run and
// hands the facts to SettleTask, which decides.
type TaskObservation struct {
	// Commits are the task branch's commits on top of the head the task
	// started from, oldest first; Touched the paths they change.
	Commits []Return
	Touched []string
	// Files are the task's Files entries in its plan: the only paths its
	// return may change.
	Files []specs.PlanFile
	// Running is the pid of the task's agent when it outlived the
	// reconciler that started it and still runs; 0 otherwise.
	Running int
	// Unknown reports that no process or record on this machine knows the
	// run: another reconciler, on another cache, dispatched it.
	Unknown bool
	// AgentErr is why the agent's run failed when this pass watched it
	// end with a failure; Environment reports the failure is about where
	// the agent runs (no login, no quota, no API), not about the task.
	AgentErr    string
	Environment bool
	// Log is where the agent's output was kept, which a failure names.
	Log string
	// Now is when the observation was made; Window is executor.timeout
	// plus executor.grace, how long a run another reconciler dispatched
	// may still push its return.
	Now    time.Time
	Window time.Duration
}

// TaskSettleKind tells SettleTask's decisions apart.
type TaskSettleKind int

// The decisions on a pending task.
const (
	// TaskWait: the run may still answer; nothing is written.
	TaskWait TaskSettleKind = iota + 1
	// TaskWithdraw: the dispatch is taken back (WithdrawTask), the
	// attempt not spent, and the pass starts no more agents.
	TaskWithdraw
	// TaskRecord: the return is settled. Ledger records it failed, or —
	// when the task is done in Ledger — admitted as Admitted, which the
	// pass still applies to the work branch before recording it.
	TaskRecord
)

// TaskSettlement is SettleTask's decision.
type TaskSettlement struct {
	Kind TaskSettleKind
	// Why is what a waiting task waits for.
	Why string
	// Ledger and Commit are the transition to write (TaskWithdraw,
	// TaskRecord).
	Ledger *Ledger
	Commit Commit
	// Admitted is the task's commit AdmitTask admitted, which the pass
	// applies to the work branch; "" when the record is a failure.
	Admitted string
	// Miss is the contract the return broke, when it broke one.
	Miss *Miss
}

// SettleTask decides what an observation of pending task id's run means,
// as Settle does for a row's dispatch (docs/plans.md "Wave execution"):
//
//   - an agent that outlived its reconciler and still runs is waited for;
//   - a run another reconciler dispatched, with no return yet, is waited
//     for while the wave's newest dispatch (dispatched-at) is within the
//     window; past it, it is a miss;
//   - a run that failed for its environment without a commit is withdrawn;
//   - a run that failed otherwise without a commit is a failed attempt
//     saying why;
//   - anything else is AdmitTask's: the one result commit admitted, or a
//     miss recorded failed.
func SettleTask(l *Ledger, id string, obs TaskObservation) (TaskSettlement, error) {
	t, ok := l.Task(id)
	if !ok {
		return TaskSettlement{}, fmt.Errorf("the ledger lists no task %s", quote(id))
	}
	if t.Status != TaskPending {
		return TaskSettlement{}, fmt.Errorf("task %s is %s; only a pending task is settled", id, t.Status)
	}
	if obs.Running > 0 {
		return TaskSettlement{Kind: TaskWait, Why: fmt.Sprintf("waiting for task %s: its agent (pid %d) outlived the reconciler that started it and is still running", id, obs.Running)}, nil
	}
	none := len(obs.Commits) == 0
	if dt := l.dispatchedAt(); obs.Unknown && none && !dt.IsZero() && !obs.Now.After(dt.Add(obs.Window)) {
		return TaskSettlement{Kind: TaskWait, Why: fmt.Sprintf("waiting for task %s: dispatched at %s by a reconciler this machine has no record of; its agent may still run until executor.timeout and executor.grace have passed", id, TimeText(dt))}, nil
	}
	if obs.AgentErr != "" && none {
		if obs.Environment {
			n, c, err := WithdrawTask(l, id, obs.AgentErr)
			return TaskSettlement{Kind: TaskWithdraw, Ledger: n, Commit: c}, err
		}
		n, c, err := RecordTask(l, id, TaskFailed, "", fmt.Sprintf("the agent run failed: %s (log %s)", obs.AgentErr, obs.Log))
		return TaskSettlement{Kind: TaskRecord, Ledger: n, Commit: c}, err
	}
	n, c, err := AdmitTask(l, id, obs.Commits, obs.Touched, obs.Files)
	var miss *Miss
	if err != nil && !errors.As(err, &miss) {
		return TaskSettlement{}, err
	}
	s := TaskSettlement{Kind: TaskRecord, Ledger: n, Commit: c, Miss: miss}
	if nt, _ := n.Task(id); nt.Status == TaskDone {
		s.Admitted = nt.SHA
	}
	return s, nil
}

// dispatchedAt is when the newest dispatch was made, zero when unknown.
func (l *Ledger) dispatchedAt() time.Time {
	if l.Delivery == nil {
		return time.Time{}
	}
	return l.Delivery.DispatchedAt
}
