package reconcile

import (
	"context"
	"fmt"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Decision is the pull-request loop's decision on one entry: the look
// that took it (gatekeep.Look), its step, a stop's reason, and the step in
// words (gatekeep.Action.Words). The pass records each decision it takes
// (Report.Decisions); `gallivant why --live` takes it again with the same
// observation and the same pure calls (Reconciler.Decide), so both say
// the same.
type Decision struct {
	Spec string `json:"spec"`
	// Leg is the member of a coordinated spec whose pull request the
	// decision is on; "" for a single-repository entry.
	Leg string `json:"leg,omitempty"`
	// PR is the pull request decided on; "" before one is recorded.
	PR     string            `json:"pr,omitempty"`
	Look   gatekeep.Look     `json:"look"`
	Step   gatekeep.Step     `json:"step"`
	Reason ledger.StopReason `json:"reason,omitempty"`
	Words  string            `json:"words"`
	// Ignored says, for a judged look, which feedback on the pull request
	// came from people who may not steer (gatekeep.IgnoredNote: ids and
	// authors, never the text); it makes no control commit, so the
	// decision is where `why --live` and the dashboard show it.
	Ignored string `json:"ignored,omitempty"`
}

// Line is the decision as `gallivant why` and the dashboard print it:
// the step in words, then the step, the look that took it and from where
// it comes ("observed now", "the last pass").
func (d Decision) Line(from string) string {
	return fmt.Sprintf("decision: %s (step %s, %s look, %s)", d.Words, d.Step, d.Look, from)
}

// decisionOf is the decision a look took on spec's pull request pr.
func decisionOf(spec, pr string, look gatekeep.Look, a gatekeep.Action) Decision {
	d := Decision{Spec: spec, PR: pr, Look: look, Step: a.Step, Words: a.Words()}
	switch a.Step {
	case gatekeep.StepStop, gatekeep.StepChecksQuiet:
		d.Reason = a.Reason
	case gatekeep.StepRewritten:
		d.Reason = ledger.StopBoundary
	}
	return d
}

// decided records a decision the pass took on an entry; ignored is the
// note on feedback from people who may not steer, "" when none.
func (p *passState) decided(e *entry, pr string, look gatekeep.Look, a gatekeep.Action, ignored string) {
	d := decisionOf(e.specPath, pr, look, a)
	if e.leg != nil {
		d.Leg = e.leg.name
	}
	d.Ignored = ignored
	p.rep.Decisions = append(p.rep.Decisions, d)
}

// decideJudged is the second look's decision on a judged digest
// (gatekeep.DecideJudged): the verdict, whether a conflict round already
// answered this head, and whether checks.wait passed since the head was
// first seen.
func (p *passState) decideJudged(e *entry, pr gatekeep.PR, r reviewRead) gatekeep.Action {
	seen := e.l.Delivery.HeadAt
	return gatekeep.DecideJudged(gatekeep.JudgedFacts{PR: pr, Phase: e.l.Phase(), Verdict: r.v, HeadRef: r.d.HeadRef, HeadSHA: r.d.HeadSHA, BaseRef: r.d.BaseRef,
		ConflictAnswered: gatekeep.ConflictAnswered(e.l, r.d.HeadSHA), ChecksOverdue: !seen.IsZero() && p.now.Sub(seen) >= p.cfg.Checks.Wait})
}

// specChangedAtGate is the spec-changed stop the second look takes before
// deciding, when the completion gate blocks and the spec's contract is no
// longer the one the ledger approved.
func (p *passState) specChangedAtGate(e *entry, v gatekeep.Verdict) (gatekeep.Action, bool) {
	if _, stop := v.LoopStop(); stop || !v.BlockedBy(gatekeep.BlockGate) {
		return gatekeep.Action{}, false
	}
	approved, now := e.l.Delivery.Contract, e.spec.Contract().Fingerprint()
	if approved == "" || approved == now {
		return gatekeep.Action{}, false
	}
	return gatekeep.Action{Step: gatekeep.StepStop, Reason: ledger.StopSpecChanged,
		Detail: fmt.Sprintf("the contract of %s changed from %s to %s", e.specPath, approved, now)}, true
}

// Decide takes, without writing anything, the decision the next pass's
// pull-request loop takes on spec: it reads the control repository as a
// pass does, observes GitHub read-only, and calls the same decisions
// (gatekeep.DecideOpen, DecideLive, DecideJudged). ok is false when the
// entry is not in the pull-request phases or is a coordinated one (whose
// legs decide one by one), when it is stopped, paused or has a review
// round in flight: then there is no such decision to take.
func (r *Reconciler) Decide(ctx context.Context, spec string) (d Decision, ok bool, err error) {
	p, err := r.begin(ctx, nil)
	if err != nil {
		return Decision{}, false, err
	}
	p.DryRun = true
	for _, e := range p.entries() {
		if e.specPath == spec {
			return p.decide(ctx, e)
		}
	}
	return Decision{}, false, nil
}

// decide is Decide for one entry.
func (p *passState) decide(ctx context.Context, e *entry) (Decision, bool, error) {
	if !p.decides(e) {
		return Decision{}, false, nil
	}
	if ph := e.l.Phase(); ph == ledger.PhaseImplement || ph == ledger.PhaseVerify {
		if err := p.resolvePush(ctx, e); err != nil {
			return Decision{}, false, err
		}
		f, err := p.openFacts(ctx, e)
		if err != nil {
			return Decision{}, false, err
		}
		a := gatekeep.DecideOpen(f)
		if a.Step == gatekeep.StepAdopt {
			// The pass decides the adoption again before recording it
			// (adoptPR): a stop there is the decision it takes.
			af, _, err := p.adoptFacts(ctx, e, f.Branch)
			if err != nil {
				return Decision{}, false, err
			}
			if s := gatekeep.DecideAdopt(af); s.Step == gatekeep.StepStop {
				return decisionOf(e.specPath, af.PR.String(), gatekeep.LookAdopt, s), true, nil
			}
		}
		return decisionOf(e.specPath, "", gatekeep.LookOpen, a), true, nil
	}
	pr, ok := prOf(e.l)
	if !ok || !e.l.Delivery.DispatchedAt.IsZero() {
		return Decision{}, false, nil
	}
	live, err := p.GitHub.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err != nil {
		return Decision{}, false, err
	}
	f, err := p.liveFacts(ctx, e, pr, live)
	if err != nil {
		return Decision{}, false, err
	}
	if a := gatekeep.DecideLive(f); a.Step != gatekeep.StepJudge {
		return decisionOf(e.specPath, pr.String(), gatekeep.LookLive, a), true, nil
	}
	rr, err := p.judge(ctx, e, pr)
	if err != nil {
		return Decision{}, false, err
	}
	if a, changed := p.specChangedAtGate(e, rr.v); changed {
		return decisionOf(e.specPath, pr.String(), gatekeep.LookJudged, a), true, nil
	}
	d := decisionOf(e.specPath, pr.String(), gatekeep.LookJudged, p.decideJudged(e, pr, rr))
	d.Ignored = gatekeep.IgnoredNote(pr, rr.v.Ignored)
	return d, true, nil
}

// decides reports whether the next pass takes a pull-request decision on
// e: a seeded, active, single-repository entry, neither stopped nor
// paused, whose rows are all closed (ledger.Next says verify) and which is
// not done.
func (p *passState) decides(e *entry) bool {
	if e.spec == nil || e.l == nil || e.spec.Coordinated() || e.spec.Status != specs.StatusActive {
		return false
	}
	if _, _, stopped := e.l.Stop(); stopped {
		return false
	}
	if _, paused := e.l.Paused(); paused {
		return false
	}
	return e.l.Phase() != ledger.PhaseDone && ledger.Next(e.l, p.settings()).Kind == ledger.ActVerify
}
