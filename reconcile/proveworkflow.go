package reconcile

import (
	"context"
	"fmt"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
)

// Proof through the workflow (docs/verify.md): with the workflow executor
// and no executor.proof_check, gallivant holds no checkout, so it
// dispatches the workflow to prove the exact head under review and admits
// the result the workflow pushes back, recording it as it records its own
// replay (loop: verify, ## Proof). The record of the dispatch is the
// result branch itself, created at the head before the dispatch; the
// admitted result's branch is deleted.

// provesByWorkflow reports whether the entry's pull request is proved by
// a prove dispatch of the workflow executor (gatekeep.WorkflowProves).
func (p *passState) provesByWorkflow(e *entry) bool {
	return e.leg == nil && gatekeep.WorkflowProves(p.cfg, e.spec)
}

// proveByWorkflow holds the ready label to evidence-unproven as prove
// does, through the workflow: it dispatches the prove task for head once
// (the branch gatekeep.ProveBranch(head) records it), waits for the
// workflow's result, admits it strictly and records it (loop: verify). A
// failed result is answered as a failed replay is (answerReplay). ok is
// true when every done row is proved on head.
func (p *passState) proveByWorkflow(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (stepResult, bool, error) {
	repo, head := pr.Repo, d.HeadSHA
	if head == "" || gatekeep.ProofProblem(e.l, head) == nil {
		return finished, true, nil
	}
	if p.DryRun {
		return waitFor("would prove %s through the workflow %s", short(head), p.cfg.Executor.Workflow), false, nil
	}
	if res, answered, err := p.answerReplay(ctx, e, pr, d); answered {
		return res, false, err
	}
	branch := gatekeep.ProveBranch(head)
	r, err := p.GitHub.ProveResult(ctx, repo, head)
	if err != nil {
		return progressed, false, err
	}
	if !r.Dispatched {
		res, err := p.dispatchProve(ctx, e, repo, head)
		return res, false, err
	}
	if !r.Returned(head) {
		return waitFor("waiting for the workflow %s to prove %s: its result goes to the branch %s of %s (delete that branch to dispatch it again)",
			p.cfg.Executor.Workflow, short(head), branch, repo), false, nil
	}
	refuse := func(why string) (stepResult, bool, error) {
		p.note(e.specPath, true, "the prove result on the branch %s of %s (at %s) is refused: %s; the workflow pushes what `gallivant prove --result` writes as %s there (docs/verify.md); delete the branch to dispatch it again",
			branch, repo, short(r.Tip), why, gatekeep.ProveFile)
		return waitFor("the prove result for %s was refused", short(head)), false, nil
	}
	switch {
	case r.Size < 0:
		return refuse(fmt.Sprintf("the commit holds no %s", gatekeep.ProveFile))
	case r.Data == nil:
		return refuse(fmt.Sprintf("%s is %d bytes; a prove result is at most %d bytes", gatekeep.ProveFile, r.Size, gatekeep.MaxProveResult))
	}
	res, err := gatekeep.AdmitProveResult(e.l, head, p.verifyCommands(e), r.Data)
	if err != nil {
		return refuse(err.Error())
	}
	tail := fmt.Sprintf("(the output is in the log of the workflow run that pushed %s to the branch %s of %s)", short(r.Tip), branch, repo)
	n, c := gatekeep.Verified(e.l, head, res.Passed, res.Command, tail, res.Proofs)
	if p.tails == nil {
		p.tails = map[string]string{}
	}
	p.tails[e.key()] = tail
	if err := p.apply(e, n, c); err != nil {
		return progressed, false, err
	}
	if err := p.GitHub.DeleteBranch(ctx, repo, branch); err != nil {
		p.note(e.specPath, true, "the admitted prove result's branch %s of %s is not deleted: %v", branch, repo, err)
	}
	return progressed, false, nil
}

// dispatchProve creates the result branch at head, the dispatch's record,
// then dispatches the workflow's prove task. A dispatch GitHub refused
// takes the branch back, so that the next pass dispatches again.
func (p *passState) dispatchProve(ctx context.Context, e *entry, repo, head string) (stepResult, error) {
	branch := gatekeep.ProveBranch(head)
	if p.Executor.Placement() != agent.Remote {
		// Fail closed: without the dispatch nothing proves the head.
		p.note(e.specPath, true, "executor.kind is workflow but this reconciler's executor cannot dispatch the workflow to prove %s; nothing proves the rows there", short(head))
		return waitFor("nothing can prove %s", short(head)), nil
	}
	if err := p.GitHub.CreateBranch(ctx, repo, branch, head); err != nil {
		return progressed, err
	}
	t := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: p.branch(e), Iteration: e.l.Iterations, DefaultBranch: e.spec.Base}
	if err := p.Executor.Prove(ctx, t, head); err != nil {
		if derr := p.GitHub.DeleteBranch(ctx, repo, branch); derr != nil {
			return progressed, fmt.Errorf("%w; and the branch %s it was to fill is not deleted: %v", err, branch, derr)
		}
		return progressed, err
	}
	return waitFor("dispatched the workflow %s to prove %s; its result goes to the branch %s of %s", p.cfg.Executor.Workflow, short(head), branch, repo), nil
}
