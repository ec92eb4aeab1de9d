package ledger

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// labelRE is a criterion id as spec-kit and Kiro spell them (US1.2,
// SC-001, 1.3).
var labelRE = regexp.MustCompile(`^(?:US[0-9]+\.[0-9]+|SC-[0-9]+|[0-9]+\.[0-9]+)$`)

// labelsFor renders the `labels:` value of a ledger of spec s: each row's
// criterion id, `1 US1.1, 2 US1.2`; nil (no line) when the spec's criteria
// have no ids, as a gallivant spec's have not.
func (l *Ledger) labelsFor(s *specs.Spec) RowLabels {
	var out RowLabels
	for _, r := range l.Rows {
		if ac := s.AC(l.ACOf(r.N)); ac != nil && ac.ID != "" {
			if out == nil {
				out = RowLabels{}
			}
			out[r.N] = ac.ID
		}
	}
	return out
}

// RowLabels are a spec-kit or Kiro ledger's criterion ids by row number
// (the `labels:` line); nil for a gallivant spec, whose criteria have none.
type RowLabels map[int]string

// String renders the `labels:` value, rows rising: `1 US1.1, 2 US1.2`.
func (r RowLabels) String() string {
	rows := make([]int, 0, len(r))
	for n := range r {
		rows = append(rows, n)
	}
	sort.Ints(rows)
	parts := make([]string, len(rows))
	for i, n := range rows {
		parts[i] = strconv.Itoa(n) + " " + r[n]
	}
	return strings.Join(parts, ", ")
}

// ParseLabels reads a `labels:` value: row numbers rising, each with its
// criterion id.
func ParseLabels(v string) (RowLabels, error) {
	out := RowLabels{}
	prev := 0
	for _, part := range strings.Split(v, ", ") {
		num, id, ok := strings.Cut(part, " ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || strconv.Itoa(n) != num || n <= prev || !labelRE.MatchString(id) {
			return nil, fmt.Errorf("must list rows in rising order with their criterion ids, like 1 US1.1, 2 US1.2; got %q", part)
		}
		prev = n
		out[n] = id
	}
	return out, nil
}
