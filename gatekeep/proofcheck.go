package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// Executors without a checkout (docs/verify.md "Proof without a checkout"):
// the `workflow` and `none` executors run the agent elsewhere, and
// gallivant holds no checkout to replay the rows' evidence in. Their pull
// requests are not labelled ready on the agent's claims alone: the check
// named by executor.proof_check must have succeeded on the head — the
// person's CI reports it after replaying each done row's evidence — or the
// completion gate denies evidence-unproven and names what is missing.

// ProofCheck is what the completion gate holds the pull request of an
// executor without a checkout to: the check named Name must have succeeded
// on its head.
type ProofCheck struct {
	// Executor is executor.kind, for the message.
	Executor string
	// Name is executor.proof_check; "" when it names none.
	Name string
}

// ProofCheckFor is the ProofCheck of sp under a configuration whose
// executor holds no checkout (workflow, none), nil otherwise: gallivant
// replays the evidence itself, or proves sp's head by the workflow's prove
// dispatch (ProofRequired, WorkflowProves).
func ProofCheckFor(cfg *specs.Config, sp *specs.Spec) *ProofCheck {
	if cfg == nil || WorkflowProves(cfg, sp) {
		return nil
	}
	switch cfg.Executor.Kind {
	case specs.ExecutorWorkflow, specs.ExecutorNone:
		return &ProofCheck{Executor: cfg.Executor.Kind, Name: cfg.Executor.ProofCheck}
	}
	return nil
}

// CheckProblem is the evidence-unproven denial of d's head under pc, or
// nil when the check pc names succeeded on it.
func CheckProblem(d Digest, pc ProofCheck) *Problem {
	kind, proofCheck := pc.Executor, pc.Name
	deny := func(clears, format string, args ...any) *Problem {
		return &Problem{Rule: GateUnproven, Blocking: true, Clears: clears, Message: fmt.Sprintf(format, args...)}
	}
	head := short(d.HeadSHA)
	if proofCheck == "" {
		return deny("set executor.proof_check to the check your CI reports after replaying each done row's evidence (docs/verify.md)",
			"executor.kind %s replays no evidence and executor.proof_check names no check: nothing proves the rows on %s", kind, head)
	}
	if !d.ChecksKnown {
		return deny("the next pass reads the checks again", "the checks on %s could not be read, so %q is not known to have passed", head, proofCheck)
	}
	var found []Check
	for _, c := range d.Checks {
		if strings.EqualFold(c.Name, proofCheck) {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return deny("CI reports "+proofCheck+" on the head (docs/verify.md)", "the check %q (executor.proof_check) has not reported on %s", proofCheck, head)
	}
	for _, c := range found {
		if c.Status != CheckCompleted || c.Conclusion != ConclusionSuccess {
			state := string(c.Conclusion)
			if c.Status != CheckCompleted {
				state = "still " + string(c.Status)
			}
			return deny("CI's "+proofCheck+" succeeds on the head", "the check %q (executor.proof_check) is %s on %s, not success", proofCheck, state, head)
		}
	}
	return nil
}
