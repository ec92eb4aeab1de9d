package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// A coordinated spec delivers one pull request per member that owns rows
// (each leg, and home when an AC is in no leg's scope), each from the work
// branch of the member's repository into the spec's base. Every step of a
// member's delivery is the single-spec step of delivery.go run on a leg
// entry: the entry's ledger as that member sees it (ledger.LegView), whose
// transitions are folded back into the entry's ledger and committed there
// (applyLeg). What is coordinated lives here and in gatekeep/legs.go: the
// members are labelled ready together, unlabelled together, and the entry
// is done when every member's pull request is merged.

// legOf marks an entry as one member's view of a coordinated entry.
type legOf struct {
	parent  *entry
	name    string
	repo    string
	verify  []string
	members []string
	// labelNow lets ready() write the label: every member passed.
	labelNow bool
}

// key names the entry in a pass's per-entry maps (outcomes, tails): the
// ledger path, and the member for a leg entry.
func (e *entry) key() string {
	if e.leg != nil {
		return e.ledgerPath + "#" + e.leg.name
	}
	return e.ledgerPath
}

// repoOf is the repository an entry's pull request is in.
func (p *passState) repoOf(e *entry) string {
	if e.leg != nil {
		return e.leg.repo
	}
	return e.spec.Repo
}

// verifyCommands are the commands exit verification runs: the spec's
// Verify section, or for a leg its contract's `- verification:` command.
func (p *passState) verifyCommands(e *entry) []string {
	if e.leg != nil {
		return e.leg.verify
	}
	return e.spec.Verify
}

// deliveringMembers are the members that get a pull request of their own.
func deliveringMembers(e *entry) []string { return gatekeep.DeliveringMembers(e.l, e.spec) }

// legEntry builds member m's view of a coordinated entry.
func (p *passState) legEntry(e *entry, m string, members []string) *entry {
	le := &entry{specPath: e.specPath, spec: e.spec, ledgerPath: e.ledgerPath, leg: &legOf{parent: e, name: m, members: members}}
	le.leg.repo, _ = e.spec.MemberRepo(m)
	le.leg.verify = gatekeep.LegVerification(e.spec, m)
	le.l = gatekeep.LegViewFor(e.l, e.spec, m)
	return le
}

// applyLeg folds a member's transition into the entry's ledger and commits
// it there. A subject that names no pull request names the leg, so that
// `loop: done` of one leg is never read as the entry's; a stop or a resume
// is the entry's own and keeps its subject (its detail names the leg):
// ledger.Subject.String decides.
func (p *passState) applyLeg(e *entry, n *ledger.Ledger, c ledger.Commit) error {
	parent := e.leg.parent
	merged := ledger.WithLeg(parent.l, e.leg.name, n, e.leg.members)
	s, err := ledger.ParseSubject(c.Subject)
	if err != nil {
		return fmt.Errorf("leg %s: %w", e.leg.name, err)
	}
	s.Leg = e.leg.name
	c.Subject = s.String()
	if err := p.apply(parent, merged, c); err != nil {
		return err
	}
	e.l = gatekeep.LegViewFor(parent.l, e.spec, e.leg.name)
	return nil
}

// passedKey records, for the pass, that a member's pull request passed its
// gate on a head (judged together: labelled once every member has).
func passedKey(e *entry) string { return e.key() }

// deliverLegs runs the pull-request phases of a coordinated entry: first
// the together rules (a member back in review unlabels the others), then
// each member's own step in membership order, then the ready label on
// every member once all of them passed their gate.
func (p *passState) deliverLegs(ctx context.Context, e *entry) (stepResult, error) {
	members := deliveringMembers(e)
	if first, second, repo, shared := gatekeep.SharedRepo(e.spec, members); shared {
		// One work branch cannot carry two pull requests: say so
		// every pass rather than open one and call the other foreign.
		return waitFor("legs %s and %s are both in %s, so they share one work branch; coordinated delivery needs each leg in its own repository (docs/delivery.md) — no pull request is opened", first, second, repo), nil
	}
	if back := gatekeep.UnreadyTogether(e.l, members); len(back) > 0 {
		le := p.legEntry(e, back[0], members)
		pr, _ := prOf(le.l)
		return p.unready(ctx, le, pr, le.l.Delivery.Head, "another leg of "+e.specPath+" is back in review; its legs are ready together or not at all")
	}
	if p.legPassed == nil {
		p.legPassed = map[string]string{}
	}
	var waits []string
	for _, m := range members {
		res, err := p.legStep(ctx, p.legEntry(e, m, members), m)
		switch {
		case err != nil || res.kind == stepProgressed || res.kind == stepStopped:
			return res, err
		case res.kind == stepWaiting:
			waits = append(waits, fmt.Sprintf("leg %s: %s", m, res.why))
		}
	}
	passed := p.legsPassed(e, members)
	if gatekeep.ReadyTogether(e.l, members, passed) {
		return p.readyLegs(ctx, e, members, passed)
	}
	if len(waits) == 0 {
		return finished, nil
	}
	return waitFor("%s", strings.Join(waits, "; ")), nil
}

// legStep is one member's own step: open its pull request (or say there
// is nothing to deliver when every row is cut), or review it; a member past
// review has none.
func (p *passState) legStep(ctx context.Context, le *entry, m string) (stepResult, error) {
	switch le.l.Phase() {
	case ledger.PhaseImplement, ledger.PhaseVerify:
		if gatekeep.AllCut(le.l) {
			return p.nothingToDeliver(le, fmt.Sprintf("every row of leg %s is cut", m))
		}
		return p.openPR(ctx, le)
	case ledger.PhaseReview, ledger.PhaseReady:
		// Only the latest judgment of this pass counts as passed.
		delete(p.legPassed, passedKey(le))
		return p.review(ctx, le)
	case ledger.PhaseDone:
		// A merged member learns from its own rounds, for its own
		// repository (learn.go).
		return p.learn(ctx, le)
	}
	return finished, nil
}

// legsPassed are the members whose pull request passed its gate this pass
// on the head the ledger records.
func (p *passState) legsPassed(e *entry, members []string) map[string]bool {
	passed := map[string]bool{}
	for _, m := range members {
		le := p.legEntry(e, m, members)
		if h := p.legPassed[passedKey(le)]; h != "" && h == le.l.Delivery.Head {
			passed[m] = true
		}
	}
	return passed
}

// readyLegs labels ready every member in review that passed its gate, once
// all of them did.
func (p *passState) readyLegs(ctx context.Context, e *entry, members []string, passed map[string]bool) (stepResult, error) {
	for _, m := range members {
		le := p.legEntry(e, m, members)
		if !passed[m] || le.l.Phase() != ledger.PhaseReview {
			continue
		}
		le.leg.labelNow = true
		pr, _ := prOf(le.l)
		res, err := p.ready(ctx, le, pr, gatekeep.Digest{HeadSHA: le.l.Delivery.Head})
		if err != nil || res.kind != stepProgressed {
			return res, err
		}
	}
	return progressed, nil
}

// holdForLegs is ready()'s coordinated branch: a member that passed its gate
// is labelled only together with every other member.
func (p *passState) holdForLegs(e *entry, head string) (stepResult, bool) {
	if e.leg == nil || e.leg.labelNow {
		return finished, false
	}
	if p.legPassed == nil {
		p.legPassed = map[string]string{}
	}
	p.legPassed[passedKey(e)] = head
	return waitFor("%s passes its gate on %s; the legs are labelled ready together", mustPR(e.l), short(head)), true
}

func mustPR(l *ledger.Ledger) string { return l.Delivery.PRText() }

// legClosed is review()'s coordinated branch for a member's pull request
// closed unmerged: with another member's pull request merged, the stop is
// leg-closed and says which leg and what to do; otherwise it is closed,
// naming the leg.
func (p *passState) legClosed(e *entry, pr gatekeep.PR) error {
	if m, mpr, ok := gatekeep.MergedMember(e.leg.parent.l, e.leg.members, e.leg.name); ok {
		n, c := gatekeep.LegClosed(e.l, e.leg.name, pr, m, mpr)
		return p.apply(e, n, c)
	}
	return p.stop(e, ledger.StopClosed, fmt.Sprintf("leg %s's pull request %s was closed without merging", e.leg.name, pr))
}

// observeStoppedLegs is observeStopped for a coordinated entry: each
// member's pull request is watched on its own (a merge is recorded, a
// reopened pull request resumes the entry), and a closed stop becomes
// leg-closed once another member's pull request is merged.
func (p *passState) observeStoppedLegs(ctx context.Context, e *entry) error {
	members := deliveringMembers(e)
	for _, m := range members {
		if _, _, stopped := e.l.Stop(); !stopped {
			return nil
		}
		if err := p.observeStopped(ctx, p.legEntry(e, m, members)); err != nil {
			return err
		}
	}
	reason, detail, stopped := e.l.Stop()
	if !stopped || reason != ledger.StopClosed {
		return nil
	}
	for _, m := range members {
		le := p.legEntry(e, m, members)
		pr, ok := prOf(le.l)
		if !ok || le.l.Phase() == ledger.PhaseDone || !strings.Contains(detail, pr.String()) {
			continue
		}
		if om, mpr, ok := gatekeep.MergedMember(e.l, members, m); ok {
			n, c := gatekeep.LegClosed(le.l, m, pr, om, mpr)
			return p.apply(le, n, c)
		}
	}
	return nil
}

// legsMergedIntoBase is mergedIntoBase for a coordinated chain milestone:
// every member's pull request is merged into the chain's base (a member
// with nothing to deliver counts as delivered).
func (p *passState) legsMergedIntoBase(ctx context.Context, spec string, l *ledger.Ledger) (bool, string) {
	for _, m := range l.Delivery.Legs() {
		v := l.LegView(m)
		if v.Phase() != ledger.PhaseDone {
			return false, fmt.Sprintf("waits for leg %s of %s to be merged", m, spec)
		}
		if v.Delivery.PR.IsZero() {
			continue
		}
		if ok, why := p.mergedIntoBase(ctx, spec, v); !ok {
			return false, fmt.Sprintf("leg %s: %s", m, why)
		}
	}
	return true, ""
}
