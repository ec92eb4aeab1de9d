package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/internal/agent"
)

// Executor is what a pass needs from whatever runs its agents, every
// capability declared: the pass never asks an executor at run time what
// else it can do. Placement says where the agents run, and what follows
// from it: only an agent.Local executor is given a run slot, recovers a
// crashed reconciler's runs, records intents, preflights its CLI and
// verifies heads; an agent.Recorded one starts nothing, so its dispatches
// need no push before them. An executor answers the methods its placement
// cannot serve with a typed "not here": a zero Recovery, no intent, an
// empty preflight kind, and a VerifyResult with Unsupported set, which a
// pass turns into a stop (docs/agents.md "Executors").
//
// The executors of package agent implement it: agent.CommandExecutor
// (Local), agent.WorkflowExecutor (Remote) and agent.NoneExecutor
// (Recorded).
type Executor interface {
	// Run hands a dispatch to an agent, after the dispatch is committed
	// and pushed; a Local executor returns when the agent is done, the
	// others as soon as the task is handed off.
	Run(ctx context.Context, t agent.Task) (agent.Outcome, error)
	// Placement is where the agents run.
	Placement() agent.Placement

	// Recover reports what this machine knows of t, which a reconciler
	// that is gone started: an agent still at work, or its finished run,
	// whose commits it pushes (never forcing).
	Recover(ctx context.Context, t agent.Task) (agent.Recovery, error)
	// Intend records that t is about to be dispatched and reserves its
	// checkout; Run takes the reservation over (intent.go).
	Intend(t agent.Task) error
	// Abandon releases the reservation of a t that Run will not take
	// over. The record is kept when keep is set (the pass ends as a kill
	// would end it, and the next pass reruns the dispatch), else removed
	// (the dispatch's push did not land).
	Abandon(t agent.Task, keep bool)

	// PreflightKind names the CLI Preflight would check for t, "" when t
	// runs none, so that a pass checks each CLI at most once; Preflight
	// checks it, returning its version line or an error about the
	// agents' environment (envfail.go).
	PreflightKind(t agent.Task) string
	Preflight(ctx context.Context, t agent.Task) (string, error)

	// Verify runs the spec's Verify commands, and replays the rows'
	// evidence commands, in a fresh checkout of t's head (exit
	// verification, L-104; evidence replay, L-105).
	Verify(ctx context.Context, t agent.Task, commands, replay []string) (agent.VerifyResult, error)

	// Prove dispatches the workflow's prove task for head, whose result
	// the pass admits (proveworkflow.go); only a Remote executor does,
	// the others answer agent.ErrNotHere.
	Prove(ctx context.Context, t agent.Task, head string) error
	// RunsTasks reports whether the executor runs a plan's tasks, each in
	// a checkout of its own, and ApplyCommit applies an admitted task
	// commit to the work branch (waves.go); an executor that does not
	// answers false and agent.ErrNotHere, and the spec is delivered by
	// its rows.
	RunsTasks(t agent.Task) bool
	ApplyCommit(ctx context.Context, in agent.ApplyInput) (string, error)
}

// Each executor of package agent is an Executor.
var (
	_ Executor = agent.CommandExecutor{}
	_ Executor = agent.WorkflowExecutor{}
	_ Executor = agent.NoneExecutor{}
)
