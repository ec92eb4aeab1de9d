package audit

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// replayWithdraw proves `loop: withdraw <target>`: the outstanding
// dispatch of that target is taken back (its agent could not run in its
// environment) and nothing else changes; the reason, which the control
// repository cannot know, is borrowed from the child once it names the
// withdrawn iteration.
func replayWithdraw(s *step) []outcome {
	if s.parent.Pending == nil {
		return refuse(SectionHeader, "no dispatch is outstanding to withdraw")
	}
	if s.parent.Pending.Target != s.sub.Row {
		return refuse(SectionSubject, "the outstanding dispatch is %s, not the one the subject withdraws", s.parent.Pending)
	}
	prefix := fmt.Sprintf("iteration %d: ", s.parent.Iterations)
	if got := s.child.Delivery.Unavailable; !strings.HasPrefix(got, prefix) {
		return refuse(SectionDelivery, "%s: must begin %q (the withdrawn iteration), got %q", ledger.KeyUnavailable, prefix, got)
	}
	want, c, err := ledger.Withdraw(s.parent, "")
	if err != nil {
		return refuse(SectionHeader, "%v", err)
	}
	want.Delivery.Unavailable = s.child.Delivery.Unavailable
	return one(want, c)
}
