package reconcile

import (
	"context"
	"errors"

	"github.com/gallivant/gallivant/internal/agent"
)

// A dispatch is write-ahead: its `loop:` commit is pushed before the agent
// starts, so two reconcilers never both run it. A reconciler killed between
// that push and the agent's start used to leave a dispatch no cache knew
// anything about, which only a person could call over once executor.timeout
// and the grace period had passed. The intent closes that window: before the
// push, the executor writes the run record of the dispatch it is about to
// start (with no checkout HEAD yet) and holds the checkout's lock until Run
// takes it over. Each intent is a file of its own, named by the dispatch's
// dispatched-at (<checkout>.intent-<time>): until the push lands, the run
// record or intent of the dispatch the ledger still holds is its only proof
// and must survive a push that loses its race. Run removes every intent of
// the checkout once its own record is written: the dispatch it runs has
// landed and supersedes them. The next pass on this cache then finds the record with the
// lock free and no agent ever started, which proves the dispatch never ran:
// ledger.Settle reruns it at once (Observation.Orphaned), with no person and
// no wait for the timeout.

// pushIntended pushes the pass's commits, the dispatch of t among them,
// after recording t's intent with the executor (see above); a failed push
// keeps the intent, which names the dispatch's control commit.
func (p *passState) pushIntended(ctx context.Context, t agent.Task) error {
	in := p.Executor
	// The dispatch's commit is the pass's newest: it was just applied.
	t.Control = p.Store.Tip()
	if err := in.Intend(t); err != nil {
		if errors.Is(err, agent.ErrCheckoutBusy) {
			// An agent still runs in the checkout: Run reports it, as
			// the run's own error, after the push.
			return p.push(ctx)
		}
		return err
	}
	if err := p.push(ctx); err != nil {
		// Even a rejected push may have landed (a lost answer), and the
		// intent is then the only proof that its agent never ran. It is
		// kept: a pass believes an intent only when its control commit is
		// on the control branch (recoverTask).
		in.Abandon(t, true)
		return err
	}
	return nil
}

// abandon releases t's reservation when the pass ends before Run took it
// over, keeping its record as a kill would.
func (p *passState) abandon(t agent.Task) {
	p.Executor.Abandon(t, true)
}
