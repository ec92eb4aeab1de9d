package reconcile

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
