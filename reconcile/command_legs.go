package reconcile

import "github.com/gallivant/gallivant/ledger"

// commandPRs lists the pull requests whose commands steer the entry: its
// own, then, for a coordinated entry, each member's (a leg's, or home's
// when it owns rows), by member name. A command on any of them is a
// request on the whole entry, as a line under `## Requests` is.
func commandPRs(l *ledger.Ledger) []ledger.PullRef {
	var out []ledger.PullRef
	if l.Delivery == nil {
		return nil
	}
	if !l.Delivery.PR.IsZero() {
		out = append(out, l.Delivery.PR)
	}
	for _, m := range l.Delivery.Legs() {
		if pr := l.Delivery.PerMember[m].PR; !pr.IsZero() && pr != l.Delivery.PR {
			out = append(out, pr)
		}
	}
	return out
}
