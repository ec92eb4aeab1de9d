package reconcile

import (
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
)

// unpushed settles nothing for a run whose commits could not be pushed
// (a network failure, GitHub down): the commits are kept on a recovery
// ref and the run record stays, so the next pass on this cache pushes
// them and admits the return without running the agent again. A stop
// here would ask a person to resume, which reruns the attempt. The pass
// reports the failure as a problem, naming the kept commits.
func (p *passState) unpushed(e *entry, pd ledger.Pending, out agent.Outcome) stepResult {
	where := "in the agent's checkout"
	if out.Kept != "" {
		where = "on " + out.Kept
	}
	// git's message spans lines; a note is one line.
	why := strings.Join(strings.Fields(out.Err.Error()), " ")
	p.note(e.specPath, true, "the return of %s could not be pushed (%s); its commits are kept %s and the next pass pushes and admits them", describe(pd), why, where)
	return waitFor("waiting to push the kept return of %s", describe(pd))
}

// unpushedRound is unpushed for a review round: the round's answer is
// kept, its run record stays, and the next pass pushes the kept commits
// and records the round pushed without running its agent again. A stop
// here (harness-error) would ask a person to resume, which reruns the
// round.
func (p *passState) unpushedRound(e *entry, pr gatekeep.PR, k int, out agent.Outcome) stepResult {
	where := "in the agent's checkout"
	if out.Kept != "" {
		where = "on " + out.Kept
	}
	why := strings.Join(strings.Fields(out.Err.Error()), " ")
	p.note(e.specPath, true, "the answer of round %d of %s could not be pushed (%s); its commits are kept %s and the next pass pushes them", k, pr, why, where)
	return waitFor("waiting to push the kept answer of round %d of %s", k, pr)
}
