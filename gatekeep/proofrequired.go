package gatekeep

import "github.com/gallivant/gallivant/specs"

// ProofRequired reports whether the completion gate holds a spec's pull
// request to evidence-unproven (docs/delivery.md "Evidence replay"): where
// gallivant's executor holds a checkout (command or a preset agent CLI)
// with executor.verify on, it replays every done row's evidence on the
// head (each leg of a coordinated spec on its own head), so a head whose
// rows it did not prove there is not ready. With the workflow executor and
// no executor.proof_check, the prove dispatch (WorkflowProves) records the
// same proof from the workflow's run. `gallivant gatekeep` and
// `gallivant why` ask this.
func ProofRequired(cfg *specs.Config, sp *specs.Spec) bool {
	if cfg == nil || sp == nil || !cfg.Executor.Verify {
		return false
	}
	switch cfg.Executor.Kind {
	case specs.ExecutorCommand, specs.ExecutorClaudeCode, specs.ExecutorCodex, specs.ExecutorAider:
		return true
	}
	return WorkflowProves(cfg, sp)
}

// WorkflowProves reports whether gallivant proves sp's pull request by a
// prove dispatch of the workflow executor (docs/verify.md "Proof through
// the workflow"): executor.kind workflow with executor.verify on, a
// single-repository spec, and no executor.proof_check — a check named
// there takes precedence, and then the person's CI proves the head.
func WorkflowProves(cfg *specs.Config, sp *specs.Spec) bool {
	return cfg != nil && sp != nil && cfg.Executor.Kind == specs.ExecutorWorkflow && cfg.Executor.Verify &&
		cfg.Executor.ProofCheck == "" && !sp.Coordinated()
}
