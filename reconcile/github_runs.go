package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
)

// GitHub holds the workflow runs of some pull requests (from a first-time
// contributor, from a fork, or by the repository's approval policy) until
// a maintainer approves them: such a run is listed completed with the
// conclusion action_required and creates no check run, so the head looks
// exactly like a head whose CI never started. The checks-silent stop asks
// once, when it is decided, so that its detail names the real cause.

// heldRunsShown bounds how many workflow names a stop detail lists.
const heldRunsShown = 5

// checksSilentDetail is the detail of a checks-silent stop on head: the
// generic cause, or, when GitHub holds workflow runs on the head for
// approval, how many and the fix. It costs one request and is called only
// when the stop is decided. A failed read never blocks the stop: the
// generic detail stands.
func (p *passState) checksSilentDetail(ctx context.Context, e *entry, pr gatekeep.PR, head string) string {
	silent := fmt.Sprintf("no check run or status reported on %s of %s in %s (checks.wait)", short(head), pr, p.cfg.Checks.Wait)
	held, err := p.GitHub.HeldWorkflowRuns(ctx, pr.Repo, head)
	if err != nil {
		p.Log.Warn("reading held workflow runs failed; the checks-silent stop keeps its generic reason", "spec", e.specPath, "pr", pr.String(), "error", err.Error())
	}
	if err != nil || len(held) == 0 {
		return silent + "; a pull request opened with GitHub's default Actions token starts no workflows"
	}
	names := held
	if len(names) > heldRunsShown {
		names = append(names[:heldRunsShown:heldRunsShown], fmt.Sprintf("and %d more", len(held)-heldRunsShown))
	}
	runs := "workflow runs are"
	if len(held) == 1 {
		runs = "workflow run is"
	}
	return fmt.Sprintf("%s: %d %s held action_required on %s (%s), waiting for a maintainer's approval; "+
		"a maintainer approves them in the repository's Actions tab, or gallivant authenticates as a GitHub App or with a token whose pull requests run workflows (docs/github.md)",
		silent, len(held), runs, short(head), oneLine(strings.Join(names, ", ")))
}
