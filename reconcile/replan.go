package reconcile

import "github.com/gallivant/gallivant/internal/agent"

// A pass that loses the push race re-plans from the new control head
// (Reconciler.Pass). The attempt after it is a new look at the control
// repository, but some of what the attempt before observed on GitHub
// still holds within the one Pass: base branches, which only people and
// GitHub move and which a pass reads once; and that the work branches the
// attempt created exist (on the commit it created them on, unless it moved
// them), so that creating one again on that commit asks nothing when the
// new attempt's snapshot of the repository's work branches (one read per
// repository, as any attempt's first look at a work branch) still has it
// there: another reconciler's agent may have pushed to it since. Reading those again cost a request each per re-plan (issue 33:
// two shard passes seeding at once read a base up to three times, and
// re-created every branch a lost attempt had created).

// replan carries an attempt's observer to the next attempt of one Pass.
type replan struct {
	prev *observer
}

// inherit fills o, a new attempt's observer, from the attempt before.
func (c *replan) inherit(o *observer) {
	if c == nil {
		return
	}
	if prev := c.prev; prev != nil {
		prev.mu.Lock()
		for k, b := range prev.bases {
			o.bases[k] = b
		}
		for k, sha := range prev.created {
			o.recreated[k] = sha
		}
		prev.mu.Unlock()
	}
	c.prev = o
}

// A pass that loses the race for the control branch re-plans from the new
// head (Pass). The outcomes of the agents it ran survive the re-plan, but
// settling a run consumes its outcome: when that settlement (a stop, an
// admitted return) is among the commits the rejected push lost, the
// re-planned attempt must settle the run again from the same outcome. The
// executor removed the run's record when the run ended, so without it the
// attempt would wait for a return that never comes, and a later pass
// would stop the entry `interrupted`, which nobody can clear by itself.

// consumedRun is an outcome an attempt's settling took out of the pass's
// outcomes: key and ledger name it, at is how many transitions the
// attempt had made when it did.
type consumedRun struct {
	key, ledger string
	out         agent.Outcome
	at          int
}

// consume records that settling took out the outcome of key.
func (p *passState) consume(key, ledger string, out agent.Outcome) {
	p.rep.consumed = append(p.rep.consumed, consumedRun{key: key, ledger: ledger, out: out, at: len(p.rep.Transitions)})
}

// restoreConsumed puts back into outcomes each outcome the attempt of rep
// consumed whose settlement did not reach the control branch: no
// transition of its ledger after the consumption is among the pushed
// ones. An outcome the pass holds again under the same key (a rerun that
// ran) is left as it is.
func restoreConsumed(outcomes map[string]agent.Outcome, rep *Report) {
	for _, c := range rep.consumed {
		landed := false
		for i := c.at; i < rep.pushed && i < len(rep.Transitions); i++ {
			if rep.Transitions[i].Ledger == c.ledger {
				landed = true
				break
			}
		}
		if _, again := outcomes[c.key]; !landed && !again {
			outcomes[c.key] = c.out
		}
	}
	rep.consumed = nil
}
