package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// closeRowsStep closes a waves entry's rows by their evidence replayed on
// the work branch's head once its last wave is in (docs/plans.md "Wave
// execution"): ledger.CloseChecks names what to replay, the executor
// replays it in one fresh checkout as it replays any row's evidence, and
// `loop: close rows by replay` records the runs (ledger.CloseByReplay).
// handled is false when nothing is to replay here — gallivant does not
// verify this entry, nothing is due, or nothing ran — and the rows go to
// the row loop.
func (p *passState) closeRowsStep(ctx context.Context, e *entry) (res stepResult, handled bool, err error) {
	if !p.proves(e) {
		return finished, false, nil
	}
	checks := ledger.CloseChecks(e.l, e.spec, p.repo.PlanFor(e.specPath))
	if len(checks) == 0 {
		return finished, false, nil
	}
	repo, _ := p.member(e, specs.HomeMember)
	branch := p.branch(e)
	p.moved(repo, branch)
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil || !ok {
		return finished, false, err
	}
	t := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: e.spec.Base, Head: head, DefaultBranch: e.spec.Base, Iteration: e.l.Iterations}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	replay := make([]string, len(checks))
	plan := make([]gatekeep.ReplayCheck, len(checks))
	for i, c := range checks {
		replay[i] = c.Command
		plan[i] = gatekeep.ReplayCheck{Command: c.Command, Rows: c.Rows}
	}
	r, err := p.Executor.Verify(ctx, t, nil, replay)
	if err != nil {
		return progressed, true, err
	}
	if r.Unsupported {
		return finished, false, nil
	}
	if r.Head != head {
		// The branch moved while the checkout was made; replay again.
		return progressed, true, nil
	}
	// Runs stop at the first that fails or selects no test; the rows of
	// the commands after it are replayed by the next step.
	proofs := proofsOf(head, plan, r.Runs)
	if len(proofs) == 0 {
		// Nothing finished (the replay budget was spent on the first
		// command): the row loop delivers the rows.
		return finished, false, nil
	}
	n, c, err := ledger.CloseByReplay(e.l, head, proofs)
	if err != nil {
		return progressed, true, err
	}
	return progressed, true, p.apply(e, n, c)
}
