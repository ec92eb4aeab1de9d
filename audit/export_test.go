package audit

import "slices"

// This file keeps helpers only the tests use out of the package's API.

// Check decides whether one commit's change to one ledger is legal. It
// never panics, whatever the bytes hold.
func Check(c Change) Result {
	r, _ := check(c, nil)
	return r
}

// Kinds lists the transition kinds the checker knows, in table order.
func Kinds() []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		if !slices.Contains(out, r.kind) {
			out = append(out, r.kind)
		}
	}
	return out
}
