package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// verifier is implemented by executors that hold a checkout and can run the
// spec's Verify commands in it (exit verification, L-104).
type verifier interface {
	Verify(ctx context.Context, t Task, commands []string) (VerifyResult, error)
}

// verify applies exit verification before the pull request opens (L-104,
// L-105): the head is verified once; a failure dispatches one repair; a
// failure after it stops verify-failed. ok is true when the pull request
// may open.
func (p *passState) verify(ctx context.Context, e *entry, repo, branch, head string) (res stepResult, ok bool, err error) {
	v, isVerifier := p.Executor.(verifier)
	if !isVerifier || !p.cfg.Executor.Verify || e.l.Verification == "" || e.l.Verification == "none" || (e.spec.Coordinated() && e.leg == nil) {
		return finished, true, nil
	}
	if p.DryRun {
		if last, done := gatekeep.VerifiedAt(e.l); done && last.Head == head && last.Passed {
			return finished, true, nil
		}
		return waitFor("would run the verification `%s` on %s", e.l.Verification, short(head)), false, nil
	}
	last, done := gatekeep.VerifiedAt(e.l)
	repair := e.l.Delivery.VerifyRepair
	switch {
	case done && last.Head == head && last.Passed:
		return finished, true, nil
	case done && last.Head == head && repair == head:
		// The repair answered nothing: the same head is still failing.
		if dt := e.l.Delivery.DispatchedAt; !dt.IsZero() {
			if _, ran := p.outcomes[verifyKey(e.key())]; !ran && p.inFlight(dt) {
				return waitFor("waiting for the verification repair of %s (dispatched %s)", e.specPath, dt.Format(time.RFC3339)), false, nil
			}
		}
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification still fails on %s after one repair: `%s` (see the loop: verify commit for its output)", short(head), last.Command))
	case done && last.Head == head:
		return p.repairVerification(ctx, e, repo, branch, head, last)
	}
	t := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: e.spec.Base, DefaultBranch: e.spec.Base, Iteration: e.l.Iterations}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	r, err := v.Verify(ctx, t, p.verifyCommands(e))
	if err != nil {
		return progressed, false, err
	}
	if r.Head != head {
		// The branch moved while the checkout was made; verify again.
		return progressed, false, nil
	}
	n, c := gatekeep.Verified(e.l, head, r.Passed, r.Command, r.Tail)
	if p.tails == nil {
		p.tails = map[string]string{}
	}
	p.tails[e.key()] = r.Tail
	return progressed, false, p.apply(e, n, c)
}

func verifyKey(ledgerPath string) string { return ledgerPath + "|verify" }

// repairVerification dispatches the one verification repair (write-ahead),
// then runs the agent with a brief that quotes the failing command and the
// tail of its output.
func (p *passState) repairVerification(ctx context.Context, e *entry, repo, branch, head string, last gatekeep.Verification) (stepResult, bool, error) {
	if e.l.Delivery.VerifyRepair != "" {
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification fails on %s: `%s`, and its one repair is spent", short(head), last.Command))
	}
	n, c := gatekeep.VerifyRepairStarted(e.l, head, p.clock())
	if err := p.apply(e, n, c); err != nil {
		return progressed, false, err
	}
	if err := p.push(ctx); err != nil {
		return progressed, false, err
	}
	brief := gatekeep.VerifyBrief(gatekeep.VerifyBriefInput{Spec: e.specPath, Title: e.spec.Title, LedgerPath: e.ledgerPath, Repo: repo, Branch: branch,
		Head: head, Command: last.Command, Tail: p.tailOf(e), Ledger: e.l})
	t := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: head, Iteration: e.l.Iterations, Brief: brief, DefaultBranch: e.spec.Base}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	out, err := p.Executor.Run(ctx, t)
	p.moved(t.Repo, t.Branch)
	if err != nil {
		return progressed, false, err
	}
	p.outcomes[verifyKey(e.key())] = out
	return progressed, false, nil
}

// tailOf is the failing verification's output tail this pass saw; after a
// restart it is only in the loop: verify commit.
func (p *passState) tailOf(e *entry) string {
	if t, ok := p.tails[e.key()]; ok {
		return t
	}
	return "(the output is in the loop: verify commit of the control repository)"
}
