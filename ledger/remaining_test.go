package ledger

import (
	"testing"

	"github.com/gallivant/gallivant/specs"
)

// RemainingDollars is the dollar budget less the dollars spent, only when
// the budget has a dollar part.
func TestRemainingDollars(t *testing.T) {
	t.Parallel()
	amount := func(s string) *specs.Amount {
		a, err := specs.ParseAmount(s)
		if err != nil {
			t.Fatal(err)
		}
		return &a
	}
	for _, tc := range []struct {
		name, budget, granted, spent string
		want                         int64
		ok                           bool
	}{
		{"no budget", "", "", "", 0, false},
		{"tokens only", "5000 tokens", "", "$1", 0, false},
		{"nothing spent", "$2.50", "", "", 2_500_000, true},
		{"spent some", "1000 tokens, $2", "", "300 tokens, $0.75", 1_250_000, true},
		{"granted more", "$1", "$0.5", "$1.2", 300_000, true},
		{"overspent", "$1", "", "$1.5", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := mustParse(t, "testdata/roundtrip/midloop.md").Clone()
			sp := &specs.Spec{}
			if tc.budget != "" {
				sp.Budget = amount(tc.budget)
			}
			if tc.granted != "" {
				l.delivery().BudgetGranted = *amount(tc.granted)
			}
			if tc.spent != "" {
				l.delivery().Spent = *amount(tc.spent)
			}
			got, ok := RemainingDollars(l, sp)
			if got != tc.want || ok != tc.ok {
				t.Errorf("RemainingDollars = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
