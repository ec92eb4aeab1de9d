package ledger

import (
	"fmt"
	"strings"
	"time"
)

// maxUnavailable bounds the recorded reason: untrusted CLI text, kept to
// one readable line.
const maxUnavailable = 400

// Withdraw takes back the outstanding dispatch when its agent could not
// run for a reason about its environment, not about the entry (why, the
// typed failure's message): no commit reached the work branch and the
// checkout was left clean. The tuple and what belongs to it are cleared,
// so the target is due again in a later pass; no row's attempts change,
// the escalation model of an escalated attempt stays for the dispatch that
// replaces it, and the iteration stays counted (it was dispatched). The
// reason is kept under `unavailable:` until the next dispatch.
func Withdraw(l *Ledger, why string) (*Ledger, Commit, error) {
	if l.Pending == nil {
		return nil, Commit{}, ErrNotPending
	}
	target := l.Pending.Target
	n := l.Clone()
	n.Pending = nil
	n.delivery().DispatchedAt = time.Time{}
	n.delivery().Reruns = 0
	why = unavailable(why)
	n.delivery().Unavailable = fmt.Sprintf("iteration %d: %s", l.Iterations, why)
	return n, Commit{
		Subject: Subject{Kind: KindWithdraw, Row: target}.String(),
		Sentence: fmt.Sprintf("Withdrew the dispatch of %s (iteration %d): %s; it is dispatched again in a later pass without a new attempt.",
			describeTarget(target), l.Iterations, why),
	}, nil
}

// unavailable is the recorded reason of a withdrawal: the typed failure's
// message (untrusted CLI text) on one line, bounded, never empty.
func unavailable(why string) string {
	why = strings.TrimSuffix(strings.TrimSpace(cleanEvidence(why)), ".")
	if r := []rune(why); len(r) > maxUnavailable {
		why = string(r[:maxUnavailable]) + "…"
	}
	if why == "" {
		why = "the agent could not run"
	}
	return why
}
