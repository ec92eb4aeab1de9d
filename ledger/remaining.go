package ledger

import "github.com/gallivant/gallivant/specs"

// RemainingDollars is what is left of the entry's dollar budget, in
// millionths of a dollar, for a CLI that can bound its own spend (Claude
// Code's --max-budget-usd): the budget's dollar part (the spec's budget:
// plus what requests granted) less the dollars the admitted returns
// reported. ok is false when the budget has no dollar part; the result is
// never below zero.
func RemainingDollars(l *Ledger, spec *specs.Spec) (micros int64, ok bool) {
	b, has := l.Budget(spec)
	if !has || b.Micros == 0 {
		return 0, false
	}
	return max(b.Micros-l.Spent().Micros, 0), true
}
