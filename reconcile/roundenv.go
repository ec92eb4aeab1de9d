package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
)

// A review/fix round's agent can fail for the machine, not for the entry,
// exactly as a row dispatch's can (envfail.go, lost.go). Such a round is
// not the entry's stop: it is settled as a round that did not run
// (gatekeep.RoundNotRun, `loop: empty round`: no round is charged, the
// feedback and checks-head cursors stay before what it was to answer,
// nothing is announced on the pull request), so the round is due again:
//
//   - an environment failure (agent.IsEnvironment) is the pass's one
//     problem and holds every further agent of the pass (holdAgents); the
//     next pass runs the round once the agent works;
//   - a removed checkout is rerun at once in a fresh checkout, once per
//     pass: a second loss in the same pass waits for the next one;
//   - a full disk leaves the round for the next pass.
//
// `loop: withdraw` does not fit: it takes back a row's outstanding
// dispatch (its tuple), and a round has none.

// maxRoundCause bounds the cause quoted in a round's record.
const maxRoundCause = 300

// roundUnrun settles round k of pr, whose agent's run (out) failed for its
// environment, as a round that did not run, and reports whether it did;
// any other failure is the caller's to stop.
func (p *passState) roundUnrun(e *entry, pr gatekeep.PR, k int, out agent.Outcome) (bool, error) {
	var cause string
	if lost, ok := agent.AsLost(out.Err); ok {
		p.noteLoss(e, lost, out.Log)
		cause = "its run lost its environment (" + lost.Cause() + ")"
		if p.env.lostRound == nil {
			p.env.lostRound = map[string]bool{}
		}
		if lost.Kind == agent.LossDiskFull || p.env.lostRound[e.key()] {
			// A full disk would fail the rerun the same way, and a
			// checkout lost twice in a pass cannot loop here: the next
			// pass runs the round.
			p.holdRound(e, fmt.Sprintf("round %d of %s left for the next pass: its run lost its environment (%s)", k, pr, lost.Cause()))
		}
		p.env.lostRound[e.key()] = true
	} else if agent.IsEnvironment(out.Err) {
		p.holdAgents(out.Err, fmt.Sprintf("the agent of round %d of %s for %s (log %s)", k, pr, e.specPath, out.Log))
		cause = "its agent failed for its environment (" + out.Err.Error() + ")"
	} else {
		return false, nil
	}
	// The cause quotes the CLI's text: one line, bounded.
	cause = strings.Join(strings.Fields(cause), " ")
	if r := []rune(cause); len(r) > maxRoundCause {
		cause = string(r[:maxRoundCause]) + "…"
	}
	n, c := gatekeep.RoundNotRun(e.l, pr)
	c.Sentence = fmt.Sprintf("Round %d of %s did not run: %s; no round is charged, its feedback stays new, and the round runs again.", k, pr, cause)
	return true, p.apply(e, n, c)
}

// holdRound keeps e's round from starting again this pass; why is the
// wait a person reads.
func (p *passState) holdRound(e *entry, why string) {
	if p.env.rounds == nil {
		p.env.rounds = map[string]string{}
	}
	p.env.rounds[e.key()] = why
}

// roundHeld reports whether e's next round must wait for a later pass:
// the agents' environment failed this pass (agentsHeld, which runs the
// preflight of e's CLI the first time the pass needs it), or e's round
// lost its environment in a way a rerun in this pass would repeat.
func (p *passState) roundHeld(ctx context.Context, e *entry) (why string, held bool) {
	if _, held := p.agentsHeld(ctx, e); held {
		return fmt.Sprintf("round %d left for a later pass: no agent starts this pass (%v)", e.l.Delivery.Round+1, p.env.held), true
	}
	if why, held := p.env.rounds[e.key()]; held {
		return why, true
	}
	return "", false
}
