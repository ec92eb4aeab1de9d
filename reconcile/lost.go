package reconcile

import (
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// A run that lost its environment — the disk filled up, or its checkout
// was removed under it (agent.LostError) — failed for the machine, not for
// the entry, and needs no person: the dispatch is rerun like an orphaned
// run (`loop: rerun`, within ledger.MaxReruns), never stopped
// `harness-error`, and the pass notes one problem naming the cause.
//
// A removed checkout is rerun at once: the executor prepares a fresh one.
// A full disk would fail the rerun the same way, so the dispatch waits for
// the next pass, which finds the lost run's record (or the intent of a run
// that never started) and reruns it; each rerun the disk fails again
// spends one of the dispatch's reruns.

// lostRun notes the loss of e's outstanding dispatch's run and reports
// whether the dispatch waits for a later pass (wait); otherwise the caller
// settles it as an orphaned run.
func (p *passState) lostRun(e *entry, lost *agent.LostError, log string) (res stepResult, wait bool) {
	p.noteLoss(e, lost, log)
	if lost.Kind == agent.LossDiskFull {
		return waitFor("%s lost its run (%s); the next pass reruns it", describe(*e.l.Pending), lost.Cause()), true
	}
	return stepResult{}, false
}

// noteLoss notes the pass's one problem for lost, the loss of the run of
// e's dispatch or round, once per cause.
func (p *passState) noteLoss(e *entry, lost *agent.LostError, log string) {
	msg := lost.Cause() + "; the runs it failed are rerun, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"
	if lost.Kind == agent.LossDiskFull {
		msg = lost.Cause() + "; the runs it failed are rerun by the next pass once there is room, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"
	}
	p.Log.Warn("an agent run lost its environment", "spec", e.specPath, "error", lost.Error(), "log", log)
	p.noteOnce(specs.ConfigFile, true, "%s", msg)
}

// lostRerun rewrites the sentence of a rerun that answers a lost run, so
// that the record says why the dispatch runs again.
func lostRerun(c ledger.Commit, lost *agent.LostError) ledger.Commit {
	c.Sentence = "The run of the outstanding dispatch lost its environment (" + lost.Cause() + ") without a return; the same dispatch runs again without a new count."
	return c
}
