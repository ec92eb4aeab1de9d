package reconcile

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/internal/agent"
)

// overBudget is the verify-failed stop's detail when the evidence replay on
// head spent executor.replay_budget: the commands not run, each with the
// rows it is the evidence of, so a person can raise the budget or make the
// checks faster and then retry. Nothing is skipped silently.
func (p *passState) overBudget(e *entry, head string, r agent.VerifyResult) string {
	names := make([]string, len(r.NotRun))
	for i, c := range r.NotRun {
		names[i] = "`" + c + "`" + p.whose(e, c)
	}
	return fmt.Sprintf("the evidence replay on %s spent executor.replay_budget (%s) after %d of %d commands; not run: %s (raise executor.replay_budget or make the checks faster, then resume)",
		short(head), r.Budget, len(r.Runs), len(r.Runs)+len(r.NotRun), strings.Join(names, "; "))
}
