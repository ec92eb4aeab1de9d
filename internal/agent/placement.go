package agent

import (
	"context"
	"errors"
	"fmt"
)

// Placement says where an executor's agents run. It is the one capability
// an executor declares: what else the executor can do for a pass follows
// from it, and every executor answers every method of the pass's executor
// interface (reconcile.Executor), those it cannot serve with a typed "not
// here" answer rather than by lacking the method.
type Placement int

const (
	// Recorded executors start nothing (executor.kind none): an agent
	// elsewhere reads the task from the control repository, so a dispatch
	// needs no push of its own before it.
	Recorded Placement = iota + 1
	// Remote executors hand the run to GitHub Actions (executor.kind
	// workflow) and return at once; gallivant holds no checkout.
	Remote
	// Local executors run the agent here, in a checkout gallivant owns
	// (executor.kind command and the presets): they alone recover a
	// crashed reconciler's runs, record intents, preflight the agent's CLI
	// and verify a head.
	Local
)

// String names the placement as docs/agents.md does.
func (p Placement) String() string {
	switch p {
	case Recorded:
		return "recorded"
	case Remote:
		return "remote"
	case Local:
		return "local"
	}
	return fmt.Sprintf("Placement(%d)", int(p))
}

// Placement reports Recorded.
func (NoneExecutor) Placement() Placement { return Recorded }

// Recover knows nothing: no run of this executor is ever on this machine.
func (NoneExecutor) Recover(context.Context, Task) (Recovery, error) { return Recovery{}, nil }

// Intend records nothing: nothing starts that a crash could orphan.
func (NoneExecutor) Intend(Task) error { return nil }

// Abandon has no reservation to release.
func (NoneExecutor) Abandon(Task, bool) {}

// PreflightKind is "": no CLI runs here.
func (NoneExecutor) PreflightKind(Task) string { return "" }

// Preflight has nothing to check.
func (NoneExecutor) Preflight(context.Context, Task) (string, error) { return "", nil }

// Verify runs nothing and says so: VerifyResult.Unsupported.
func (NoneExecutor) Verify(context.Context, Task, []string, []string) (VerifyResult, error) {
	return VerifyResult{Unsupported: true}, nil
}

// Placement reports Remote.
func (WorkflowExecutor) Placement() Placement { return Remote }

// Recover knows nothing: the run is GitHub Actions', not this machine's.
func (WorkflowExecutor) Recover(context.Context, Task) (Recovery, error) { return Recovery{}, nil }

// Intend records nothing: the dispatch, not a local process, starts the run.
func (WorkflowExecutor) Intend(Task) error { return nil }

// Abandon has no reservation to release.
func (WorkflowExecutor) Abandon(Task, bool) {}

// PreflightKind is "": the agent's CLI runs on GitHub's runner.
func (WorkflowExecutor) PreflightKind(Task) string { return "" }

// Preflight has nothing to check here.
func (WorkflowExecutor) Preflight(context.Context, Task) (string, error) { return "", nil }

// Verify runs nothing and says so: VerifyResult.Unsupported.
func (WorkflowExecutor) Verify(context.Context, Task, []string, []string) (VerifyResult, error) {
	return VerifyResult{Unsupported: true}, nil
}

// Placement reports Local.
func (CommandExecutor) Placement() Placement { return Local }

// ErrNotHere is what an executor answers for a capability its placement
// does not serve (Prove of a local or recorded executor, ApplyCommit of
// one that runs no plan tasks): the caller says so where a person reads
// it instead of acting as if it had happened.
var ErrNotHere = errors.New("this executor does not do that where its agents run")

// Prove is not here: a local executor replays the evidence itself, and
// a recorded one has nothing to dispatch; executor.proof_check proves
// its heads.
func (CommandExecutor) Prove(context.Context, Task, string) error { return ErrNotHere }

// Prove is not here: the person's CI proves the head through
// executor.proof_check.
func (NoneExecutor) Prove(context.Context, Task, string) error { return ErrNotHere }

// RunsTasks is false: a plan's tasks run only where gallivant runs the
// agents, and the spec is delivered by its rows.
func (NoneExecutor) RunsTasks(Task) bool { return false }

// ApplyCommit is not here (RunsTasks is false).
func (NoneExecutor) ApplyCommit(context.Context, ApplyInput) (string, error) { return "", ErrNotHere }

// RunsTasks is false: a workflow run cannot hand a task's commit back
// for gallivant to apply in order, so the spec is delivered by its rows.
func (WorkflowExecutor) RunsTasks(Task) bool { return false }

// ApplyCommit is not here (RunsTasks is false).
func (WorkflowExecutor) ApplyCommit(context.Context, ApplyInput) (string, error) {
	return "", ErrNotHere
}
