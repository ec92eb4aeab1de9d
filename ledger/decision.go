package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecisionKind tells the decision grammars apart.
type DecisionKind int

// Decision kinds.
const (
	DecisionResult    DecisionKind = iota + 1 // row <n> done|failed | … | …
	DecisionSeed                              // row 0 done | seeded <k> rows, closed <m> on baseline | …
	DecisionRetry                             // row <n> retry | <hint> | allowed attempts <m>
	DecisionEscalated                         // row <n> escalated | implModel round | allowed attempts <m>
	DecisionReopened                          // row <n> reopened | review: … | …
	DecisionGrant                             // rows +<n> | <words>
	DecisionCapGrant                          // legacy cap +<n> | <words>
)

// MaxSlot is the longest a decision slot may be, in characters.
const MaxSlot = 200

// Decision is one line of `## Decisions`.
type Decision struct {
	// Line is the decision exactly as written; Format writes it back.
	Line string
	Kind DecisionKind
	// Row is the row the decision is about (0 for the seed, unset for grants).
	Row int
	// Status is done or failed for results.
	Status Status
	// Slot1 and Slot2 are the two trailing slots of row decisions.
	Slot1, Slot2 string
	// Seeded and Closed are the seed decision's counts.
	Seeded, Closed int
	// Allowed is the audit-only `allowed attempts <m>` of retry and
	// escalated decisions (L-28: never an override).
	Allowed int
	// Grant is N of `rows +N` and `cap +N`; Words the text after the pipe.
	Grant int
	Words string
}

// Operational reports whether the decision is a `row <n> …` line: the kind
// that drives targeting and `previous decision` (grants are skipped, L-19).
func (d Decision) Operational() bool {
	return d.Kind != DecisionGrant && d.Kind != DecisionCapGrant
}

// NeedsSomething reports whether a failed decision says a person must supply
// something outside the repository (its second slot starts `needs `).
func (d Decision) NeedsSomething() bool {
	return d.Kind == DecisionResult && d.Status == Failed && strings.HasPrefix(d.Slot2, "needs ")
}

var (
	rowDecRE   = regexp.MustCompile(`^row (0|[1-9][0-9]*) (done|failed|retry|escalated|reopened) \| (.*)$`)
	seedSlotRE = regexp.MustCompile(`^seeded (0|[1-9][0-9]*) rows, closed (0|[1-9][0-9]*) on baseline$`)
	allowedRE  = regexp.MustCompile(`^allowed attempts ([1-9][0-9]*)$`)
	grantRE    = regexp.MustCompile(`^(rows|cap) \+([1-9][0-9]*) \|(?: (.*))?$`)
)

// ParseDecision parses one decision line. The error says what is wrong and
// which grammar was expected.
func ParseDecision(line string) (Decision, error) {
	d := Decision{Line: line}
	if strings.TrimSpace(line) != line {
		return d, fmt.Errorf("decision has leading or trailing whitespace")
	}
	if m := grantRE.FindStringSubmatch(line); m != nil {
		d.Kind = DecisionGrant
		if m[1] == "cap" {
			d.Kind = DecisionCapGrant
		}
		d.Grant, _ = strconv.Atoi(m[2])
		d.Words = m[3]
		if d.Words != strings.TrimSpace(d.Words) {
			return d, fmt.Errorf("grant words have surrounding whitespace")
		}
		return d, nil
	}
	m := rowDecRE.FindStringSubmatch(line)
	if m == nil {
		return d, fmt.Errorf("expected `row <n> done|failed | <what happened> | <next step>`, `row <n> retry | <hint> | allowed attempts <m>`, `row <n> escalated | implModel round | allowed attempts <m>`, `row <n> reopened | review: … | …` or `rows +<n> | <words>`")
	}
	d.Row, _ = strconv.Atoi(m[1])
	verb := m[2]
	s1, s2, ok := strings.Cut(m[3], " | ")
	if !ok {
		return d, fmt.Errorf("decision needs two slots separated by ` | `")
	}
	d.Slot1, d.Slot2 = s1, s2
	if err := checkSlot(s1); err != nil {
		return d, fmt.Errorf("first slot %v", err)
	}
	if err := checkSlot(s2); err != nil {
		return d, fmt.Errorf("second slot %v", err)
	}
	switch verb {
	case "done", "failed":
		d.Kind, d.Status = DecisionResult, Status(verb)
		if d.Row == 0 {
			if verb != "done" {
				return d, fmt.Errorf("the seed decision is `row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>`")
			}
			sm := seedSlotRE.FindStringSubmatch(s1)
			if sm == nil {
				return d, fmt.Errorf("the seed decision's first slot is `seeded <k> rows, closed <m> on baseline`, got %q", s1)
			}
			d.Kind = DecisionSeed
			d.Seeded, _ = strconv.Atoi(sm[1])
			d.Closed, _ = strconv.Atoi(sm[2])
			if d.Closed > d.Seeded {
				return d, fmt.Errorf("seed closed %d of only %d rows", d.Closed, d.Seeded)
			}
		}
	case "retry", "escalated":
		if d.Row == 0 {
			return d, fmt.Errorf("row 0 is the seed; %s names a row from 1", verb)
		}
		d.Kind = DecisionRetry
		if verb == "escalated" {
			d.Kind = DecisionEscalated
			if s1 != "implModel round" {
				return d, fmt.Errorf("an escalated decision reads `row <n> escalated | implModel round | allowed attempts <m>`")
			}
		}
		am := allowedRE.FindStringSubmatch(s2)
		if am == nil {
			return d, fmt.Errorf("%s decision ends with `allowed attempts <m>`, got %q", verb, s2)
		}
		d.Allowed, _ = strconv.Atoi(am[1])
	case "reopened":
		if d.Row == 0 {
			return d, fmt.Errorf("row 0 is the seed; reopened names a row from 1")
		}
		d.Kind = DecisionReopened
		if !strings.HasPrefix(s1, "review: ") {
			return d, fmt.Errorf("a reopened decision's first slot starts `review: `")
		}
	}
	return d, nil
}

func checkSlot(s string) error {
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0:
		return fmt.Errorf("is empty; it needs 1 to %d characters", MaxSlot)
	case n > MaxSlot:
		return fmt.Errorf("is %d characters; at most %d are allowed", n, MaxSlot)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("has surrounding whitespace")
	case strings.ContainsFunc(s, isControl):
		return fmt.Errorf("contains a control character")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

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

func newRetryDecision(row int, hint string, allowed int) Decision {
	d, _ := ParseDecision(fmt.Sprintf("row %d retry | %s | allowed attempts %d", row, hint, allowed))
	return d
}

func newEscalatedDecision(row, allowed int) Decision {
	d, _ := ParseDecision(fmt.Sprintf("row %d escalated | implModel round | allowed attempts %d", row, allowed))
	return d
}

func newGrantDecision(n int, words string) Decision {
	line := fmt.Sprintf("rows +%d |", n)
	if words != "" {
		line += " " + words
	}
	d, _ := ParseDecision(line)
	return d
}

// LatestOperational returns the newest `row <n> …` decision (grants are
// skipped, L-19), and false when there is none.
func (l *Ledger) LatestOperational() (Decision, bool) {
	for i := len(l.Decisions) - 1; i >= 0; i-- {
		if l.Decisions[i].Operational() {
			return l.Decisions[i], true
		}
	}
	return Decision{}, false
}

// RowDecisions returns row n's decisions, oldest first.
func (l *Ledger) RowDecisions(n int) []Decision {
	var out []Decision
	for _, d := range l.Decisions {
		if d.Operational() && d.Row == n && d.Kind != DecisionSeed {
			out = append(out, d)
		}
	}
	return out
}
