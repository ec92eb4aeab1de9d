package ledger

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/specs"
)

func TestAdmitTask(t *testing.T) {
	t.Parallel()
	l := taskLedger(t, "task T002 | wave 1 | pending | 1 | "+taskHead, "task T003 | wave 1 | open | 0 | -")
	files := []specs.PlanFile{{Kind: "Create", Path: "ratelimit/window.go"}, {Kind: "Test", Path: "ratelimit"}}
	tuple := "task: T002 | attempt 1 | " + taskHead
	ret := func(subject, body string) []Return {
		return []Return{{SHA: taskCommit, Subject: subject, Body: body, ChangedFiles: 1}}
	}
	good := tuple + "\n\nThe window counter is in ratelimit/window.go.\n"
	tests := []struct {
		name    string
		commits []Return
		touched []string
		want    Task
		miss    string // a word of the miss; "" when admitted
		subject string
	}{
		{name: "admitted", commits: ret("loop: task T002 done", good), touched: []string{"ratelimit/window.go", "ratelimit/window_test.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskDone, Attempts: 1, SHA: taskCommit}, subject: "loop: record task T002 done"},
		{name: "admitted with trailers and CRLF", commits: ret("loop: task T002 done\r\n", strings.ReplaceAll(good, "\n", "\r\n")+"\r\nCo-authored-by: A <a@example.com>\r\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskDone, Attempts: 1, SHA: taskCommit}, subject: "loop: record task T002 done"},
		{name: "the agent's own failure", commits: ret("loop: task T002 failed", tuple+"\n\nThe counter needs a clock the package lacks.\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, subject: "loop: record task T002 failed"},
		{name: "no commit", want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "exactly one commit", subject: "loop: record task T002 failed"},
		{name: "two commits", commits: append(ret("loop: task T002 done", good), ret("wip", "")...), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "got 2", subject: "loop: record task T002 failed"},
		{name: "another task's file", commits: ret("loop: task T002 done", good), touched: []string{"ratelimit/window.go", "ratelimit2/respond.go", "go.mod"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "'ratelimit2/respond.go', 'go.mod', outside task T002's files", subject: "loop: record task T002 failed"},
		{name: "a row return", commits: ret("loop: row 1 done", good), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "is not `loop: task <id> done`", subject: "loop: record task T002 failed"},
		{name: "another task's return", commits: ret("loop: task T003 done", good), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "answers task 'T003'", subject: "loop: record task T002 failed"},
		{name: "an earlier attempt's tuple", commits: ret("loop: task T002 done", "task: T002 | attempt 0 | "+taskHead+"\n\nDone.\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "body line 1 must be `task: T002 | attempt 1 |", subject: "loop: record task T002 failed"},
		{name: "no summary", commits: ret("loop: task T002 done", tuple+"\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "one summary line", subject: "loop: record task T002 failed"},
		{name: "two summary lines", commits: ret("loop: task T002 done", good+"And more.\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "exactly one summary line", subject: "loop: record task T002 failed"},
		{name: "a summary too long", commits: ret("loop: task T002 done", tuple+"\n\n"+strings.Repeat("x", MaxSlot+1)+"\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "201 characters", subject: "loop: record task T002 failed"},
		{name: "a control character", commits: ret("loop: task T002 done", tuple+"\n\nDone \x1b[31m.\n"), touched: []string{"ratelimit/window.go"},
			want: Task{ID: "T002", Wave: 1, Status: TaskFailed, Attempts: 1, SHA: taskHead}, miss: "body line 3", subject: "loop: record task T002 failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, c, err := AdmitTask(l, "T002", tc.commits, tc.touched, files)
			var m *Miss
			if tc.miss == "" && err != nil {
				t.Fatalf("AdmitTask: %v", err)
			}
			if tc.miss != "" && (!errors.As(err, &m) || !strings.Contains(m.Reason, tc.miss)) {
				t.Fatalf("AdmitTask = %v; want a miss saying %q", err, tc.miss)
			}
			if n == nil {
				t.Fatal("no record of the settled task")
			}
			if diff := cmp.Diff(tc.want, n.Tasks[0]); diff != "" {
				t.Errorf("recorded task (-want +got):\n%s", diff)
			}
			if c.Subject != tc.subject || strings.Contains(c.Sentence, "\n") || strings.Contains(c.Sentence, "\x1b") {
				t.Errorf("record commit %+v", c)
			}
			if tc.miss != "" && !strings.Contains(c.Sentence, "broke the contract") {
				t.Errorf("a miss's record does not say why: %q", c.Sentence)
			}
			if n.Tasks[1] != l.Tasks[1] {
				t.Errorf("another task changed: %+v", n.Tasks[1])
			}
		})
	}
	for _, id := range []string{"T003", "T009"} {
		if _, _, err := AdmitTask(l, id, nil, nil, files); err == nil || errors.As(err, new(*Miss)) {
			t.Errorf("AdmitTask of %s, not pending: %v; want an error that is not a miss", id, err)
		}
	}
}

func FuzzParseTaskReturn(f *testing.F) {
	f.Add("loop: task T002 done", "task: T002 | attempt 1 | "+taskHead+"\n\nDone.\n")
	f.Add("loop: task 2.1 failed", "task: 2.1 | attempt 3 | x\n\nNo.\n\nCo-authored-by: A <a@b>\n")
	f.Add("loop: task T1 done", "")
	f.Add("loop: task T1 done", "task: \n\n\n")
	f.Fuzz(func(t *testing.T, subject, body string) {
		tr, err := ParseTaskReturn(subject, body)
		if err != nil {
			var m *Miss
			if !errors.As(err, &m) || strings.ContainsAny(m.Reason, "\n\r\x1b") {
				t.Fatalf("error %q is not a one-line miss", err)
			}
			return
		}
		if !ValidTaskID(tr.ID) || (tr.Status != Done && tr.Status != Failed) || tr.Summary == "" || strings.ContainsAny(tr.Summary, "\n\r") {
			t.Fatalf("accepted %+v", tr)
		}
	})
}
