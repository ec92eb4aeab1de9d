package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/specs"
)

// TaskReturn is a parsed task result commit (docs/plans.md "Wave
// execution"):
//
//	loop: task T002 done
//
//	task: T002 | attempt 1 | 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912
//
//	The window counter is in ratelimit/window.go.
//
// the subject names the task and its status; body line 1 is the
// dispatched task tuple (TaskTuple), then a blank line and one summary
// line of at most MaxSlot characters. A final paragraph of git trailers
// is ignored, as in a row return.
type TaskReturn struct {
	ID      string
	Status  Status
	Tuple   string
	Summary string
}

// TaskTuple is the `task:` line a task's return carries: its id, the
// attempt and the head it was dispatched from, as the brief states them.
func TaskTuple(t Task) string {
	return fmt.Sprintf("%s | attempt %d | %s", t.ID, t.Attempts, t.SHA)
}

var taskTupleRE = regexp.MustCompile(`^task: (.+)$`)

// ParseTaskReturn parses a task result commit's subject and body strictly;
// anything outside the contract is a *Miss that quotes what it read,
// bounded. It never panics.
func ParseTaskReturn(subject, body string) (*TaskReturn, error) {
	if len(subject)+len(body) > MaxReturnBody {
		return nil, missf("the commit message is %d bytes; a return is at most %d", len(subject)+len(body), MaxReturnBody)
	}
	subject = strings.TrimRight(subject, " \t\r\n")
	sub, err := ParseSubject(subject)
	if err != nil || sub.Kind != KindTaskResult || sub.Leg != "" {
		return nil, missf("subject %s is not `loop: task <id> done` or `loop: task <id> failed`", quote(subject))
	}
	tr := &TaskReturn{ID: sub.Task, Status: sub.Status}
	lines := strings.Split(strings.ReplaceAll(strings.TrimRight(body, "\n\r \t"), "\r\n", "\n"), "\n")
	for i, ln := range lines {
		lines[i] = strings.TrimRight(strings.ReplaceAll(ln, "\t", " "), " ")
	}
	lines = dropTrailers(lines)
	for i, ln := range lines {
		if why := controlReason(ln); why != "" {
			return nil, missf("body line %d: %s; a return is plain text", i+1, why)
		}
	}
	m := taskTupleRE.FindStringSubmatch(lines[0])
	if m == nil {
		return nil, missf("body line 1 must be the dispatched `task: <id> | attempt <n> | <head>` line, got %s", quote(lines[0]))
	}
	tr.Tuple = m[1]
	if len(lines) < 3 || lines[1] != "" {
		return nil, missf("a blank line and one summary line must follow the task: line")
	}
	if len(lines) > 3 {
		return nil, missf("exactly one summary line ends the body; found %d lines after the task: line", len(lines)-2)
	}
	tr.Summary = collapseSpace(lines[2])
	if n := utf8.RuneCountInString(tr.Summary); n == 0 || n > MaxSlot {
		return nil, missf("the summary line is %d characters; it needs 1 to %d", n, MaxSlot)
	}
	return tr, nil
}

// maxOutside bounds the paths a miss names.
const maxOutside = 5

// AdmitTask settles a pending task from what its agent pushed: commits,
// the commits on top of the head the task was dispatched from, and
// touched, the paths they change; files are the task's Files entries in
// its plan. The return is admitted when it is exactly one commit, a
// result commit for this task and attempt (ParseTaskReturn), touching
// only the task's files (TaskReturnOutside): it is recorded done with that
// commit, or failed when the agent says so, with its summary. Anything
// else is a miss of the task, recorded failed with the miss as reason and
// returned as a *Miss beside the record. The error is not a *Miss only
// when the task is not pending.
func AdmitTask(l *Ledger, id string, commits []Return, touched []string, files []specs.PlanFile) (*Ledger, Commit, error) {
	t, ok := l.Task(id)
	if !ok {
		return nil, Commit{}, fmt.Errorf("the ledger lists no task %s", quote(id))
	}
	if t.Status != TaskPending {
		return nil, Commit{}, fmt.Errorf("task %s is %s; only a pending task's return is admitted", id, t.Status)
	}
	miss := func(m *Miss) (*Ledger, Commit, error) {
		n, c, err := RecordTask(l, id, TaskFailed, "", "the return broke the contract: "+m.Reason)
		if err != nil {
			return nil, Commit{}, err
		}
		return n, c, m
	}
	if len(commits) != 1 {
		return miss(missf("a task's return is exactly one commit on top of %s, got %d", short(t.SHA), len(commits)))
	}
	r := commits[0]
	tr, err := ParseTaskReturn(r.Subject, r.Body)
	if err != nil {
		m, _ := err.(*Miss)
		if m == nil {
			m = &Miss{Reason: err.Error()}
		}
		return miss(m)
	}
	if tr.ID != id {
		return miss(missf("the return answers task %s but task %s was dispatched", quote(tr.ID), id))
	}
	if want := TaskTuple(*t); tr.Tuple != want {
		return miss(missf("body line 1 must be `task: %s`, got %s", want, quote("task: "+tr.Tuple)))
	}
	if out := TaskReturnOutside(files, touched); len(out) > 0 {
		named := make([]string, 0, maxOutside)
		for _, p := range out[:min(len(out), maxOutside)] {
			named = append(named, quote(p))
		}
		more := ""
		if len(out) > maxOutside {
			more = " and " + strconv.Itoa(len(out)-maxOutside) + " more"
		}
		return miss(missf("the return changes %s%s, outside task %s's files", strings.Join(named, ", "), more, id))
	}
	if tr.Status == Failed {
		return RecordTask(l, id, TaskFailed, "", "the agent reports "+quote(tr.Summary))
	}
	return RecordTask(l, id, TaskDone, r.SHA, "")
}
