package reconcile

import "github.com/gallivant/gallivant/internal/agent"

// The executors live in package agent; these names keep the pass, the
// CLI and the tests reading as they did before the move.
type (
	// Task is agent.Task.
	Task = agent.Task
	// Outcome is agent.Outcome.
	Outcome = agent.Outcome
	// Recovery is agent.Recovery.
	Recovery = agent.Recovery
	// VerifyResult is agent.VerifyResult.
	VerifyResult = agent.VerifyResult
	// NoneExecutor is agent.NoneExecutor.
	NoneExecutor = agent.NoneExecutor
	// WorkflowExecutor is agent.WorkflowExecutor.
	WorkflowExecutor = agent.WorkflowExecutor
	// CommandExecutor is agent.CommandExecutor.
	CommandExecutor = agent.CommandExecutor
	// AgentFunc is agent.AgentFunc.
	AgentFunc = agent.AgentFunc
	// WorkflowDispatch is agent.WorkflowDispatch.
	WorkflowDispatch = agent.WorkflowDispatch
	// WorkflowInput is agent.WorkflowInput.
	WorkflowInput = agent.WorkflowInput
	// WorkflowError is agent.WorkflowError.
	WorkflowError = agent.WorkflowError
)

// ErrEnded is agent.ErrEnded: a pass's agent was ended by a second
// interrupt, and the next pass settles or re-runs its dispatch at once.
var ErrEnded = agent.ErrEnded

// ErrRunAsNeedsRoot is agent.ErrRunAsNeedsRoot.
var ErrRunAsNeedsRoot = agent.ErrRunAsNeedsRoot
