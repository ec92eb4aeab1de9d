package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/scripted"
)

// The scripted agent lives in internal/scripted; these names keep the
// tests' scripts short.
type (
	Behavior = scripted.Behavior
	Script   = scripted.Script
)

const (
	Done       = scripted.Done
	Fail       = scripted.Fail
	Needs      = scripted.Needs
	Malformed  = scripted.Malformed
	NoCommit   = scripted.NoCommit
	TwoCommits = scripted.TwoCommits
	Dirty      = scripted.Dirty
	Lie        = scripted.Lie
	Shared     = scripted.Shared
	Baseline   = scripted.Baseline
)

// ScriptedAgent is scripted.Agent as an executor's AgentFunc.
func ScriptedAgent(script Script) agent.AgentFunc {
	run := scripted.Agent(script)
	return func(ctx context.Context, dir string, t agent.Task) error { return run(ctx, dir, t.Spec, t.Brief) }
}

func briefValues(brief string) map[string]string { return scripted.BriefValues(brief) }
