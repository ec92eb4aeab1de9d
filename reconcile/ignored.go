package reconcile

import "github.com/gallivant/gallivant/gatekeep"

// noteIgnored puts feedback from people who may not steer the loop into
// the pass report, once per entry and pass, and nowhere else: it makes no
// control commit (issue 29, docs/delivery.md "Who steers"), so a stranger
// can neither append to the audit trail nor make gallivant spend a push.
func (p *passState) noteIgnored(e *entry, pr gatekeep.PR, fs []gatekeep.Finding) {
	msg := gatekeep.IgnoredNote(pr, fs)
	if msg == "" {
		return
	}
	p.noteOnce(e.specPath, false, "%s", msg)
}
