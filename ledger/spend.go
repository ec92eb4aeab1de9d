package ledger

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// Delivery keys of budgets (docs/ledger.md, "Budgets").
const (
	KeySpent         = "spent"          // what admitted returns reported spending: <n> tokens[, $<dollars>]
	KeyBudgetGranted = "budget-granted" // what `budget +<amount>` requests added to the spec's budget:
)

var (
	tokensTrailerRE = regexp.MustCompile(`^tokens: (0|[1-9][0-9]{0,14})$`)
	costTrailerRE   = regexp.MustCompile(`^cost: ((?:0|[1-9][0-9]{0,8})(?:\.[0-9]{1,6})?)$`)
)

// ReturnSpend reads the tokens: and cost: trailers of a return commit's
// body (its final paragraph): what the agent's CLI reported spending. A
// trailer it cannot read counts as nothing.
func ReturnSpend(body string) specs.Amount {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(body, "\r\n", "\n"), "\n \t"), "\n")
	var a specs.Amount
	for i := len(lines) - 1; i >= 0 && lines[i] != ""; i-- {
		if m := tokensTrailerRE.FindStringSubmatch(lines[i]); m != nil {
			if t, err := specs.ParseAmount(m[1] + " tokens"); err == nil {
				a.Tokens = t.Tokens
			}
		}
		if m := costTrailerRE.FindStringSubmatch(lines[i]); m != nil {
			if c, err := specs.ParseAmount("$" + m[1]); err == nil {
				a.Micros = c.Micros
			}
		}
	}
	return a
}

// Spent is what the entry's admitted returns reported spending.
func (l *Ledger) Spent() specs.Amount {
	if l.Delivery == nil {
		return specs.Amount{}
	}
	return l.Delivery.Spent
}

// addSpend adds a return's reported spend to the running total.
func (l *Ledger) addSpend(body string) { l.AddSpent(ReturnSpend(body)) }

// AddSpent adds a to the running total of what the entry's agents
// reported spending: for a run whose return is not a row's or a seed's
// (a learn task's, docs/learning.md).
func (l *Ledger) AddSpent(a specs.Amount) {
	if a != (specs.Amount{}) {
		l.delivery().Spent = l.Spent().Add(a)
	}
}

// Budget is the entry's budget: the spec's budget: plus what requests
// granted; ok is false when the spec sets none.
func (l *Ledger) Budget(spec *specs.Spec) (specs.Amount, bool) {
	if spec == nil || spec.Budget == nil {
		return specs.Amount{}, false
	}
	return spec.Budget.Add(l.Delivery.BudgetGranted), true
}

// OverBudget reports whether the entry's agents have spent its budget,
// and says how far, for the budget stop; a new dispatch is not made then.
func OverBudget(l *Ledger, spec *specs.Spec) (string, bool) {
	b, ok := l.Budget(spec)
	if !ok || !l.Spent().Reaches(b) {
		return "", false
	}
	return fmt.Sprintf("the agents spent %s of a budget of %s", l.Spent(), b), true
}
