package reconcile

import (
	"fmt"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// explainProof is what `gallivant why` says of the completion gate's
// evidence-unproven rule (gatekeep.ProofProblem and gatekeep.CheckProblem,
// the rules gatekeep.Gate applies) for an entry with a pull request: the
// rows not proved on the head the ledger attests and what happens next, or
// the check an executor without a checkout needs. Nothing when the rule
// does not apply to the entry or every done row is proved.
func (s *Snapshot) explainProof(spec string, l *ledger.Ledger) []string {
	d := l.Delivery
	if d.PRText() == "" || d.Head == "" || l.Phase() == ledger.PhaseDone {
		return nil
	}
	if pc := gatekeep.ProofCheckFor(s.Config, s.Repo.Specs[spec]); pc != nil {
		// No GitHub access here: the check's state is not known, only
		// that it is required, or that nothing is configured to prove.
		if pc.Name == "" {
			p := gatekeep.CheckProblem(gatekeep.Digest{HeadSHA: d.Head, ChecksKnown: true}, *pc)
			return []string{fmt.Sprintf("completion gate: %s - %s; %s", p.Rule, p.Message, p.Clears)}
		}
		return []string{fmt.Sprintf("proof: labelled ready only once the check %q (executor.proof_check) succeeded on its head", pc.Name)}
	}
	if !gatekeep.ProofRequired(s.Config, s.Repo.Specs[spec]) {
		return nil
	}
	p := gatekeep.ProofProblem(l, d.Head)
	if p == nil {
		return nil
	}
	next := "the next pass that finds the pull request otherwise ready replays them there first"
	if gatekeep.WorkflowProves(s.Config, s.Repo.Specs[spec]) {
		next = fmt.Sprintf("the next pass that finds the pull request otherwise ready dispatches the workflow to prove them (branch %s)", gatekeep.ProveBranch(d.Head))
	}
	if gatekeep.AnswerReplay(l, d.Head) != gatekeep.ReplayNothing {
		next = fmt.Sprintf("the replay on %s failed: `%s` (see the loop: verify commit)", short(d.Head), d.Verified.Command)
	}
	return []string{fmt.Sprintf("completion gate: %s - %s; %s", p.Rule, p.Message, next)}
}
