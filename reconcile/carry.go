package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// replayPlan plans proving head (docs/verify.md "Carried proof"): the rows
// to replay, and the proofs carried from the earlier heads whose diff to
// head GitHub's compare answers in full. A head that head does not descend
// from, or a diff of GitHub's cap of files or more, is unknown: its rows
// re-run.
func (p *passState) replayPlan(ctx context.Context, e *entry, repo, head string) (gatekeep.ReplayPlan, error) {
	if len(gatekeep.ReplayChecks(e.l, head)) == 0 {
		return gatekeep.ReplayPlan{}, nil
	}
	diffs := gatekeep.Diffs{}
	for _, from := range gatekeep.CarryFrom(e.l, head) {
		cmp, err := p.GitHub.Compare(ctx, repo, from, head)
		if err != nil {
			return gatekeep.ReplayPlan{}, err
		}
		if cmp.Status != githubapi.CompareAhead || cmp.Files >= githubapi.CompareFilesCap {
			continue
		}
		diffs[from] = cmp.Paths
	}
	return gatekeep.PlanReplay(e.l, head, diffs), nil
}
