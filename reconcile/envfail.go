package reconcile

import (
	"context"
	"fmt"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// An agent that fails because of its environment — it cannot
// authenticate, its quota is spent, its API cannot be reached, its CLI is
// missing (agent.IsEnvironment) — would fail the same way for every entry
// until a person fixes the machine. So it is one problem of the pass, not
// a stop per entry: the dispatch whose agent failed so is withdrawn (the
// target is due again, no attempt spent), no further agent starts in the
// pass, and the next pass tries again, which clears the problem by itself
// once the agent works. The preflight (agent.Preflight) finds the cheap
// cases before any dispatch is committed.

// agentEnv is one pass's knowledge of the agents' environment.
type agentEnv struct {
	// held is the environment failure that stops this pass from starting
	// agents; nil while agents may start.
	held error
	// checked holds each preflight's result by CLI kind: at most one
	// preflight per CLI per pass.
	checked map[string]error
	// rounds holds, by entry, why its review/fix round waits for a later
	// pass after its agent lost its environment; lostRound, the entries
	// whose round lost its checkout this pass (roundenv.go).
	rounds    map[string]string
	lostRound map[string]bool
}

// agentsHeld reports whether e's dispatch must wait for a later pass
// because the agents' environment failed this pass, running the preflight
// of e's CLI the first time the pass needs it. why is the wait a person
// reads.
func (p *passState) agentsHeld(ctx context.Context, e *entry) (why string, held bool) {
	if p.env.held == nil {
		pf := p.Executor
		if p.DryRun {
			return "", false
		}
		t := agent.Task{Spec: e.specPath, Harness: e.spec.Harness}
		kind := pf.PreflightKind(t)
		if kind == "" {
			return "", false
		}
		if p.env.checked == nil {
			p.env.checked = map[string]error{}
		}
		err, done := p.env.checked[kind]
		if !done {
			var version string
			version, err = pf.Preflight(ctx, t)
			p.env.checked[kind] = err
			if err == nil {
				p.Log.Info("agent preflight", "cli", kind, "version", version)
			}
		}
		if err == nil || !agent.IsEnvironment(err) {
			// Any other error (an executor.run_as that cannot take
			// effect) is the run's to report, as the entry's stop.
			return "", false
		}
		p.holdAgents(err, "the preflight of "+kind)
	}
	return fmt.Sprintf("dispatch left for a later pass: no agent starts this pass (%v)", p.env.held), true
}

// holdAgents records the pass's one environment problem, the first time an
// agent's environment fails, and stops further agents from starting in the
// pass. where says what found it.
func (p *passState) holdAgents(err error, where string) {
	if p.env.held != nil {
		return
	}
	p.env.held = err
	p.Log.Warn("the agents' environment failed; no further agent starts this pass", "where", where, "error", err.Error())
	p.note(specs.ConfigFile, true, "%v (found by %s); no further agent starts this pass, and the dispatches it holds are due again in the next pass, which clears this problem once the agent works (docs/agents.md#when-the-agent-fails)", err, where)
}

// withdrawUnavailable takes back e's outstanding dispatch, whose agent
// failed for its environment (err) without a commit or a change: one pass
// problem, the target due again in a later pass, no attempt spent.
func (p *passState) withdrawUnavailable(e *entry, err error, log string) error {
	where := fmt.Sprintf("the agent of %s for %s (log %s)", describe(*e.l.Pending), e.specPath, log)
	p.holdAgents(err, where)
	n, c, werr := ledger.Withdraw(e.l, err.Error())
	if werr != nil {
		return werr
	}
	return p.apply(e, n, c)
}
