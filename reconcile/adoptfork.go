package reconcile

import "context"

// An adopted fork's pull request (issue 34, docs/requests.md "Adopting a
// pull request"): while the fork allows edits by maintainers, its rows,
// review rounds and verification work on the fork's head branch. The head
// repository is not recorded in the ledger: it is read from the live pull
// request the spec names, once per pass (resolvePush), because whether
// gallivant may push there is a live fact the author can withdraw at any
// time (gatekeep.DecideAdopt stops the entry then), and the ledger's
// `loop: adopt` already names the pull request it is read from.

// resolvePush reads, once per pass, the repository holding the work
// branch of an entry whose spec adopts a pull request: the fork's when
// the pull request is a fork's, else nothing to change. A pull request
// that is gone leaves the spec's repository; DecideAdopt stops the entry.
func (p *passState) resolvePush(ctx context.Context, e *entry) error {
	if e.pushRead || e.spec == nil || e.spec.PR.IsZero() || e.leg != nil || e.l == nil {
		return nil
	}
	f, _, err := p.adoptFacts(ctx, e, p.branch(e))
	if err != nil {
		return err
	}
	e.pushRead = true
	if f.Found && f.Fork() {
		e.push = f.PushRepo()
	}
	return nil
}

// pushRepo is the repository holding the entry's work branch, where its
// rows and rounds are pushed and its verification checks out: an adopted
// fork's (resolvePush), else the repository of its pull request.
func (p *passState) pushRepo(e *entry) string {
	if e.push != "" {
		return e.push
	}
	return p.repoOf(e)
}
