package reconcile

import (
	"context"
	"errors"
	"fmt"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Adopting a pull request (issue 34, docs/delivery.md "Adopting a pull
// request"): a spec that names an existing pull request (`pr:`) is seeded
// against that pull request's head (`loop: adopt`), its rows are worked on
// the pull request's head branch, and once they are closed the pull
// request gets gallivant's identity block and receipt, the author's text
// kept, and is recorded (`loop: open pr`) for the normal review loop and
// gate. gatekeep.DecideAdopt says whether gallivant may; this file
// observes and performs.

// adoptFacts reads the pull request the entry's spec adopts for
// gatekeep.DecideAdopt. branch is the ledger's work branch, "" before the
// ledger is seeded.
func (p *passState) adoptFacts(ctx context.Context, e *entry, branch string) (gatekeep.AdoptFacts, githubapi.PullRequest, error) {
	named := e.spec.PR
	f := gatekeep.AdoptFacts{PR: gatekeep.PR{Repo: named.Repo, Number: named.Number}, Repo: e.spec.Repo, SpecBase: e.spec.Base, Branch: branch}
	live, err := p.GitHub.GetPullRequest(ctx, named.Repo, named.Number)
	var nf *githubapi.NotFoundError
	switch {
	case errors.As(err, &nf):
		return f, live, nil
	case err != nil:
		return f, live, err
	}
	f.Found, f.Open, f.Merged = true, live.State == gatekeep.PROpen, live.Merged
	f.BaseRef, f.HeadRef, f.HeadRepo, f.HeadSHA, f.MaintainerCanModify = live.BaseRef, live.HeadRef, live.HeadRepo, live.HeadSHA, live.MaintainerCanModify
	return f, live, nil
}

// seedAdopted seeds the ledger of a spec that adopts a pull request: on
// its head branch from its head (`loop: adopt`) when that pull request is
// in the spec's repository or a fork gallivant may push to, else as any
// seed; then, when gallivant may
// not adopt it, the entry stops naming why, so the rows are never worked
// on a branch nobody will deliver.
func (p *passState) seedAdopted(ctx context.Context, e *entry, in ledger.SeedInput) error {
	f, _, err := p.adoptFacts(ctx, e, "")
	if err != nil {
		return err
	}
	a := gatekeep.DecideAdopt(f)
	p.decided(e, f.PR.String(), gatekeep.LookAdopt, a, "")
	if p.DryRun {
		p.note(e.specPath, a.Step == gatekeep.StepStop, "would %s", a.Words())
		return nil
	}
	n, c := ledger.Seed(in)
	if f.Found && f.HeadSHA != "" && (!f.Fork() || a.Step == gatekeep.StepAdopt) {
		in.Bases = map[string]string{specs.HomeMember: f.HeadSHA}
		n, c = ledger.Adopt(in, ledger.AdoptInput{PR: ledger.PullRef{Repo: f.PR.Repo, Number: f.PR.Number}, Branch: f.HeadRef})
	}
	if err := p.apply(e, n, c); err != nil {
		return err
	}
	if a.Step == gatekeep.StepStop {
		return p.stop(e, a.Reason, a.Detail)
	}
	return nil
}

// adoptHeld is the adoption's check before a dispatch: the adopted pull
// request must still be one gallivant may push to, from the branch the
// rows are worked on. It stops the entry when not.
func (p *passState) adoptHeld(ctx context.Context, e *entry) (stepResult, bool, error) {
	if e.spec.PR.IsZero() || e.leg != nil {
		return finished, false, nil
	}
	f, _, err := p.adoptFacts(ctx, e, p.branch(e))
	if err != nil {
		return progressed, true, err
	}
	a := gatekeep.DecideAdopt(f)
	if a.Step != gatekeep.StepStop {
		return finished, false, nil
	}
	p.decided(e, f.PR.String(), gatekeep.LookAdopt, a, "")
	if p.DryRun {
		return waitFor("would %s", a.Words()), true, nil
	}
	return stopped, true, p.stop(e, a.Reason, a.Detail)
}

// adoptPR records the adopted pull request once every row is closed: its
// body gets gallivant's identity block and receipt, every other byte the
// author's, then `loop: open pr` records it with the feedback cursor at
// the adoption, so that what was said to the author before is not taken
// as feedback for gallivant.
func (p *passState) adoptPR(ctx context.Context, e *entry, of gatekeep.OpenFacts) (stepResult, error) {
	f, live, err := p.adoptFacts(ctx, e, of.Branch)
	if err != nil {
		return progressed, err
	}
	a := gatekeep.DecideAdopt(f)
	p.decided(e, f.PR.String(), gatekeep.LookAdopt, a, "")
	if a.Step == gatekeep.StepStop {
		if p.DryRun {
			return waitFor("would %s", a.Words()), nil
		}
		return stopped, p.stop(e, a.Reason, a.Detail)
	}
	if p.DryRun {
		return waitFor("would adopt %s: its identity block and receipt written into its body", f.PR), nil
	}
	if e.l.Delivery.PRText() == f.PR.String() {
		// Rows reopened under review: back to the pull request it has.
		return p.reenter(ctx, e, live)
	}
	if want := p.body(e, live.Body); want != live.Body {
		if err := p.GitHub.EditPullRequestBody(ctx, f.PR.Repo, f.PR.Number, want); err != nil {
			return p.writeFailed(ctx, e, gatekeep.WriteIdentity, f.PR.String(), err)
		}
	}
	n, c := gatekeep.Opened(e.l, gatekeep.OpenInput{PR: f.PR, Branch: of.Branch, Base: of.Base, Created: p.clock(),
		Head: p.observeHead(ctx, f.PR.Repo, live.HeadSHA), ReceiptHash: gatekeep.ReceiptHash(gatekeep.ReceiptFor(e.l, e.spec)), RecordedExists: true})
	c.Sentence = fmt.Sprintf("Adopted the pull request %s from %s into %s, which the spec names: its identity block and receipt are written into its body, the author's text kept.", f.PR, of.Branch, of.Base)
	return progressed, p.apply(e, n, c)
}
