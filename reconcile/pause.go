package reconcile

// pausedHold reports whether a `/gallivant pause` holds the entry
// (docs/requests.md): its requests and pull-request commands were read, so
// that `/gallivant unpause` is heard, but no step runs, so no agent starts
// and no review round begins, and its pull request is left as it is. The
// pass report says who paused it from where.
func (p *passState) pausedHold(e *entry) bool {
	if e.l == nil {
		return false
	}
	pause, ok := e.l.Paused()
	if !ok {
		return false
	}
	p.note(e.specPath, false, "%s: no dispatch and no review round until `/gallivant unpause`", pause.Describe())
	return true
}
