package reconcile

// account starts counting a pass's requests; the function it returns puts
// the count in the pass's report and saves the client's conditional state,
// so that the next process starts where this pass ended.
func (r *Reconciler) account() func(rep **Report) {
	before := r.o.GitHub.Requests()
	return func(rep **Report) {
		if *rep != nil {
			s := r.o.GitHub.Requests().Sub(before)
			(*rep).Requests = &s
		}
		if err := r.o.GitHub.SaveState(); err != nil {
			r.o.Log.Warn("github cache state not saved; the next process starts cold", "error", err.Error())
		}
	}
}
