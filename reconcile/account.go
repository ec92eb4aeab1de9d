package reconcile

import "github.com/gallivant/gallivant/internal/githubapi"

// requestMeter is a GitHubClient that counts its requests.
type requestMeter interface{ Requests() githubapi.RequestStats }

// stateSaver is a GitHubClient whose conditional state outlives it.
type stateSaver interface{ SaveState() error }

// account starts counting a pass's requests; the function it returns puts
// the count in the pass's report and saves the client's conditional state,
// so that the next process starts where this pass ended.
func (r *Reconciler) account() func(rep **Report) {
	m, counts := r.o.GitHub.(requestMeter)
	var before githubapi.RequestStats
	if counts {
		before = m.Requests()
	}
	return func(rep **Report) {
		if counts && *rep != nil {
			s := m.Requests().Sub(before)
			(*rep).Requests = &s
		}
		if sv, ok := r.o.GitHub.(stateSaver); ok {
			if err := sv.SaveState(); err != nil {
				r.o.Log.Warn("github cache state not saved; the next process starts cold", "error", err.Error())
			}
		}
	}
}
