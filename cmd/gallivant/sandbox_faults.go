package main

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// sandboxFaults switches on the random fault mix of --faults.
func sandboxFaults(s *ghstandin.Server, opts *sandboxOptions) error {
	if opts.Faults == "" {
		if opts.FaultHold <= 0 {
			return usageError("--fault-hold must be positive, got %s", opts.FaultHold)
		}
		return nil
	}
	rates, err := ghstandin.ParseFaultRates(opts.Faults)
	if err != nil {
		return usageError("--faults %v", err)
	}
	if opts.FaultHold <= 0 {
		return usageError("--fault-hold must be positive, got %s", opts.FaultHold)
	}
	s.SetFaultRates(ghstandin.FaultRates{Rates: rates, Seed: opts.FaultSeed, Hold: opts.FaultHold})
	return nil
}

// faultCounts writes injected faults as KIND=N pairs in the order of
// ghstandin.RateKinds, every kind present: "5xx=3 timeout=0 ...".
func faultCounts(n map[ghstandin.RateKind]int) string {
	parts := make([]string, len(ghstandin.RateKinds))
	for i, k := range ghstandin.RateKinds {
		parts[i] = fmt.Sprintf("%s=%d", k, n[k])
	}
	return strings.Join(parts, " ")
}
