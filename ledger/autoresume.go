package ledger

// DocumentResume is why a stop whose condition was a document no longer
// holds, the stops the loop clears by itself: the spec exists again, is
// valid again, or its contract (contract, its fingerprint now) is the
// approved one again. It is "" when the ledger is not stopped, or stopped
// for another reason, or the condition still holds.
func DocumentResume(l *Ledger, contract string) string {
	reason, _, stopped := l.Stop()
	if !stopped {
		return ""
	}
	switch reason {
	case StopSpecGone:
		return "the spec exists again"
	case StopSpecIllegal:
		return "the spec is valid again"
	case StopSpecChanged:
		if l.Delivery.Contract == contract {
			return "the spec's contract is the approved one again"
		}
	}
	return ""
}

// ResumeAsked reports whether the ledger's requests hold a well-formed
// `resume` line.
func ResumeAsked(l *Ledger) bool {
	for _, rs := range l.RequestStates() {
		if rs.Err == nil && rs.Request.Kind == RequestResume {
			return true
		}
	}
	return false
}
