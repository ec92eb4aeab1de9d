package agent

import (
	"context"

	"github.com/gallivant/gallivant/specs"
)

// PreflightKind names what Preflight checks for t: the preset kind whose
// CLI would run it, "" when t runs no preset CLI (kind command, or an
// in-process Agent), so that a pass checks each CLI at most once.
func (e CommandExecutor) PreflightKind(t Task) string {
	if e.Agent != nil {
		return ""
	}
	if k := e.kind(t); isPreset(k) {
		return k
	}
	return ""
}

// Preflight is the cheap check of the CLI that would run t, as the agent's
// user with the agent's environment (agent.Preflight): the binary on the
// agent's PATH, its version, and for Claude Code `claude auth status`. It
// returns the version line, or a Failure about the agent's environment; a
// task that runs no preset CLI passes with "". An executor.run_as that
// cannot take effect is returned as the error Run would report.
func (e CommandExecutor) Preflight(ctx context.Context, t Task) (string, error) {
	kind := e.PreflightKind(t)
	if kind == "" || kind == specs.ExecutorCommand {
		return "", nil
	}
	cred, home, err := e.credential()
	if err != nil {
		return "", err
	}
	return Preflight(ctx, kind, e.agentEnv(home), cred)
}
