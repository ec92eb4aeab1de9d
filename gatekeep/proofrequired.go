package gatekeep

import "github.com/gallivant/gallivant/specs"

// ProofRequired reports whether the completion gate holds a spec's pull
// request to evidence-unproven (docs/delivery.md "Evidence replay"): where
// gallivant's executor holds a checkout (command or a preset agent CLI)
// with executor.verify on, it replays every done row's evidence on the
// head (each leg of a coordinated spec on its own head), so a head whose
// rows it did not prove there is not ready. `gallivant gatekeep` and
// `gallivant why` ask this.
func ProofRequired(cfg *specs.Config, sp *specs.Spec) bool {
	if cfg == nil || sp == nil || !cfg.Executor.Verify {
		return false
	}
	switch cfg.Executor.Kind {
	case specs.ExecutorCommand, specs.ExecutorClaudeCode, specs.ExecutorCodex, specs.ExecutorAider:
		return true
	}
	return false
}
