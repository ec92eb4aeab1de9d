package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// labelRE is a criterion id as spec-kit and Kiro spell them (US1.2,
// SC-001, 1.3).
var labelRE = regexp.MustCompile(`^(?:US[0-9]+\.[0-9]+|SC-[0-9]+|[0-9]+\.[0-9]+)$`)

// labelsFor renders the `labels:` value of a ledger of spec s: each row's
// criterion id, `1 US1.1, 2 US1.2`; "" (no line) when the spec's criteria
// have no ids, as a gallivant spec's have not.
func (l *Ledger) labelsFor(s *specs.Spec) string {
	var parts []string
	for _, r := range l.Rows {
		if ac := s.AC(l.ACOf(r.N)); ac != nil && ac.ID != "" {
			parts = append(parts, strconv.Itoa(r.N)+" "+ac.ID)
		}
	}
	return strings.Join(parts, ", ")
}

// ParseLabels reads a `labels:` value: row numbers rising, each with its
// criterion id.
func ParseLabels(v string) (map[int]string, error) {
	out := map[int]string{}
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
