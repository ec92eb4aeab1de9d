package audit

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// replayWithdrawTask proves `loop: withdraw task <id>`: the parent's task
// was pending, the child's `unavailable:` names the withdrawn iteration,
// and the child is ledger.WithdrawTask of the parent (the reason is the
// agent's words, which the checker takes from the child).
func replayWithdrawTask(s *step) []outcome {
	id := s.sub.Task
	if _, ok := s.parent.Task(id); !ok {
		return refuse(SectionTasks, "the ledger lists no task %s", id)
	}
	prefix := fmt.Sprintf("iteration %d: ", s.parent.Iterations)
	if got := s.child.Delivery.Unavailable; !strings.HasPrefix(got, prefix) {
		return refuse(SectionDelivery, "%s: must begin %q (the withdrawn iteration), got %q", ledger.KeyUnavailable, prefix, got)
	}
	want, c, err := ledger.WithdrawTask(s.parent, id, "")
	if err != nil {
		return refuse(SectionTasks, "%v", err)
	}
	want.Delivery.Unavailable = s.child.Delivery.Unavailable
	return one(want, c)
}
