package ledger

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/specs"
)

const (
	taskHead   = "3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912"
	taskCommit = "0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5"
)

// taskNow is when the tests' task dispatches are made.
var taskNow = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func TestParseTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		want    Task
		col     int
		errWord string
	}{
		{line: "task T002 | wave 1 | pending | 1 | " + taskHead, want: Task{ID: "T002", Wave: 1, Status: TaskPending, Attempts: 1, SHA: taskHead}},
		{line: "task 3 | wave 2 | open | 0 | -", want: Task{ID: "3", Wave: 2, Status: TaskOpen}},
		{line: "task 2.1 | wave 12 | done | 3 | " + taskCommit, want: Task{ID: "2.1", Wave: 12, Status: TaskDone, Attempts: 3, SHA: taskCommit}},
		{line: "task 4 | wave 1 | failed | 2 | " + taskHead, want: Task{ID: "4", Wave: 1, Status: TaskFailed, Attempts: 2, SHA: taskHead}},
		{line: "task 3 | wave 2 | open | 0", col: 1, errWord: "5 fields"},
		{line: "task .3 | wave 2 | open | 0 | -", col: 1, errWord: "task <id>"},
		{line: "task T0000000000000000 | wave 2 | open | 0 | -", col: 1, errWord: "at most 16"},
		{line: "tsk 3 | wave 2 | open | 0 | -", col: 1, errWord: "task <id>"},
		{line: "task 3 | wave 02 | open | 0 | -", col: 10, errWord: "wave <n>"},
		{line: "task 3 | wave 2 | running | 0 | -", col: 19, errWord: "not a task status"},
		{line: "task 3 | wave 2 | open | 01 | -", col: 26, errWord: "count of attempts"},
		{line: "task 3 | wave 2 | open | 1 | -", col: 26, errWord: "0 attempts"},
		{line: "task 3 | wave 2 | open | 0 | " + taskHead, col: 26, errWord: "0 attempts"},
		{line: "task 3 | wave 2 | done | 0 | " + taskHead, col: 26, errWord: "at least once"},
		{line: "task 3 | wave 2 | done | 1 | -", col: 30, errWord: "40-hex"},
		{line: "task 3 | wave 2 | pending | 1 | " + strings.ToUpper(taskHead), col: 33, errWord: "40-hex"},
	}
	for _, tc := range tests {
		got, col, err := ParseTask(tc.line)
		if tc.errWord == "" {
			if err != nil {
				t.Errorf("ParseTask(%q): %v", tc.line, err)
				continue
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseTask(%q) (-want +got):\n%s", tc.line, diff)
			}
			if s := got.String(); s != tc.line {
				t.Errorf("ParseTask(%q).String() = %q", tc.line, s)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.errWord) || col != tc.col {
			t.Errorf("ParseTask(%q) = col %d, %v; want col %d and an error saying %q", tc.line, col, err, tc.col, tc.errWord)
		}
	}
}

func tasks(spec ...string) []Task {
	var out []Task
	for _, s := range spec {
		t, _, err := ParseTask(s)
		if err != nil {
			panic(err)
		}
		out = append(out, t)
	}
	return out
}

func TestNextWave(t *testing.T) {
	t.Parallel()
	h, c := taskHead, taskCommit
	tests := []struct {
		name        string
		tasks       []Task
		maxParallel int
		want        WaveAction
	}{
		{name: "no tasks", want: WaveAction{Kind: WaveNone}},
		{name: "all done goes to the rows", tasks: tasks("task 1 | wave 1 | done | 1 | "+c, "task 2 | wave 2 | done | 2 | "+c),
			maxParallel: 4, want: WaveAction{Kind: WaveNone}},
		{name: "a fresh wave dispatches every task", tasks: tasks("task 1 | wave 1 | open | 0 | -", "task 2 | wave 1 | open | 0 | -", "task 3 | wave 2 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"1", "2"}}},
		{name: "max_parallel bounds a wave", tasks: tasks("task 1 | wave 1 | open | 0 | -", "task 2 | wave 1 | open | 0 | -", "task 3 | wave 1 | open | 0 | -"),
			maxParallel: 2, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"1", "2"}}},
		{name: "below 1 reads as serial", tasks: tasks("task 1 | wave 1 | open | 0 | -", "task 2 | wave 1 | open | 0 | -"),
			maxParallel: 0, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"1"}}},
		{name: "pending tasks take their slots", tasks: tasks("task 1 | wave 1 | pending | 1 | "+h, "task 2 | wave 1 | open | 0 | -", "task 3 | wave 1 | open | 0 | -"),
			maxParallel: 2, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"2"}, Pending: []string{"1"}}},
		{name: "full slots settle", tasks: tasks("task 1 | wave 1 | pending | 1 | "+h, "task 2 | wave 1 | pending | 1 | "+h, "task 3 | wave 1 | open | 0 | -"),
			maxParallel: 2, want: WaveAction{Kind: WaveSettle, Wave: 1, Pending: []string{"1", "2"}}},
		{name: "the next wave waits for a pending task", tasks: tasks("task 1 | wave 1 | done | 1 | "+c, "task 2 | wave 1 | pending | 1 | "+h, "task 3 | wave 2 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveSettle, Wave: 1, Pending: []string{"2"}}},
		{name: "the next wave waits for a failed task, which runs again", tasks: tasks("task 1 | wave 1 | done | 1 | "+c, "task 2 | wave 1 | failed | 1 | "+h, "task 3 | wave 2 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"2"}}},
		{name: "a done wave starts the next", tasks: tasks("task 1 | wave 1 | done | 1 | "+c, "task 2 | wave 1 | done | 2 | "+c, "task 3 | wave 2 | open | 0 | -", "task 4 | wave 2 | open | 0 | -", "task 5 | wave 3 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveDispatch, Wave: 2, Dispatch: []string{"3", "4"}}},
		{name: "a failed task at allowance stops", tasks: tasks("task 1 | wave 1 | failed | 3 | "+h, "task 2 | wave 1 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveStop, Wave: 1, Detail: "task 1 used 3 of 3 attempts"}},
		{name: "a spent task starts nothing more and settles what runs first", tasks: tasks("task 1 | wave 1 | pending | 1 | "+h, "task 2 | wave 1 | failed | 3 | "+h, "task 3 | wave 1 | open | 0 | -"),
			maxParallel: 4, want: WaveAction{Kind: WaveSettle, Wave: 1, Pending: []string{"1"}}},
		{name: "failed tasks run in plan order with open ones", tasks: tasks("task 1 | wave 1 | open | 0 | -", "task 2 | wave 1 | failed | 2 | "+h),
			maxParallel: 4, want: WaveAction{Kind: WaveDispatch, Wave: 1, Dispatch: []string{"1", "2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := NextWave(tc.tasks, tc.maxParallel, 3)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NextWave (-want +got):\n%s", diff)
			}
		})
	}
}

func taskLedger(t *testing.T, lines ...string) *Ledger {
	t.Helper()
	src := "# Ledger - loop engine\n**Spec:** `specs/rl/spec.md`\nbase: " + taskHead + "\nverification: go test ./...\nchecks: commands\niterations: 1\nallowance: 3\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | |\n\n## Decisions\n\n## Tasks\n" + strings.Join(lines, "\n") + "\n"
	l, ds := Parse("plans/rl-ledger.md", []byte(src))
	if Fatal(ds) {
		t.Fatalf("fixture: %v", ds)
	}
	if got := string(Format(l)); got != src {
		t.Fatalf("fixture is not canonical:\n%s", cmp.Diff(src, got))
	}
	return l
}

func TestTasksSectionFirstWave(t *testing.T) {
	t.Parallel()
	src := "# Ledger - loop engine\n**Spec:** `specs/rl/spec.md`\nbase: " + taskHead + "\nverification: go test ./...\nchecks: commands\niterations: 0\nallowance: 3\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | |\n\n## Decisions\n\n## Tasks\ntask T001 | wave 2 | open | 0 | -\n"
	_, ds := Parse("plans/rl-ledger.md", []byte(src))
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d:%d %s %s", d.Pos().Line, d.Pos().Col, d.Rule, d.Message))
	}
	want := []string{"16:13 ledger/tasks the first task, T001, is in wave 2; waves are numbered from 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestDispatchAndRecordTask(t *testing.T) {
	t.Parallel()
	l := taskLedger(t, "task T001 | wave 1 | open | 0 | -", "task T002 | wave 1 | failed | 1 | "+taskCommit, "task T003 | wave 2 | open | 0 | -")

	d, c, err := DispatchTask(l, "T002", taskHead, taskNow)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Task{ID: "T002", Wave: 1, Status: TaskPending, Attempts: 2, SHA: taskHead}, d.Tasks[1]); diff != "" {
		t.Errorf("dispatched task (-want +got):\n%s", diff)
	}
	if d.Iterations != 2 || l.Iterations != 1 || l.Tasks[1].Status != TaskFailed {
		t.Errorf("iterations %d (parent %d, status %s); a dispatch counts one iteration on a copy", d.Iterations, l.Iterations, l.Tasks[1].Status)
	}
	if c.Subject != "loop: dispatch task T002" || !strings.Contains(c.Sentence, "attempt 2") || c.Trailers[0] != (Trailer{TrailerHead, taskHead}) {
		t.Errorf("dispatch commit %+v", c)
	}

	done, c, err := RecordTask(d, "T002", TaskDone, taskCommit, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Task{ID: "T002", Wave: 1, Status: TaskDone, Attempts: 2, SHA: taskCommit}, done.Tasks[1]); diff != "" {
		t.Errorf("recorded task (-want +got):\n%s", diff)
	}
	if c.Subject != "loop: record task T002 done" {
		t.Errorf("record subject %q", c.Subject)
	}
	missed, c, err := RecordTask(d, "T002", TaskFailed, "", "the return touched ratelimit/other.go\nand more")
	if err != nil {
		t.Fatal(err)
	}
	if missed.Tasks[1].Status != TaskFailed || missed.Tasks[1].SHA != taskHead || c.Subject != "loop: record task T002 failed" || strings.Contains(c.Sentence, "\n") {
		t.Errorf("failed record: %+v, %+v", missed.Tasks[1], c)
	}
	// The refusal's reason is kept as a decision, made to fit its slot, for
	// the next attempt's brief and for why.
	want := Decision{Line: "task T002 failed | attempt 2 | the return touched ratelimit/other.go and more", Kind: DecisionTaskFailed,
		Status: Failed, Task: "T002", Attempt: 2, Slot1: "attempt 2", Slot2: "the return touched ratelimit/other.go and more"}
	if got, ok := missed.TaskRefusal("T002"); !ok || !cmp.Equal(want, got) {
		t.Errorf("TaskRefusal after a failed record (-want +got):\n%s", cmp.Diff(want, got))
	}
	if len(missed.Decisions) != len(d.Decisions)+1 || len(done.Decisions) != len(d.Decisions) {
		t.Errorf("decisions: %d → failed %d, done %d; a failure appends one, a done record none", len(d.Decisions), len(missed.Decisions), len(done.Decisions))
	}
	if _, ok := done.TaskRefusal("T002"); ok {
		t.Errorf("TaskRefusal of a done task found a refusal")
	}
	if _, ok := missed.TaskRefusal("T001"); ok {
		t.Errorf("TaskRefusal(T001) found a refusal of another task")
	}
	long, _, err := RecordTask(d, "T002", TaskFailed, "", "\x1b[31m"+strings.Repeat("é", 300))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := long.TaskRefusal("T002"); len([]rune(got.Slot2)) != MaxSlot || !strings.HasSuffix(got.Slot2, "…") || strings.ContainsRune(got.Slot2, 0x1b) {
		t.Errorf("a long reason with a control character became %q; want %d characters ending … and no control", got.Slot2, MaxSlot)
	}
	// The written ledgers parse back to themselves.
	for _, n := range []*Ledger{d, done, missed, long} {
		b := Format(n)
		back, ds := Parse("x", b)
		if Fatal(ds) || string(Format(back)) != string(b) {
			t.Errorf("a task transition wrote a ledger that does not round-trip: %v\n%s", ds, b)
		}
	}

	refusals := []struct {
		name string
		do   func() error
		want string
	}{
		{"dispatch of an unknown task", func() error { _, _, err := DispatchTask(l, "T009", taskHead, taskNow); return err }, "no task"},
		{"dispatch of a pending task", func() error { _, _, err := DispatchTask(d, "T002", taskHead, taskNow); return err }, "is pending"},
		{"dispatch of a done task", func() error { _, _, err := DispatchTask(done, "T002", taskHead, taskNow); return err }, "is done"},
		{"record of an open task", func() error { _, _, err := RecordTask(l, "T001", TaskDone, taskCommit, ""); return err }, "only a pending task"},
		{"record done without a commit", func() error { _, _, err := RecordTask(d, "T002", TaskDone, "abc", ""); return err }, "40-hex"},
		{"record as open", func() error { _, _, err := RecordTask(d, "T002", TaskOpen, "", ""); return err }, "done or failed"},
	}
	for _, r := range refusals {
		if err := r.do(); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: %v; want an error saying %q", r.name, err, r.want)
		}
	}
}

func TestTaskReturnOutside(t *testing.T) {
	t.Parallel()
	files := []specs.PlanFile{
		{Kind: "Create", Path: "internal/webhooks/sign.go"},
		{Kind: "Modify", Path: "internal/store/migrations/*.sql"},
		{Kind: "Modify", Path: "./docs/hooks.md"},
		{Kind: "Delete", Path: "internal/old.go"},
		{Kind: "Test", Path: "internal/webhooks"},
	}
	tests := []struct {
		touched []string
		want    []string
	}{
		{touched: []string{"internal/webhooks/sign.go", "internal/webhooks/sign_test.go", "internal/store/migrations/003.sql", "docs/hooks.md", "internal/old.go"}},
		{touched: []string{"internal/webhooks/sign.go", "internal/webhooks/deliver.go"}}, // under the Test: path
		{touched: []string{"internal/store/migrations/sub/003.sql", "internal/webhooksx/a.go"}, want: []string{"internal/store/migrations/sub/003.sql", "internal/webhooksx/a.go"}},
		{touched: []string{"go.mod", "internal/webhooks/sign.go", "README.md"}, want: []string{"go.mod", "README.md"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, TaskReturnOutside(files, tc.touched)); diff != "" {
			t.Errorf("TaskReturnOutside(%q) (-want +got):\n%s", tc.touched, diff)
		}
	}
}

func TestTasksOfSpecKit(t *testing.T) {
	t.Parallel()
	src := `# Tasks: Rate limit

## Phase 1: Setup

- [ ] T001 Create the ratelimit package in ratelimit/doc.go

## Phase 2: User Story 1 - Callers over the limit are told to wait (Priority: P1)

- [ ] T002 [P] [US1] Implement the window counter in ratelimit/window.go
- [ ] T003 [P] [US1] Write the 429 response in ratelimit/respond.go
- [ ] T004 [US1] Wire the middleware in ratelimit/middleware.go (depends on T002, T003)
`
	p, ds := specs.ParseTasksFile(specs.FormatSpecKit, specs.File{Path: "specs/001-rate-limit/tasks.md", Data: []byte(src)})
	if ds.HasErrors() {
		t.Fatalf("fixture: %v", ds)
	}
	want := tasks(
		"task T001 | wave 1 | open | 0 | -",
		"task T002 | wave 2 | open | 0 | -",
		"task T003 | wave 2 | open | 0 | -",
		"task T004 | wave 3 | open | 0 | -",
	)
	got := TasksOf(p)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("TasksOf (-want +got):\n%s", diff)
	}
	// Wave 2's two [P] tasks start together; wave 3 waits for them.
	got[0].Status, got[0].Attempts, got[0].SHA = TaskDone, 1, taskCommit
	if diff := cmp.Diff(WaveAction{Kind: WaveDispatch, Wave: 2, Dispatch: []string{"T002", "T003"}}, NextWave(got, 4, 3)); diff != "" {
		t.Errorf("NextWave after wave 1 (-want +got):\n%s", diff)
	}
}

func FuzzParseTask(f *testing.F) {
	f.Add("task T002 | wave 1 | pending | 1 | " + taskHead)
	f.Add("task 3 | wave 2 | open | 0 | -")
	f.Add("task 2.1 | wave 9 | done | 2 | " + taskCommit)
	f.Add("task | | | |")
	f.Add("task é | wave 1 | open | 0 | -")
	f.Fuzz(func(t *testing.T, line string) {
		tk, col, err := ParseTask(line)
		if err != nil {
			if col < 1 || col > len([]rune(line))+1 {
				t.Fatalf("column %d outside the line %q", col, line)
			}
			return
		}
		if tk.String() != line {
			t.Fatalf("ParseTask(%q) renders %q", line, tk.String())
		}
	})
}

func TestWaveLines(t *testing.T) {
	t.Parallel()
	h, c := taskHead, taskCommit
	tests := []struct {
		name  string
		tasks []Task
		want  []string
	}{
		{name: "no tasks"},
		{name: "a wave running, one waiting", tasks: tasks(
			"task T001 | wave 1 | done | 1 | "+c,
			"task T002 | wave 2 | done | 1 | "+c,
			"task T003 | wave 2 | pending | 2 | "+h,
			"task T005 | wave 2 | failed | 1 | "+h,
			"task T004 | wave 3 | open | 0 | -",
		), want: []string{
			"wave 1 of 3, done: ✓ T001 (1)",
			"wave 2 of 3, running: ✓ T002 (1), → T003 (2), ✗ T005 (1)",
			"wave 3 of 3, waiting: ○ T004",
		}},
		{name: "every wave done", tasks: tasks("task 1 | wave 1 | done | 1 | "+c, "task 2 | wave 2 | done | 3 | "+c),
			want: []string{"wave 1 of 2, done: ✓ 1 (1)", "wave 2 of 2, done: ✓ 2 (3)"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, WaveLines(tc.tasks)); diff != "" {
			t.Errorf("%s: WaveLines (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestTasksCopied: a copy of a ledger never shares its tasks, so a task
// transition cannot change the ledger it was applied to.
func TestTasksCopied(t *testing.T) {
	t.Parallel()
	l := taskLedger(t, "task 1 | wave 1 | open | 0 | -")
	for name, c := range map[string]*Ledger{"Clone": l.Clone(), "CloneParsed": l.CloneParsed()} {
		c.Tasks[0].Status = TaskDone
		if l.Tasks[0].Status != TaskOpen {
			t.Errorf("%s shares the tasks of its ledger", name)
			l.Tasks[0].Status = TaskOpen
		}
	}
}

func TestValidateTasks(t *testing.T) {
	t.Parallel()
	read := func(p string) []byte {
		b, err := os.ReadFile("../docs/examples/control/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	l, ds := Parse("plans/webhooks-ledger.md", read("plans/webhooks-ledger.md"))
	if Fatal(ds) {
		t.Fatalf("example ledger: %v", ds)
	}
	open := func(id string, wave int) Task { return Task{ID: id, Wave: wave, Status: TaskOpen} }
	tests := []struct {
		name  string
		tasks []Task
		plan  bool
		want  []string
	}{
		{name: "no section", plan: true},
		{name: "the plan's tasks", plan: true, tasks: []Task{open("1", 1), open("2", 1), open("3", 2), open("4", 2)}},
		{name: "out of plan order", plan: true, tasks: []Task{open("2", 1), open("1", 1), open("3", 2), open("4", 2)},
			want: []string{"ledger/tasks 23:1 task 2 of wave 1 is listed where plans/webhooks-plan.md has task 1 of wave 1"}},
		{name: "in another wave", plan: true, tasks: []Task{open("1", 1), open("2", 2), open("3", 2), open("4", 2)},
			want: []string{"ledger/tasks 24:1 task 2 of wave 2 is listed where plans/webhooks-plan.md has task 2 of wave 1"}},
		{name: "a task missing", plan: true, tasks: []Task{open("1", 1), open("2", 1), open("3", 2)},
			want: []string{"ledger/tasks 25:1 plans/webhooks-plan.md has task 4 of wave 2, which the section does not list"}},
		{name: "a task too many", plan: true, tasks: []Task{open("1", 1), open("2", 1), open("3", 2), open("4", 2), open("5", 2)},
			want: []string{"ledger/tasks 27:1 task 5 is not a task of plans/webhooks-plan.md, which has 4"}},
		{name: "no plan", tasks: []Task{open("1", 1)},
			want: []string{"ledger/tasks 23:1 the ledger lists tasks but specs/webhooks.md has no plan"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := l.Clone()
			n.Tasks = tc.tasks
			files := []specs.File{{Path: "specs/webhooks.md", Data: read("specs/webhooks.md")}, {Path: "plans/webhooks-ledger.md", Data: Format(n)}}
			if tc.plan {
				files = append(files, specs.File{Path: "plans/webhooks-plan.md", Data: read("plans/webhooks-plan.md")})
			}
			_, ds := Load(specs.DefaultConfig(), files)
			var got []string
			for _, d := range ds {
				if d.Rule == RuleTasks {
					msg, _, _ := strings.Cut(d.Message, ";")
					got = append(got, fmt.Sprintf("%s %d:%d %s", d.Rule, d.Pos().Line, d.Pos().Col, msg))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, Format(n))
			}
		})
	}
}

// WithdrawTask gives a pending task's attempt back: open again after its
// first, failed from the withdrawn head after a later one; the iteration
// stays counted and the reason is kept under unavailable: until the next
// dispatch clears it.
func TestWithdrawTask(t *testing.T) {
	t.Parallel()
	l := taskLedger(t, "task T001 | wave 1 | open | 0 | -", "task T002 | wave 1 | failed | 1 | "+taskCommit)
	first, _, err := DispatchTask(l, "T001", taskHead, taskNow)
	if err != nil {
		t.Fatal(err)
	}
	w, c, err := WithdrawTask(first, "T001", "the agent could not authenticate: 401 \"bad key\"\nmore")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Task{ID: "T001", Wave: 1, Status: TaskOpen}, w.Tasks[0]); diff != "" {
		t.Errorf("withdrawn first attempt (-want +got):\n%s", diff)
	}
	if w.Iterations != first.Iterations || w.Delivery.Unavailable != fmt.Sprintf("iteration %d: the agent could not authenticate: 401 \"bad key\" more", first.Iterations) {
		t.Errorf("iterations %d, unavailable %q", w.Iterations, w.Delivery.Unavailable)
	}
	if c.Subject != "loop: withdraw task T001" || !strings.Contains(c.Sentence, "without a new attempt") {
		t.Errorf("withdraw commit %+v", c)
	}
	later, _, err := DispatchTask(l, "T002", taskHead, taskNow)
	if err != nil {
		t.Fatal(err)
	}
	w2, _, err := WithdrawTask(later, "T002", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, w2.Tasks[1]); diff != "" {
		t.Errorf("withdrawn second attempt (-want +got):\n%s", diff)
	}
	again, _, err := DispatchTask(w, "T001", taskHead, taskNow)
	if err != nil {
		t.Fatal(err)
	}
	if again.Delivery.Unavailable != "" || again.Tasks[0].Attempts != 1 {
		t.Errorf("the next dispatch: attempts %d, unavailable %q", again.Tasks[0].Attempts, again.Delivery.Unavailable)
	}
	for _, n := range []*Ledger{w, w2, again} {
		b := Format(n)
		back, ds := Parse("x", b)
		if Fatal(ds) || string(Format(back)) != string(b) {
			t.Errorf("a withdrawal wrote a ledger that does not round-trip: %v\n%s", ds, b)
		}
	}
	if _, _, err := WithdrawTask(l, "T001", "x"); err == nil || !strings.Contains(err.Error(), "only a pending task") {
		t.Errorf("withdrawing an open task: %v", err)
	}
}

// An allowance stop of a waves entry is its wave's: the stop recommends
// raising the shared allowance, which runs the wave again, and refuses a
// row's retry, which would stop the entry again at once.
func TestWaveAllowanceStopIsClearedByRows(t *testing.T) {
	t.Parallel()
	l := taskLedger(t, "task T001 | wave 1 | done | 1 | "+taskCommit, "task T002 | wave 1 | failed | 3 | "+taskHead, "task T003 | wave 2 | open | 0 | -")
	if a := NextWave(l.Tasks, 4, l.Allowance); a.Kind != WaveStop {
		t.Fatalf("fixture: NextWave = %+v, want a stop", a)
	}
	stopped, _ := Stop(l, StopAllowance, "wave 1 cannot finish: task T002 used 3 of 3 attempts", 0)
	rec := Recommendation(stopped, StopAllowance, 0)
	if want := "rows +1 | <why> - wave 1 cannot finish (task T002 used 3 of 3 attempts); "; !strings.HasPrefix(rec, want) {
		t.Errorf("recommendation %q, want it to begin %q", rec, want)
	}
	retry, err := ParseRequest("retry 1 | try harder")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ApplyRequest(stopped, retry, time.Time{}); err == nil || !strings.Contains(err.Error(), "the stop is wave 1's, not a row's") {
		t.Errorf("retry at a wave stop: %v; want it refused as the wave's", err)
	}
	req, _, _ := strings.Cut(rec, " - ")
	rows, err := ParseRequest(strings.Replace(req, "<why>", "T002 gets one more", 1))
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := ApplyRequest(stopped, rows, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if a := NextWave(n.Tasks, 4, n.Allowance); a.Kind != WaveDispatch || !slices.Equal(a.Dispatch, []string{"T002"}) {
		t.Errorf("after %q NextWave = %+v, want T002 dispatched", rows.Line, a)
	}
}

// TestValidateTaskDecisions: a task decision names a task of ## Tasks and
// an attempt the task has had.
func TestValidateTaskDecisions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, decision string
		want           []string
	}{
		{name: "a refused attempt of a listed task", decision: "task T001 failed | attempt 1 | the return broke the contract"},
		{name: "a task the section does not list", decision: "task T009 failed | attempt 1 | x",
			want: []string{"ledger/pairing decision names task T009 but ## Tasks does not list it"}},
		{name: "an attempt beyond the task's", decision: "task T001 failed | attempt 3 | x",
			want: []string{"ledger/attempts decision records attempt 3 of task T001, which has 1 attempts; attempts never go down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := taskLedger(t, "task T001 | wave 1 | failed | 1 | "+taskHead)
			d, err := ParseDecision(tc.decision)
			if err != nil {
				t.Fatal(err)
			}
			l.Decisions = append(l.Decisions, d)
			var got []string
			for _, x := range Validate("plans/rl-ledger.md", l, nil) {
				if x.Rule == RulePairing || x.Rule == RuleAttempts {
					got = append(got, fmt.Sprintf("%s %s", x.Rule, x.Message))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
