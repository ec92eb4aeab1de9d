package reconcile

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/internal/wait"
	"github.com/gallivant/gallivant/ledger"
)

// replanWait is how long an attempt waits before re-planning after its
// retries-th rejected push: a random spread, growing with the retries, so
// that reconcilers racing for the branch do not collide again.
func replanWait(retries int) time.Duration {
	return time.Duration(20+rand.IntN(100<<min(retries, 5))) * time.Millisecond
}

// deliveredTo is what Notify tried for one ledger: what the ledger owed
// and how each try went.
type deliveredTo struct {
	path     string
	attempts []ledger.NotifyAttempt
}

// recordNotified commits the outcome of Notify's tries through the pass's
// own machinery: begin loads the control branch at its head, record
// commits each ledger's `loop: notify` on the ledger as it is there, and
// push publishes with compare-and-swap. A rejected push (another writer
// moved the branch since the tries began) loads the new head and records
// again, as a pass re-plans, up to PushAttempts times; nothing is
// delivered again and nothing is force-pushed. A try whose notification
// the new head no longer owes as it was tried (another reconciler recorded
// it, or tried it again) is not recorded: ledger.Notified matches tries by
// the owed token, try count included.
func (r *Reconciler) recordNotified(ctx context.Context, done []deliveredTo) error {
	if len(done) == 0 {
		return nil
	}
	for retries := 0; ; retries++ {
		err := r.recordNotifiedOnce(ctx, done)
		if !errors.Is(err, store.ErrPushRejected) || retries+1 >= r.o.PushAttempts {
			return err
		}
		d := replanWait(retries + 1)
		r.o.Log.Info("control branch moved; recording the notifications again", "attempt", retries+2, "wait", d.String())
		if err := wait.For(ctx, d); err != nil {
			return err
		}
	}
}

// recordNotifiedOnce is one attempt of recordNotified.
func (r *Reconciler) recordNotifiedOnce(ctx context.Context, done []deliveredTo) error {
	p, err := r.begin(ctx, nil)
	if err != nil {
		return err
	}
	byPath := map[string]*entry{}
	for _, e := range p.entries() {
		byPath[e.ledgerPath] = e
	}
	for _, d := range done {
		e := byPath[d.path]
		if e == nil || e.l == nil {
			continue // the ledger is gone, or no longer parses
		}
		n, c := ledger.Notified(e.l, d.attempts)
		if string(ledger.Format(n)) == string(ledger.Format(e.l)) {
			continue // none of the tries is owed there any more
		}
		if err := p.record(e, n, c); err != nil {
			return err
		}
	}
	return p.push(ctx)
}
