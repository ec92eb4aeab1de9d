package ledger

import (
	"fmt"
)

// This file keeps helpers only the tests use out of the package's API.

// IsLegKey reports whether key is kept per member in a coordinated entry.
func IsLegKey(key string) bool {
	f, ok := fieldOf(key)
	return ok && f.pull
}

// Kinds lists every transition kind once, in grammar order.
func Kinds() []Kind {
	var out []Kind
	seen := map[Kind]bool{}
	for _, f := range forms {
		if !seen[f.kind] {
			seen[f.kind] = true
			out = append(out, f.kind)
		}
	}
	return out
}

// NewResultDecision renders `row <n> <status> | <slot1> | <slot2>`.
func NewResultDecision(row int, st Status, slot1, slot2 string) Decision {
	d, _ := ParseDecision(fmt.Sprintf("row %d %s | %s | %s", row, st, slot1, slot2))
	return d
}

// NewSeedDecision renders the seed decision.
func NewSeedDecision(seeded, closed int, first string) Decision {
	d, _ := ParseDecision(fmt.Sprintf("row 0 done | seeded %d rows, closed %d on baseline | %s", seeded, closed, first))
	return d
}
