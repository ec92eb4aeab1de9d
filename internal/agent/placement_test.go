package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each executor declares where its agents run, and an executor that holds
// no checkout answers what it cannot do with a typed "not here", never by
// lacking the method.
func TestExecutorsDeclareTheirPlacement(t *testing.T) {
	t.Parallel()
	type answers struct {
		Placement     Placement
		Recovery      Recovery
		PreflightKind string
		Verify        VerifyResult
	}
	type executor interface {
		Placement() Placement
		Recover(context.Context, Task) (Recovery, error)
		Intend(Task) error
		PreflightKind(Task) string
		Preflight(context.Context, Task) (string, error)
		Verify(context.Context, Task, []string, []string) (VerifyResult, error)
	}
	for _, tc := range []struct {
		name string
		e    executor
		want answers
	}{
		{"none", NoneExecutor{}, answers{Placement: Recorded, Verify: VerifyResult{Unsupported: true}}},
		{"workflow", WorkflowExecutor{Workflow: "agent.yml"}, answers{Placement: Remote, Verify: VerifyResult{Unsupported: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			task := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature"}
			var got answers
			var err error
			got.Placement = tc.e.Placement()
			if got.Recovery, err = tc.e.Recover(ctx, task); err != nil {
				t.Errorf("Recover: %v", err)
			}
			if err := tc.e.Intend(task); err != nil {
				t.Errorf("Intend: %v", err)
			}
			got.PreflightKind = tc.e.PreflightKind(task)
			if v, err := tc.e.Preflight(ctx, task); v != "" || err != nil {
				t.Errorf("Preflight = %q, %v; want nothing checked", v, err)
			}
			if got.Verify, err = tc.e.Verify(ctx, task, []string{"go test ./..."}, nil); err != nil {
				t.Errorf("Verify: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
	if got := (CommandExecutor{}).Placement(); got != Local {
		t.Errorf("CommandExecutor.Placement() = %v, want %v", got, Local)
	}
}

func TestPlacementString(t *testing.T) {
	t.Parallel()
	for p, want := range map[Placement]string{Recorded: "recorded", Remote: "remote", Local: "local", 0: "Placement(0)"} {
		if got := p.String(); got != want {
			t.Errorf("Placement(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}
