package ledger

import (
	"errors"
	"fmt"
	"time"
)

// Observation is what the reconciler saw of an outstanding dispatch.
type Observation struct {
	// Commits are the work branch commits after the pending SHA, oldest first.
	Commits []Return
	// RunOver reports that the agent's run has ended: a synchronous
	// executor returned, or an asynchronous one exceeded executor.timeout.
	RunOver bool
	// Dirty reports that a local executor's checkout was left with
	// uncommitted changes; nothing was pushed.
	Dirty bool
	// DirtyWhat says what was left dirty and why, when known: the
	// uncommitted paths and the executor's error (a result file it could
	// not use), for the boundary stop a person reads.
	DirtyWhat string
	// Orphaned reports that the run ended unseen: no process watched its
	// agent end, and the executor's run record proves it ended (killed
	// with its reconciler) without a commit.
	Orphaned bool
	// Now is when the observation was made, for a rerun's dispatched-at.
	Now time.Time
}

// Settle decides what an observation means for the outstanding dispatch
// (docs/ledger.md "Settling a dispatch"): wait (ok false), stop `interrupted`
// or `boundary`, admit the one return, repair a row miss, or stop
// `seed-refused` on a seed miss; an orphaned run that never answered is
// rerun once (Rerun) before it stops `interrupted`. The tuple stays at interrupted and boundary
// stops (L-60); `resume` decides what happens to it.
func Settle(l *Ledger, obs Observation) (*Ledger, Commit, bool, error) {
	if l.Pending == nil {
		return nil, Commit{}, false, ErrNotPending
	}
	i := l.Iterations - 1
	// A dirty tree left by an orphaned run with nothing committed is what
	// the kill of its agent left half done (a kill between `git add` and
	// `git commit`, found by the crash suite), not a return: it is rerun
	// on a fresh checkout like any orphan, within the same budget.
	killedHalfway := obs.Orphaned && len(obs.Commits) == 0 && l.Delivery.Reruns < MaxReruns
	switch {
	case obs.Dirty && !killedHalfway:
		why := fmt.Sprintf("iteration %d left the tree dirty", i)
		if obs.DirtyWhat != "" {
			why += ": " + obs.DirtyWhat
		}
		n, c := Stop(l, StopBoundary, why, l.Pending.Target)
		return n, c, true, nil
	case len(obs.Commits) == 0 && !obs.RunOver:
		return nil, Commit{}, false, nil
	case len(obs.Commits) == 0 && obs.Orphaned && l.Delivery.Reruns < MaxReruns:
		// Its agent provably never answered: running the same dispatch
		// again once needs no person (issue 12).
		n, c := Rerun(l, obs.Now)
		return n, c, true, nil
	case len(obs.Commits) == 0:
		n, c := Stop(l, StopInterrupted, fmt.Sprintf("iteration %d ended without a return commit", i), l.Pending.Target)
		return n, c, true, nil
	case len(obs.Commits) > 1:
		n, c := Stop(l, StopBoundary, fmt.Sprintf("iteration %d added %d commits", i, len(obs.Commits)), l.Pending.Target)
		return n, c, true, nil
	}
	ret := obs.Commits[0]
	n, c, err := Admit(l, ret)
	var miss *Miss
	if !errors.As(err, &miss) {
		return n, c, err == nil, err
	}
	if l.Pending.Target == SeedTarget {
		cleared := l.Clone()
		cleared.settled()
		n, c := Stop(cleared, StopSeedRefused, fmt.Sprintf("iteration %d seed return %s refused: %s", i, short(ret.SHA), miss.Reason), SeedTarget)
		c.Trailers = append(c.Trailers, Trailer{TrailerHead, ret.SHA})
		return n, c, true, nil
	}
	n, c, err = Repair(l, miss.Reason, ret.SHA)
	return n, c, err == nil, err
}
