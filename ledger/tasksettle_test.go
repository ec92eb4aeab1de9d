package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/specs"
)

// TestSettleTask: what each observation of a pending task's run decides
// (docs/plans.md "Wave execution": crashes, another reconciler's run, an
// agent that fails).
func TestSettleTask(t *testing.T) {
	t.Parallel()
	open := taskLedger(t, "task T001 | wave 1 | open | 0 | -")
	l, _, err := DispatchTask(open, "T001", taskHead, taskNow)
	if err != nil {
		t.Fatal(err)
	}
	files := []specs.PlanFile{{Kind: "Modify", Path: "ratelimit/window.go"}}
	good := []Return{{SHA: taskCommit, Subject: "loop: task T001 done", Body: "task: " + TaskTuple(l.Tasks[0]) + "\n\nWindow written.\n"}}
	const window = 35 * time.Minute
	type want struct {
		Kind     TaskSettleKind
		Why      string // a substring of the wait's why or the commit's sentence
		Status   TaskStatus
		Admitted string
		Miss     bool
	}
	for _, tc := range []struct {
		name string
		obs  TaskObservation
		want want
	}{
		{"an agent that outlived its reconciler", TaskObservation{Running: 4242, Unknown: true, Now: taskNow.Add(2 * time.Hour)},
			want{Kind: TaskWait, Why: "its agent (pid 4242) outlived the reconciler", Status: TaskPending}},
		{"another reconciler's run inside its window", TaskObservation{Unknown: true, Now: taskNow.Add(window)},
			want{Kind: TaskWait, Why: "by a reconciler this machine has no record of", Status: TaskPending}},
		{"another reconciler's run past its window", TaskObservation{Unknown: true, Now: taskNow.Add(window + time.Second)},
			want{Kind: TaskRecord, Why: "exactly one commit", Status: TaskFailed, Miss: true}},
		{"another reconciler's run that answered", TaskObservation{Unknown: true, Commits: good, Touched: []string{"ratelimit/window.go"}, Now: taskNow},
			want{Kind: TaskRecord, Status: TaskDone, Admitted: taskCommit}},
		{"an agent that cannot run here", TaskObservation{AgentErr: "not logged in", Environment: true, Log: "logs/x.log", Now: taskNow},
			want{Kind: TaskWithdraw, Why: "Withdrew", Status: TaskOpen}},
		{"an agent that failed", TaskObservation{AgentErr: "exit status 3", Log: "logs/x.log", Now: taskNow},
			want{Kind: TaskRecord, Why: "the agent run failed: exit status 3 (log logs/x.log)", Status: TaskFailed}},
		{"an agent that failed after committing", TaskObservation{AgentErr: "exit status 3", Commits: good, Touched: []string{"ratelimit/window.go"}, Now: taskNow},
			want{Kind: TaskRecord, Status: TaskDone, Admitted: taskCommit}},
		{"a return outside the task's files", TaskObservation{Commits: good, Touched: []string{"go.mod"}, Now: taskNow},
			want{Kind: TaskRecord, Why: "outside task T001's files", Status: TaskFailed, Miss: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.obs.Window, tc.obs.Files = window, files
			s, err := SettleTask(l, "T001", tc.obs)
			if err != nil {
				t.Fatal(err)
			}
			status := TaskPending
			text := s.Why
			if s.Ledger != nil {
				nt, _ := s.Ledger.Task("T001")
				status, text = nt.Status, s.Commit.Sentence
			}
			got := want{Kind: s.Kind, Why: tc.want.Why, Status: status, Admitted: s.Admitted, Miss: s.Miss != nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SettleTask (-want +got):\n%s", diff)
			}
			if !strings.Contains(text, tc.want.Why) {
				t.Errorf("SettleTask says %q; want it to say %q", text, tc.want.Why)
			}
			if s.Kind == TaskWait && s.Ledger != nil {
				t.Errorf("a wait writes a transition: %+v", s.Commit)
			}
		})
	}
	if _, err := SettleTask(open, "T001", TaskObservation{}); err == nil || !strings.Contains(err.Error(), "only a pending task") {
		t.Errorf("settling an open task: %v", err)
	}
}
