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
	DecisionResult     DecisionKind = iota + 1 // row <n> done|failed | … | …
	DecisionSeed                               // row 0 done | seeded <k> rows, closed <m> on baseline | …
	DecisionRetry                              // row <n> retry | <hint> | allowed attempts <m>
	DecisionEscalated                          // row <n> escalated | implModel round | allowed attempts <m>
	DecisionReopened                           // row <n> reopened | review: … | …
	DecisionGrant                              // rows +<n> | <words>
	DecisionCapGrant                           // legacy cap +<n> | <words>
	DecisionTaskFailed                         // task <id> failed | attempt <k> | <why>
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
	// Task and Attempt are a task decision's plan task id and the attempt
	// whose return was refused; Slot2 is then why.
	Task    string
	Attempt int
}

// Operational reports whether the decision is a `row <n> …` line: the kind
// that drives targeting and `previous decision` (grants are skipped, L-19,
// and so are the waves' task decisions, which no row answers).
func (d Decision) Operational() bool {
	return d.Kind != DecisionGrant && d.Kind != DecisionCapGrant && d.Kind != DecisionTaskFailed
}

// NeedsSomething reports whether a failed decision says a person must supply
// something outside the repository (its second slot starts `needs `).
func (d Decision) NeedsSomething() bool {
	return d.Kind == DecisionResult && d.Status == Failed && strings.HasPrefix(d.Slot2, "needs ")
}

var (
	seedSlotRE = regexp.MustCompile(`^seeded (0|[1-9][0-9]*) rows, closed (0|[1-9][0-9]*) on baseline$`)
	allowedRE  = regexp.MustCompile(`^allowed attempts ([1-9][0-9]*)$`)
	grantRE    = regexp.MustCompile(`^(rows|cap) \+([1-9][0-9]*) \|(?: (.*))?$`)
	attemptRE  = regexp.MustCompile(`^attempt ([1-9][0-9]{0,8})$`)
)

// ParseDecision parses one decision line. The error says what is wrong and
// which grammar was expected.
func ParseDecision(line string) (Decision, error) {
	d := Decision{Line: line}
	if strings.TrimSpace(line) != line {
		return d, fmt.Errorf("decision has leading or trailing whitespace")
	}
	if hasControl(line) {
		return d, fmt.Errorf("decision contains a control character")
	}
	if (strings.HasPrefix(line, "rows +") || strings.HasPrefix(line, "cap +")) && grantRE.MatchString(line) {
		err := decisionGrant(&d)
		return d, err
	}
	if strings.HasPrefix(line, "task ") {
		err := decisionTask(&d)
		return d, err
	}
	row, verb, rest, ok := splitRowDecision(line)
	if !ok {
		return d, fmt.Errorf("expected `row <n> done|failed | <what happened> | <next step>`, `row <n> retry | <hint> | allowed attempts <m>`, `row <n> escalated | implModel round | allowed attempts <m>`, `row <n> reopened | review: … | …`, `rows +<n> | <words>` or `task <id> failed | attempt <k> | <why>`")
	}
	d.Row = row
	s1, s2, ok := cutSlots(rest)
	if !ok {
		return d, fmt.Errorf("decision needs two slots separated by ` | `")
	}
	d.Slot1, d.Slot2 = s1, s2
	// The whole line has no control character, so neither has a slot.
	if err := slotShape(s1); err != nil {
		return d, fmt.Errorf("first slot %v", err)
	}
	if err := slotShape(s2); err != nil {
		return d, fmt.Errorf("second slot %v", err)
	}
	var err error
	switch verb {
	case "done", "failed":
		err = decisionResult(&d, verb)
	case "retry", "escalated":
		err = decisionRetry(&d, verb)
	case "reopened":
		err = decisionReopened(&d)
	}
	return d, err
}

// decisionGrant reads d's line as `rows +<n> | <words>` or the legacy
// `cap +<n> | <words>`, which grantRE matches.
func decisionGrant(d *Decision) error {
	m := grantRE.FindStringSubmatch(d.Line)
	d.Kind = DecisionGrant
	if m[1] == "cap" {
		d.Kind = DecisionCapGrant
	}
	d.Grant, _ = strconv.Atoi(m[2])
	d.Words = m[3]
	if d.Words != strings.TrimSpace(d.Words) {
		return fmt.Errorf("grant words have surrounding whitespace")
	}
	return nil
}

// taskDecisionForm is the one task decision, as errors quote it.
const taskDecisionForm = "`task <id> failed | attempt <k> | <why>`, e.g. `task T002 failed | attempt 1 | the return broke the contract: …`"

// decisionTask reads `task <id> failed | attempt <k> | <why>`: why a task's
// attempt was refused, kept so that the next attempt's brief and `why` can
// say it (the task line holds no reason). The why slot is last, so it may
// hold ` | ` itself.
func decisionTask(d *Decision) error {
	head, rest, ok := strings.Cut(strings.TrimPrefix(d.Line, "task "), " | ")
	if !ok {
		return fmt.Errorf("a task decision reads %s", taskDecisionForm)
	}
	id, verb, _ := strings.Cut(head, " ")
	if !ValidTaskID(id) {
		return fmt.Errorf("a task decision names a plan task id (letters, digits and inner dots, at most %d characters), got %q; it reads %s", MaxTaskID, id, taskDecisionForm)
	}
	if verb != "failed" {
		return fmt.Errorf("a task decision records a refused attempt (`failed`), got %q; it reads %s", verb, taskDecisionForm)
	}
	s1, s2, ok := strings.Cut(rest, " | ")
	if !ok {
		return fmt.Errorf("a task decision needs two slots separated by ` | `; it reads %s", taskDecisionForm)
	}
	m := attemptRE.FindStringSubmatch(s1)
	if m == nil {
		return fmt.Errorf("a task decision's first slot is `attempt <k>`, got %q", s1)
	}
	if err := slotShape(s2); err != nil {
		return fmt.Errorf("a task decision's why %v", err)
	}
	d.Kind, d.Task, d.Status, d.Slot1, d.Slot2 = DecisionTaskFailed, id, Failed, s1, s2
	d.Attempt, _ = strconv.Atoi(m[1])
	return nil
}

// newTaskDecision is the decision recording that attempt of task id was
// refused for why, which is made to fit a slot: one line, no control
// characters, at most MaxSlot characters (cut with an ellipsis).
func newTaskDecision(id string, attempt int, why string) Decision {
	why = strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, why)
	why = strings.Join(strings.Fields(why), " ")
	if why == "" {
		why = "no reason was given"
	}
	if r := []rune(why); len(r) > MaxSlot {
		why = string(r[:MaxSlot-1]) + "…"
	}
	d, _ := ParseDecision(fmt.Sprintf("task %s failed | attempt %d | %s", id, attempt, why))
	return d
}

// TaskRefusal returns the refusal that stands for task id: the decision
// recording why its last settled attempt was refused — the current attempt
// of a failed task, the one before of a task pending again, whose brief
// quotes it — and false when that attempt was not refused (it was
// withdrawn, or the task is open or done).
func (l *Ledger) TaskRefusal(id string) (Decision, bool) {
	t, ok := l.Task(id)
	if !ok {
		return Decision{}, false
	}
	last := t.Attempts
	switch t.Status {
	case TaskPending:
		last--
	case TaskFailed:
	default:
		return Decision{}, false
	}
	for i := len(l.Decisions) - 1; i >= 0; i-- {
		if d := l.Decisions[i]; d.Kind == DecisionTaskFailed && d.Task == id {
			return d, d.Attempt == last
		}
	}
	return Decision{}, false
}

// decisionResult reads a `done` or `failed` decision (verb), the seed's
// for row 0.
func decisionResult(d *Decision, verb string) error {
	d.Kind, d.Status = DecisionResult, Status(verb)
	if d.Row != 0 {
		return nil
	}
	if verb != "done" {
		return fmt.Errorf("the seed decision is `row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>`")
	}
	sm := seedSlotRE.FindStringSubmatch(d.Slot1)
	if sm == nil {
		return fmt.Errorf("the seed decision's first slot is `seeded <k> rows, closed <m> on baseline`, got %q", d.Slot1)
	}
	d.Kind = DecisionSeed
	d.Seeded, _ = strconv.Atoi(sm[1])
	d.Closed, _ = strconv.Atoi(sm[2])
	if d.Closed > d.Seeded {
		return fmt.Errorf("seed closed %d of only %d rows", d.Closed, d.Seeded)
	}
	return nil
}

// decisionRetry reads a `retry` or `escalated` decision (verb).
func decisionRetry(d *Decision, verb string) error {
	if d.Row == 0 {
		return fmt.Errorf("row 0 is the seed; %s names a row from 1", verb)
	}
	d.Kind = DecisionRetry
	if verb == "escalated" {
		d.Kind = DecisionEscalated
		if d.Slot1 != "implModel round" {
			return fmt.Errorf("an escalated decision reads `row <n> escalated | implModel round | allowed attempts <m>`")
		}
	}
	am := allowedRE.FindStringSubmatch(d.Slot2)
	if am == nil {
		return fmt.Errorf("%s decision ends with `allowed attempts <m>`, got %q", verb, d.Slot2)
	}
	d.Allowed, _ = strconv.Atoi(am[1])
	return nil
}

// decisionReopened reads a `reopened` decision.
func decisionReopened(d *Decision) error {
	if d.Row == 0 {
		return fmt.Errorf("row 0 is the seed; reopened names a row from 1")
	}
	d.Kind = DecisionReopened
	if !strings.HasPrefix(d.Slot1, "review: ") {
		return fmt.Errorf("a reopened decision's first slot starts `review: `")
	}
	return nil
}

// splitRowDecision reads `row <n> <verb> | <rest>` without a regular
// expression: a ledger holds thousands of decisions and this is its hot path.
func splitRowDecision(line string) (row int, verb, rest string, ok bool) {
	t, found := strings.CutPrefix(line, "row ")
	if !found {
		return 0, "", "", false
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 || (i > 1 && t[0] == '0') || i >= len(t) || t[i] != ' ' {
		return 0, "", "", false
	}
	row, _ = strconv.Atoi(t[:i])
	t = t[i+1:]
	sp := strings.IndexByte(t, ' ')
	if sp < 0 {
		return 0, "", "", false
	}
	verb = t[:sp]
	switch verb {
	case "done", "failed", "retry", "escalated", "reopened":
	default:
		return 0, "", "", false
	}
	rest, found = strings.CutPrefix(t[sp:], " | ")
	return row, verb, rest, found
}

// cutSlots is strings.Cut(s, " | ") without the substring search, which
// restarts at every space of a decision's prose: it looks for pipes, which
// are rare, and checks the spaces around each.
func cutSlots(s string) (before, after string, found bool) {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '|')
		if j < 0 {
			return s, "", false
		}
		i += j
		if i > 0 && i+1 < len(s) && s[i-1] == ' ' && s[i+1] == ' ' {
			return s[:i-1], s[i+2:], true
		}
		i++
	}
}

func checkSlot(s string) error {
	if err := slotShape(s); err != nil {
		return err
	}
	if hasControl(s) {
		return fmt.Errorf("contains a control character")
	}
	return nil
}

// slotShape is checkSlot without the control-character scan, for slots cut
// from a line that has already passed it.
func slotShape(s string) error {
	n := len(s)
	if n > MaxSlot {
		// Count characters only when the byte length could exceed the limit.
		n = utf8.RuneCountInString(s)
	}
	switch {
	case n == 0:
		return fmt.Errorf("is empty; it needs 1 to %d characters", MaxSlot)
	case n > MaxSlot:
		return fmt.Errorf("is %d characters; at most %d are allowed", n, MaxSlot)
	case s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t':
		return fmt.Errorf("has surrounding whitespace")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// hasControl reports whether s holds a C0 or C1 control character. It scans
// bytes: C0 controls and DEL are single bytes, and C1 controls are encoded
// as 0xC2 0x80..0x9F in valid UTF-8.
//
// Decisions and evidence are most of a ledger's bytes, so it looks at eight
// bytes at a time and checks bytes one by one only in a word that holds a
// byte below 0x20 or from 0x7f up (a control, DEL or any non-ASCII byte).
func hasControl(s string) bool {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
		ones = 0x0101010101010101
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// Per byte b with l = b&0x7f (no carries cross bytes): l+0x01 sets the
		// high bit when l is 0x7f, and l+0x60 leaves it clear when l < 0x20.
		l := w & low7
		if (w|(l+ones)|^(l+0x60*ones))&high == 0 {
			continue
		}
		if controlAt(s, i, i+8) {
			return true
		}
	}
	return controlAt(s, i, len(s))
}

// controlAt reports a control character starting in s[from:to]; a C1
// control's second byte may lie past to.
func controlAt(s string, from, to int) bool {
	for i := from; i < to; i++ {
		b := s[i]
		if b < 0x20 || b == 0x7f || (b == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0) {
			return true
		}
	}
	return false
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
