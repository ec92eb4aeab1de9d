package ledger

// RunEnd is how the agent's run of the outstanding dispatch ended, as the
// executor reported it: the facts settling reads before the return itself.
type RunEnd struct {
	// Seen: this process ran the agent and saw it end, or this cache's
	// run record proves it ended.
	Seen bool
	// Unpushed: the run's commits could not be pushed; they are kept for
	// the next pass.
	Unpushed bool
	// Lost: the machine lost the run's disk or checkout.
	Lost bool
	// Failed: the harness failed (the agent could not start, exited
	// non-zero, timed out, or its push was refused).
	Failed bool
	// Environment: the failure is the environment's, not the entry's.
	Environment bool
}

// RunStep is what settling does with a dispatch whose run ended without a
// return, before Settle reads the branch.
type RunStep int

// Run steps.
const (
	// RunSettle: Settle decides on the observation as it is.
	RunSettle RunStep = iota
	// RunUnpushed: wait for the kept commits to be pushed.
	RunUnpushed
	// RunLost: the run was lost with the machine's disk: rerun it like an
	// orphaned run, or wait.
	RunLost
	// RunUnavailable: withdraw the dispatch as unavailable; the target is
	// due again.
	RunUnavailable
	// RunHarnessError: stop harness-error.
	RunHarnessError
)

// String names the step.
func (s RunStep) String() string {
	switch s {
	case RunSettle:
		return "settle"
	case RunUnpushed:
		return "unpushed"
	case RunLost:
		return "lost"
	case RunUnavailable:
		return "unavailable"
	case RunHarnessError:
		return "harness-error"
	}
	return "unknown run step"
}

// DecideRun is the step for a run that ended as end, given what the branch
// showed: a run that returned commits or left its checkout dirty is always
// settled on them; one seen to return nothing is waited for while its
// commits are unpushed, rerun when lost, withdrawn on an environment
// failure, and stopped harness-error on any other failure.
func DecideRun(obs Observation, end RunEnd) RunStep {
	if !end.Seen || len(obs.Commits) > 0 || obs.Dirty {
		return RunSettle
	}
	switch {
	case end.Unpushed:
		return RunUnpushed
	case end.Lost:
		return RunLost
	case !end.Failed:
		return RunSettle
	case end.Environment:
		return RunUnavailable
	}
	return RunHarnessError
}
