package ledger

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// RuleTasks is the diagnostic rule of a malformed `## Tasks` section.
const RuleTasks = "ledger/tasks"

// TaskStatus is the closed vocabulary of a plan task's status in the
// ledger's `## Tasks` section (docs/plans.md "Wave execution").
type TaskStatus string

// Task statuses.
const (
	// TaskOpen is a task not yet dispatched; its SHA is "-".
	TaskOpen TaskStatus = "open"
	// TaskPending is a task dispatched and not yet recorded; its SHA is
	// the work branch head it was dispatched from. It is written ahead
	// of the agent run, so a task is never run twice for one attempt.
	TaskPending TaskStatus = "pending"
	// TaskDone is a task whose return was admitted; its SHA is the
	// admitted commit.
	TaskDone TaskStatus = "done"
	// TaskFailed is a task whose last return was refused or failed; its
	// SHA is the head that attempt started from.
	TaskFailed TaskStatus = "failed"
)

// Known reports whether s is in the vocabulary.
func (s TaskStatus) Known() bool {
	switch s {
	case TaskOpen, TaskPending, TaskDone, TaskFailed:
		return true
	}
	return false
}

// Task is one line of the `## Tasks` section:
//
//	task T002 | wave 2 | pending | 1 | 0123…(40 hex)
//
// the task's plan id, its wave, its status, the attempts dispatched and a
// commit (see TaskStatus), or `-` for an open task.
type Task struct {
	ID       string
	Wave     int
	Status   TaskStatus
	Attempts int
	SHA      string
}

// String renders the task's `## Tasks` line.
func (t Task) String() string {
	sha := t.SHA
	if sha == "" {
		sha = "-"
	}
	return fmt.Sprintf("task %s | wave %d | %s | %d | %s", t.ID, t.Wave, t.Status, t.Attempts, sha)
}

// MaxTaskID bounds a task id: plan ids are short (`3`, `T012`, `2.1`).
const MaxTaskID = 16

var taskIDRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9.]{0,14}[A-Za-z0-9])?$`)

// ValidTaskID reports whether id is a task id as the ledger and the
// `loop:` subjects spell it: letters, digits and inner dots, at most
// MaxTaskID characters (a gallivant plan's `3`, spec-kit's `T012`,
// Kiro's `2.1`).
func ValidTaskID(id string) bool { return taskIDRE.MatchString(id) }

var (
	taskSHARE  = regexp.MustCompile(`^[0-9a-f]{40}$`)
	taskWaveRE = regexp.MustCompile(`^wave ([1-9][0-9]{0,3})$`)
)

// taskExample is an accepted line, for diagnostics.
const taskExample = "`task T002 | wave 1 | pending | 1 | 0f3c…(the 40-hex head)` or `task 3 | wave 2 | open | 0 | -`"

// ParseTask parses one `## Tasks` line. The error names the 1-based column
// (in characters) of the field that is wrong, what was expected and an
// accepted example; it never panics.
func ParseTask(line string) (Task, int, error) {
	fields := strings.SplitN(line, " | ", 5)
	cols := make([]int, len(fields))
	c := 1
	for i, f := range fields {
		cols[i] = c
		c += len([]rune(f)) + 3
	}
	if len(fields) != 5 {
		return Task{}, 1, fmt.Errorf("a task line has 5 fields separated by ` | ` (task, wave, status, attempts, commit), got %d; for example %s", len(fields), taskExample)
	}
	var t Task
	id, ok := strings.CutPrefix(fields[0], "task ")
	if !ok || !ValidTaskID(id) {
		return Task{}, cols[0], fmt.Errorf("%s is not `task <id>` with an id of letters, digits and inner dots (at most %d); for example %s", quote(fields[0]), MaxTaskID, taskExample)
	}
	t.ID = id
	m := taskWaveRE.FindStringSubmatch(fields[1])
	if m == nil {
		return Task{}, cols[1], fmt.Errorf("%s is not `wave <n>` with n from 1; for example %s", quote(fields[1]), taskExample)
	}
	t.Wave, _ = strconv.Atoi(m[1])
	t.Status = TaskStatus(fields[2])
	if !t.Status.Known() {
		return Task{}, cols[2], fmt.Errorf("%s is not a task status (open, pending, done, failed); for example %s", quote(fields[2]), taskExample)
	}
	if !isWholeNumber(fields[3]) || len(fields[3]) > 4 {
		return Task{}, cols[3], fmt.Errorf("%s is not a count of attempts (a whole number); for example %s", quote(fields[3]), taskExample)
	}
	t.Attempts, _ = strconv.Atoi(fields[3])
	t.SHA = fields[4]
	switch {
	case t.Status == TaskOpen && (t.Attempts != 0 || t.SHA != "-"):
		return Task{}, cols[3], fmt.Errorf("an open task has 0 attempts and no commit (`-`), got %s and %s; a task that ran is pending, done or failed; for example %s", quote(fields[3]), quote(fields[4]), taskExample)
	case t.Status != TaskOpen && t.Attempts == 0:
		return Task{}, cols[3], fmt.Errorf("a %s task has been dispatched at least once, got 0 attempts; for example %s", t.Status, taskExample)
	case t.Status != TaskOpen && !taskSHARE.MatchString(t.SHA):
		return Task{}, cols[4], fmt.Errorf("%s is not a 40-hex commit; a %s task names one; for example %s", quote(fields[4]), t.Status, taskExample)
	}
	if t.SHA == "-" {
		t.SHA = ""
	}
	return t, 0, nil
}

// tasks reads the `## Tasks` section: one line a task, in plan order,
// waves from 1 without a gap, and no task of a later wave started while
// a task of an earlier one is not done.
func (p *parser) tasks() {
	p.l.Tasks = []Task{}
	seen := map[string]bool{}
	open := "" // the first task not done, which later waves wait for
	openWave := 0
	for _, ln := range p.sectionLines() {
		if strings.TrimSpace(ln.Text) == "" {
			continue
		}
		t, col, err := ParseTask(ln.Text)
		if err != nil {
			p.errorf(parse.Pos{Line: ln.Pos.Line, Col: col}, RuleTasks, "%v", err)
			continue
		}
		last := 0
		if n := len(p.l.Tasks); n > 0 {
			last = p.l.Tasks[n-1].Wave
		}
		switch {
		case seen[t.ID]:
			p.errorf(ln.Pos, RuleTasks, "task %s is listed twice; the section has one line a task", t.ID)
			continue
		case last == 0 && t.Wave != 1:
			p.errorf(parse.Pos{Line: ln.Pos.Line, Col: len([]rune(t.ID)) + 9}, RuleTasks, "the first task, %s, is in wave %d; waves are numbered from 1", t.ID, t.Wave)
			continue
		case t.Wave < last || t.Wave > last+1:
			p.errorf(parse.Pos{Line: ln.Pos.Line, Col: len([]rune(t.ID)) + 9}, RuleTasks, "task %s is in wave %d after a task of wave %d; tasks are listed in wave order, waves numbered from 1 without a gap", t.ID, t.Wave, last)
			continue
		case open != "" && t.Wave > openWave && t.Status != TaskOpen:
			p.errorf(ln.Pos, RuleTasks, "task %s of wave %d is %s while task %s of wave %d is not done; a wave starts when every task of the wave before it is done", t.ID, t.Wave, t.Status, open, openWave)
			continue
		}
		seen[t.ID] = true
		if t.Status != TaskDone && open == "" {
			open, openWave = t.ID, t.Wave
		}
		p.l.Tasks = append(p.l.Tasks, t)
		p.l.at.tasks = append(p.l.at.tasks, ln.Pos.Line)
	}
}

// TasksOf returns a plan's tasks as the `## Tasks` section seeds them: in
// plan order, each open in its wave. A task's id is its own id (spec-kit
// `T012`, Kiro `2.1`), else its number in a gallivant plan.
func TasksOf(p *specs.Plan) []Task {
	out := []Task{}
	for i, w := range p.Waves {
		for _, t := range w.Tasks {
			out = append(out, Task{ID: PlanTaskID(t), Wave: i + 1, Status: TaskOpen})
		}
	}
	return out
}

// PlanTaskID is the ledger id of a plan task: its own id, else its number.
func PlanTaskID(t *specs.Task) string {
	if t.ID != "" {
		return t.ID
	}
	return strconv.Itoa(t.N)
}

// Task returns task id and whether the ledger lists it.
func (l *Ledger) Task(id string) (*Task, bool) {
	for i := range l.Tasks {
		if l.Tasks[i].ID == id {
			return &l.Tasks[i], true
		}
	}
	return nil, false
}

// WaveActionKind is what NextWave decides for a ledger's tasks.
type WaveActionKind int

// Wave actions.
const (
	// WaveNone: the ledger has no tasks, or every task is done; the rows
	// are delivered as for any entry.
	WaveNone WaveActionKind = iota
	// WaveSettle: tasks of the current wave are pending and no more may
	// start; observe them.
	WaveSettle
	// WaveDispatch: dispatch the tasks named in Dispatch (and settle the
	// Pending ones as their returns arrive).
	WaveDispatch
	// WaveStop: a failed task has used its allowance.
	WaveStop
)

func (k WaveActionKind) String() string {
	return [...]string{"none", "settle", "dispatch", "stop"}[k]
}

// WaveAction is the outcome of NextWave.
type WaveAction struct {
	Kind WaveActionKind
	// Wave is the current wave: the first with a task not done; 0 when
	// every task is done.
	Wave int
	// Dispatch are the tasks to dispatch now, in plan order.
	Dispatch []string
	// Pending are the current wave's dispatched, unrecorded tasks.
	Pending []string
	// Detail says why a WaveStop stops.
	Detail string
}

// NextWave is the "what next" of wave execution, beside Next for rows: the
// current wave is the first holding a task not done; its pending tasks are
// settled; a failed task at or over allowance attempts (an allowance of 0
// sets no bound) starts nothing more and, once no task of the wave is
// pending, stops the entry; otherwise its open and failed tasks are
// dispatched in plan order, at most maxParallel running at once (a
// maxParallel below 1 reads as 1).
// Wave N+1 starts only when every task of wave N is done.
func NextWave(tasks []Task, maxParallel, allowance int) WaveAction {
	if maxParallel < 1 {
		maxParallel = 1
	}
	wave := 0
	for _, t := range tasks {
		if t.Status != TaskDone {
			wave = t.Wave
			break
		}
	}
	if wave == 0 {
		return WaveAction{Kind: WaveNone}
	}
	a := WaveAction{Wave: wave}
	var runnable []string
	spent := ""
	for _, t := range tasks {
		if t.Wave != wave {
			continue
		}
		switch t.Status {
		case TaskPending:
			a.Pending = append(a.Pending, t.ID)
		case TaskFailed:
			if allowance > 0 && t.Attempts >= allowance && spent == "" {
				spent = fmt.Sprintf("task %s used %d of %d attempts", t.ID, t.Attempts, allowance)
			}
			runnable = append(runnable, t.ID)
		case TaskOpen:
			runnable = append(runnable, t.ID)
		}
	}
	if spent != "" {
		// The wave cannot finish: start nothing more, settle what runs,
		// then stop.
		if len(a.Pending) > 0 {
			a.Kind = WaveSettle
			return a
		}
		return WaveAction{Kind: WaveStop, Wave: wave, Detail: spent}
	}
	if free := maxParallel - len(a.Pending); free > 0 && len(runnable) > 0 {
		a.Kind = WaveDispatch
		a.Dispatch = runnable[:min(free, len(runnable))]
		return a
	}
	a.Kind = WaveSettle
	return a
}

// DispatchTask writes a task's dispatch ahead of its agent run: the task
// becomes pending from head with one more attempt, and the entry's
// iteration count grows by one.
func DispatchTask(l *Ledger, id, head string, now time.Time) (*Ledger, Commit, error) {
	n := l.Clone()
	t, ok := n.Task(id)
	if !ok {
		return nil, Commit{}, fmt.Errorf("the ledger lists no task %s", quote(id))
	}
	if t.Status == TaskPending || t.Status == TaskDone {
		return nil, Commit{}, fmt.Errorf("task %s is %s; only an open or failed task is dispatched", id, t.Status)
	}
	if !taskSHARE.MatchString(head) {
		return nil, Commit{}, fmt.Errorf("task %s is dispatched from %s, not a 40-hex head", id, quote(head))
	}
	n.Iterations++
	// dispatched-at dates the newest task dispatch: while it is within
	// the executor's timeout and grace, a pending task this machine knows
	// nothing of may be another reconciler's, still running.
	n.delivery().DispatchedAt = Stamp(now)
	n.delivery().Unavailable = "" // a withdrawn dispatch is replaced
	t.Status, t.SHA = TaskPending, head
	t.Attempts++
	sentence := fmt.Sprintf("Dispatched task %s of wave %d as attempt %d (iteration %d) from %s.", id, t.Wave, t.Attempts, n.Iterations, short(head))
	return n, Commit{Subject: Subject{Kind: KindDispatchTask, Task: id}.String(), Sentence: sentence, Trailers: []Trailer{{TrailerHead, head}}}, nil
}

// RecordTask records a pending task's return: done with the admitted
// commit, or failed (the commit is then the head the attempt started
// from, and reason says why the return was refused). A failure appends
// `task <id> failed | attempt <k> | <reason>` to `## Decisions`, the reason
// made to fit a slot (TaskRefusal reads it back).
func RecordTask(l *Ledger, id string, status TaskStatus, commit, reason string) (*Ledger, Commit, error) {
	n := l.Clone()
	t, ok := n.Task(id)
	if !ok {
		return nil, Commit{}, fmt.Errorf("the ledger lists no task %s", quote(id))
	}
	if t.Status != TaskPending {
		return nil, Commit{}, fmt.Errorf("task %s is %s; only a pending task is recorded", id, t.Status)
	}
	var sentence string
	switch status {
	case TaskDone:
		if !taskSHARE.MatchString(commit) {
			return nil, Commit{}, fmt.Errorf("the admitted commit of task %s is %s, not a 40-hex commit", id, quote(commit))
		}
		t.SHA = commit
		sentence = fmt.Sprintf("Recorded task %s of wave %d done as %s.", id, t.Wave, short(commit))
	case TaskFailed:
		sentence = fmt.Sprintf("Recorded task %s of wave %d failed on attempt %d: %s.", id, t.Wave, t.Attempts, strings.TrimSuffix(oneLine(reason), "."))
		// The task line holds no reason: a decision keeps it for the next
		// attempt's brief and for `why`.
		n.Decisions = append(n.Decisions, newTaskDecision(id, t.Attempts, reason))
	default:
		return nil, Commit{}, fmt.Errorf("a task is recorded done or failed, not %s", quote(string(status)))
	}
	t.Status = status
	n.tasksSettled()
	sub := Subject{Kind: KindRecordTask, Task: id, Status: Status(status)}
	return n, Commit{Subject: sub.String(), Sentence: sentence}, nil
}

// tasksSettled clears dispatched-at once no task is pending: the clock of
// a wave's dispatches ends with the last of them settled, and the row
// loop's first dispatch starts its own.
func (l *Ledger) tasksSettled() {
	for _, t := range l.Tasks {
		if t.Status == TaskPending {
			return
		}
	}
	if l.Pending == nil && l.Delivery != nil {
		l.Delivery.DispatchedAt = time.Time{}
	}
}

// waveStopped reports whether the entry's current wave cannot finish: a
// task of it has used the shared allowance (NextWave's WaveStop), which is
// what an allowance stop of a waves entry is about.
func (l *Ledger) waveStopped() (WaveAction, bool) {
	if l == nil {
		return WaveAction{}, false
	}
	a := NextWave(l.Tasks, len(l.Tasks), l.Allowance)
	return a, a.Kind == WaveStop
}

// WithdrawTask takes back pending task id's dispatch when its agent could
// not run for a reason about its environment, not about the task (why, the
// typed failure's message), as Withdraw does for a row: the attempt is not
// spent — the task is open again when it had no attempt before, failed
// (from the head of the withdrawn dispatch) when it had — the iteration
// stays counted, and the reason is kept under `unavailable:` until the
// next dispatch. The next pass dispatches the task again.
func WithdrawTask(l *Ledger, id, why string) (*Ledger, Commit, error) {
	n := l.Clone()
	t, ok := n.Task(id)
	if !ok {
		return nil, Commit{}, fmt.Errorf("the ledger lists no task %s", quote(id))
	}
	if t.Status != TaskPending {
		return nil, Commit{}, fmt.Errorf("task %s is %s; only a pending task is withdrawn", id, t.Status)
	}
	t.Attempts--
	if t.Attempts == 0 {
		t.Status, t.SHA = TaskOpen, ""
	} else {
		t.Status = TaskFailed
	}
	why = unavailable(why)
	n.delivery().Unavailable = fmt.Sprintf("iteration %d: %s", l.Iterations, why)
	n.tasksSettled()
	return n, Commit{
		Subject: Subject{Kind: KindWithdrawTask, Task: id}.String(),
		Sentence: fmt.Sprintf("Withdrew the dispatch of task %s of wave %d (iteration %d): %s; it is dispatched again in a later pass without a new attempt.",
			id, t.Wave, l.Iterations, why),
	}, nil
}

// TaskReturnOutside returns the paths of a task's return that lie outside
// the task's files, in the order given: a return may write the exact paths
// of its Create:, Modify: and Delete: entries, paths a Modify: glob
// matches, and paths at or under its Test: paths. A non-empty result is a
// miss of that task: its return is refused.
func TaskReturnOutside(files []specs.PlanFile, touched []string) []string {
	var out []string
	for _, p := range touched {
		if !taskOwns(files, p) {
			out = append(out, p)
		}
	}
	return out
}

func taskOwns(files []specs.PlanFile, p string) bool {
	for _, f := range files {
		fp := strings.TrimPrefix(f.Path, "./")
		switch f.Kind {
		case "Test":
			dir := strings.TrimSuffix(fp, "/")
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return true
			}
		case "Modify":
			if ok, err := path.Match(fp, p); ok && err == nil {
				return true
			}
			if p == fp {
				return true
			}
		default:
			if p == fp {
				return true
			}
		}
	}
	return false
}

// WaveLines renders a ledger's tasks for `gallivant status` and `why`,
// one line a wave: its number of the plan's, whether it is done, running
// (the current wave) or waiting, and each task with its glyph (✓ done,
// ✗ failed, ○ open, → pending) and, once dispatched, its attempts:
//
//	wave 2 of 3, running: ✓ T002 (1), → T003 (2), ○ T004
//
// It returns nil for a ledger without tasks.
func WaveLines(tasks []Task) []string {
	if len(tasks) == 0 {
		return nil
	}
	current := NextWave(tasks, 1, 0).Wave
	last := tasks[len(tasks)-1].Wave
	var out []string
	for i := 0; i < len(tasks); {
		w := tasks[i].Wave
		state := "done"
		switch {
		case w == current:
			state = "running"
		case current != 0 && w > current:
			state = "waiting"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "wave %d of %d, %s:", w, last, state)
		for sep := " "; i < len(tasks) && tasks[i].Wave == w; i, sep = i+1, ", " {
			t := tasks[i]
			b.WriteString(sep + taskGlyph[t.Status] + " " + t.ID)
			if t.Attempts > 0 {
				fmt.Fprintf(&b, " (%d)", t.Attempts)
			}
		}
		out = append(out, b.String())
	}
	return out
}

var taskGlyph = map[TaskStatus]string{TaskDone: "✓", TaskFailed: "✗", TaskOpen: "○", TaskPending: "→"}

// ValidateTasks cross-checks a ledger's `## Tasks` with its spec's plan:
// the section lists the plan's tasks, in plan order, each in the plan's
// wave (TasksOf). Each difference is `ledger/tasks` at the task's line; a
// ledger without the section has nothing to check.
func ValidateTasks(path string, l *Ledger, plan *specs.Plan) parse.Diagnostics {
	var ds parse.Diagnostics
	if l.Tasks == nil {
		return nil
	}
	at := func(i int) parse.Pos {
		if l.at == nil || len(l.at.tasks) == 0 {
			return parse.Pos{Line: 1, Col: 1}
		}
		return parse.Pos{Line: l.at.tasks[min(i, len(l.at.tasks)-1)], Col: 1}
	}
	if plan == nil {
		ds.Errorf(path, at(0), RuleTasks, "the ledger lists tasks but %s has no plan; tasks come from the spec's plan (docs/plans.md)", l.Spec)
		return ds
	}
	want := TasksOf(plan)
	for i, t := range l.Tasks {
		if i >= len(want) {
			ds.Errorf(path, at(i), RuleTasks, "task %s is not a task of %s, which has %d; the section lists the plan's tasks", t.ID, plan.Path, len(want))
			break
		}
		if w := want[i]; w.ID != t.ID || w.Wave != t.Wave {
			ds.Errorf(path, at(i), RuleTasks, "task %s of wave %d is listed where %s has task %s of wave %d; the section lists the plan's tasks in plan order, each in its wave", t.ID, t.Wave, plan.Path, w.ID, w.Wave)
			return ds
		}
	}
	if n := len(l.Tasks); n < len(want) {
		ds.Errorf(path, at(n), RuleTasks, "%s has task %s of wave %d, which the section does not list", plan.Path, want[n].ID, want[n].Wave)
	}
	return ds
}
