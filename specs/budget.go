package specs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Amount is what agents spend, or may spend: tokens, a cost in US
// dollars (held in millionths, so sums are exact), or both. The zero
// Amount is nothing.
type Amount struct {
	Tokens int64
	Micros int64
}

// maxAmount bounds each part, so that sums never overflow.
const maxAmount = 1 << 50

var (
	tokensRE  = regexp.MustCompile(`^(0|[1-9][0-9]{0,14}) tokens$`)
	dollarsRE = regexp.MustCompile(`^\$(0|[1-9][0-9]{0,8})(?:\.([0-9]{1,6}))?$`)
)

// ParseAmount reads `<n> tokens`, `$<dollars>` (at most six decimals) or
// both, `<n> tokens, $<dollars>`. It never panics.
func ParseAmount(s string) (Amount, error) {
	var a Amount
	parts := strings.Split(s, ", ")
	if s == "" || len(parts) > 2 {
		return a, fmt.Errorf("must be <n> tokens, $<dollars>, or <n> tokens, $<dollars>")
	}
	for i, p := range parts {
		if m := tokensRE.FindStringSubmatch(p); m != nil && i == 0 {
			a.Tokens, _ = strconv.ParseInt(m[1], 10, 64)
			continue
		}
		if m := dollarsRE.FindStringSubmatch(p); m != nil && (i == 1 || len(parts) == 1) {
			whole, _ := strconv.ParseInt(m[1], 10, 64)
			frac, _ := strconv.ParseInt((m[2] + "000000")[:6], 10, 64)
			a.Micros = whole*1_000_000 + frac
			continue
		}
		return Amount{}, fmt.Errorf("%q must be <n> tokens or $<dollars> (like 500000 tokens or $20.50)", p)
	}
	if a.Tokens > maxAmount || a.Micros > maxAmount {
		return Amount{}, fmt.Errorf("%q is too large", s)
	}
	return a, nil
}

// String renders a in ParseAmount's canonical form; the zero Amount is
// "0 tokens".
func (a Amount) String() string {
	var parts []string
	if a.Tokens > 0 || a.Micros == 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", a.Tokens))
	}
	if a.Micros > 0 {
		d := fmt.Sprintf("$%d.%06d", a.Micros/1_000_000, a.Micros%1_000_000)
		d = strings.TrimRight(d, "0")
		if strings.HasSuffix(d, ".") {
			d += "00"
		} else if i := strings.IndexByte(d, '.'); len(d)-i == 2 {
			d += "0"
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}

// Add returns a + b, each part capped at the largest amount.
func (a Amount) Add(b Amount) Amount {
	return Amount{Tokens: min(a.Tokens+b.Tokens, maxAmount), Micros: min(a.Micros+b.Micros, maxAmount)}
}

// Reaches reports whether a, what was spent, has reached a budget: any
// part the budget sets that a has reached or passed.
func (a Amount) Reaches(budget Amount) bool {
	return (budget.Tokens > 0 && a.Tokens >= budget.Tokens) || (budget.Micros > 0 && a.Micros >= budget.Micros)
}
