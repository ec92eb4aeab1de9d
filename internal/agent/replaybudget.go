package agent

import (
	"context"
	"fmt"
	"io"
	"slices"
)

// replayBudget returns the context one Verify's evidence replay runs
// under: ctx bounded by ReplayBudget from now, or ctx itself without one.
func (e CommandExecutor) replayBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.ReplayBudget <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, e.ReplayBudget)
}

// overBudget ends a Verify whose evidence replay spent ReplayBudget with
// notRun still to finish: never a pass, and every command named.
func (e CommandExecutor) overBudget(res VerifyResult, log io.Writer, notRun []string) VerifyResult {
	fmt.Fprintf(log, "# gallivant: executor.replay_budget (%s) spent; not run: %q\n", e.ReplayBudget, notRun)
	res.Passed = false
	res.OverBudget = true
	res.Budget = e.ReplayBudget
	res.NotRun = slices.Clone(notRun)
	res.Command = notRun[0]
	res.Tail = fmt.Sprintf("(executor.replay_budget, %s, was spent before %d of %d evidence commands finished)", e.ReplayBudget, len(notRun), len(res.Runs)+len(notRun))
	return res
}
