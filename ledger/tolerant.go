package ledger

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tolerant of form, exact about substance: what an agent writes is
// normalised before it is judged — white space, a trailing newline and
// markdown around evidence are form — and what is still refused is named
// precisely: the line, the character by codepoint and name, what was
// expected and an accepted example.

// NormalizeEvidence returns evidence as the ledger stores it: every run of
// white space (tabs, newlines, non-breaking spaces) one space, no
// surrounding white space, and markdown around the whole evidence or around
// one of its `;`-separated parts removed (backtick code spans and fences,
// `**` emphasis, a leading `$ ` prompt on the command). A verbatim
// `ok  \texample.com/calc\t0.004s` becomes `ok example.com/calc 0.004s`.
// Other control characters are kept, for admission to name.
func NormalizeEvidence(e string) string {
	e = collapseSpace(e)
	// A round removes markdown or evens the separators, so few rounds
	// reach the fixed point; the bound only guards the loop.
	for range 64 {
		n := normalizeOnce(e)
		if n == e {
			break
		}
		e = n
	}
	return e
}

// normalizeOnce unwraps e and its parts once.
func normalizeOnce(e string) string {
	if e == "" {
		return e
	}
	e = unwrapMarkdown(e)
	var parts []string
	changed := false
	for i, p := range strings.Split(e, ";") {
		t := strings.TrimSpace(p)
		for {
			u := unwrapMarkdown(t)
			if i == 0 {
				u = strings.TrimSpace(strings.TrimPrefix(u, "$ "))
			}
			if u == t {
				break
			}
			t = u
		}
		if t != strings.TrimSpace(p) || (t == "" && i > 0) {
			changed = true
		}
		if t != "" || i == 0 {
			parts = append(parts, t)
		}
	}
	if !changed {
		return e
	}
	return strings.Join(parts, "; ")
}

// collapseSpace turns every run of Unicode white space into one space and
// trims the ends. Control characters that are not white space stay.
func collapseSpace(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }) && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// unwrapMarkdown removes markdown that wraps all of s: a code span or
// fence of backticks (“x“, ```x```) or `**` emphasis, when the wrapped
// text holds no further delimiter of the same kind, repeatedly.
func unwrapMarkdown(s string) string {
	for {
		t := s
		for _, w := range []string{"```", "``", "`", "**"} {
			if len(t) > 2*len(w) && strings.HasPrefix(t, w) && strings.HasSuffix(t, w) {
				inner := t[len(w) : len(t)-len(w)]
				if !strings.Contains(inner, w[:1]) {
					t = strings.TrimSpace(inner)
					break
				}
			}
		}
		if t == s {
			return s
		}
		s = t
	}
}

// controlNames are the control characters agents' output carries, by the
// names people know them by.
var controlNames = map[rune]string{
	0x00: "NUL", 0x07: "BEL, a terminal bell", 0x08: "BS, a backspace", 0x09: "TAB, a tab", 0x0a: "LF, a line feed",
	0x0b: "VT, a vertical tab", 0x0c: "FF, a form feed", 0x0d: "CR, a carriage return", 0x1b: "ESC, the start of a terminal colour or cursor code",
	0x7f: "DEL", 0x85: "NEL, a next-line",
}

// RuneName names a character for a refusal: its codepoint and, for a
// control character, what it is (`U+001B (ESC, the start of a terminal
// colour or cursor code)`).
func RuneName(r rune) string {
	if n, ok := controlNames[r]; ok {
		return fmt.Sprintf("U+%04X (%s)", r, n)
	}
	switch {
	case r == utf8.RuneError:
		return "U+FFFD (an invalid UTF-8 byte)"
	case r < 0x20:
		return fmt.Sprintf("U+%04X (a C0 control character)", r)
	case r >= 0x80 && r < 0xa0:
		return fmt.Sprintf("U+%04X (a C1 control character)", r)
	}
	return fmt.Sprintf("U+%04X (%q)", r, string(r))
}

// ControlAt finds the first control character of s: its 1-based column
// in characters and the character, and false when there is none.
func ControlAt(s string) (col int, r rune, ok bool) {
	if !hasControl(s) {
		return 0, 0, false
	}
	col = 0
	for _, c := range s {
		col++
		if isControl(c) {
			return col, c, true
		}
	}
	return 0, 0, false
}

// controlReason says which control character s holds and where, or "".
func controlReason(s string) string {
	col, r, ok := ControlAt(s)
	if !ok {
		return ""
	}
	return fmt.Sprintf("character %d is %s, a control character", col, RuneName(r))
}

// evidenceExample is the accepted evidence a refusal shows.
const evidenceExample = "`go test ./calc -run 'TestAdd$'; ok example.com/calc 0.004s`"

// Seed decisions in natural words. An agent reports the seed as a sentence
// more often than in the exact grammar; its substance is two counts, and
// when the sentence states both unambiguously the decision is recorded in
// the canonical form `row 0 done | seeded <k> rows, closed <m> on baseline
// | <next>`. Admission then checks the counts against the rows as always.

// countKind is what a number in a seed sentence counts.
type countKind int

const (
	countNone countKind = iota
	countSeeded
	countOpen
	countClosed
)

var (
	seedWordsClosed = wordSet("closed close closes done pass passes passing passed green satisfied met holds hold already")
	seedWordsOpen   = wordSet("open failing fail fails failed red unmet remaining remain left")
	seedWordsSeeded = wordSet("seeded seed seeding row rows criteria criterion acceptance total found")
	seedWordsNot    = wordSet("not don't doesn't didn't never")
	numberWords     = map[string]int{"no": 0, "none": 0, "zero": 0, "one": 1, "two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
	clauseBreaks = wordSet("and with while but")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// seedCounts reads the seeded and closed counts from the first slot of a
// seed decision written in words: the slot is cut into clauses (at commas,
// semicolons, brackets, `and`, `with`…), each clause may hold one count,
// and the clause's words say what it counts (closed, open or seeded rows).
// A row reference (`row 2`) is not a count. It fails with what it could
// not tell.
func seedCounts(slot string) (seeded, closed int, err error) {
	found, err := clauseCounts(seedClauses(slot))
	if err != nil {
		return 0, 0, err
	}
	return seededAndClosed(found)
}

// seedClauses cuts a seed sentence into clauses of lower-case words: at
// commas, semicolons, colons, full stops, brackets and the words of
// clauseBreaks.
func seedClauses(slot string) [][]string {
	var clauses [][]string
	cur := []string{}
	flush := func() {
		if len(cur) > 0 {
			clauses = append(clauses, cur)
		}
		cur = []string{}
	}
	for _, w := range strings.Fields(strings.ToLower(slot)) {
		lead := strings.IndexFunc(w, func(r rune) bool { return r != '(' && r != '[' })
		if lead < 0 {
			flush()
			continue
		}
		if lead > 0 {
			flush()
			w = w[lead:]
		}
		end := strings.TrimRight(w, ",;:.!)]")
		if clauseBreaks[end] {
			flush()
			continue
		}
		if end != "" {
			cur = append(cur, end)
		}
		if end != w {
			flush()
		}
	}
	flush()
	return clauses
}

// clauseCounts is the count each kind is given in the clauses; a kind
// given two different counts is an error.
func clauseCounts(clauses [][]string) (map[countKind]int, error) {
	found := map[countKind]int{}
	for _, c := range clauses {
		n, kind, err := clauseCount(c)
		if err != nil {
			return nil, err
		}
		if kind == countNone {
			continue
		}
		if old, ok := found[kind]; ok && old != n {
			return nil, fmt.Errorf("it gives two different %s counts, %d and %d", kindName(kind), old, n)
		}
		found[kind] = n
	}
	return found, nil
}

// seededAndClosed derives the seeded and closed counts from the counts
// found: seeded is open plus closed, closed is seeded less open, and the
// three agree when all are given.
func seededAndClosed(found map[countKind]int) (seeded, closed int, err error) {
	s, hasS := found[countSeeded]
	c, hasC := found[countClosed]
	o, hasO := found[countOpen]
	switch {
	case !hasS && hasO && hasC:
		s, hasS = o+c, true
	case hasS && !hasC && hasO && o <= s:
		c, hasC = s-o, true
	}
	if hasS && hasO && hasC && o+c != s {
		return 0, 0, fmt.Errorf("%d open and %d closed are not %d seeded", o, c, s)
	}
	switch {
	case !hasS && !hasC:
		return 0, 0, fmt.Errorf("it states neither how many rows were seeded nor how many were closed on baseline")
	case !hasS:
		return 0, 0, fmt.Errorf("it does not state how many rows were seeded")
	case !hasC:
		return 0, 0, fmt.Errorf("it does not state how many rows were closed on baseline")
	case c > s:
		return 0, 0, fmt.Errorf("it closes %d of only %d rows", c, s)
	}
	return s, c, nil
}

func kindName(k countKind) string {
	switch k {
	case countSeeded:
		return "seeded"
	case countOpen:
		return "open"
	}
	return "closed"
}

// clauseCount reads the one count of a clause and what it counts.
func clauseCount(c []string) (int, countKind, error) {
	n, numbers := 0, 0
	var kind countKind
	negated := false
	for i, w := range c {
		if v, ok := numberValue(w); ok && !(i > 0 && (c[i-1] == "row" || c[i-1] == "ac" || c[i-1] == "#")) {
			n = v
			numbers++
			continue
		}
		switch {
		case seedWordsNot[w] || strings.HasSuffix(w, "n't"):
			negated = true
		case seedWordsClosed[w]:
			kind = max(kind, countClosed)
		case seedWordsOpen[w]:
			kind = max(kind, countOpen)
		case seedWordsSeeded[w]:
			kind = max(kind, countSeeded)
		}
	}
	if numbers == 0 {
		return 0, countNone, nil
	}
	if numbers > 1 {
		return 0, countNone, fmt.Errorf("%q holds %d numbers and cannot say which counts what", strings.Join(c, " "), numbers)
	}
	if negated && kind == countClosed {
		kind = countOpen
	}
	if kind == countNone {
		return 0, countNone, fmt.Errorf("%q gives the number %d without saying whether it counts seeded or closed rows", strings.Join(c, " "), n)
	}
	return n, kind, nil
}

func numberValue(w string) (int, bool) {
	if v, ok := numberWords[w]; ok {
		return v, true
	}
	if w == "" || len(w) > 6 {
		return 0, false
	}
	v := 0
	for _, r := range w {
		if r < '0' || r > '9' {
			return 0, false
		}
		v = v*10 + int(r-'0')
	}
	return v, true
}

// naturalSeedDecision reads a seed decision that is not in the exact
// grammar (perr says why) but states its counts in words, and returns it
// in the canonical form. rows are the seed's row lines, for the accepted
// example a refusal shows.
func naturalSeedDecision(line string, rows []Row, perr error) (Decision, error) {
	closed := 0
	for _, r := range rows {
		if r.Status == Done {
			closed++
		}
	}
	example := fmt.Sprintf("`row 0 done | seeded %d rows, closed %d on baseline | <first row to take>`", len(rows), closed)
	rest, ok := strings.CutPrefix(line, "row 0 done | ")
	if !ok {
		return Decision{Line: line}, fmt.Errorf("%v; with these rows it reads %s", perr, example)
	}
	s1, s2, ok := cutSlots(rest)
	if !ok {
		s1, s2 = rest, ""
	}
	if seedSlotRE.MatchString(s1) {
		return Decision{Line: line}, perr
	}
	k, m, err := seedCounts(s1)
	if err != nil {
		return Decision{Line: line}, fmt.Errorf("the seed decision's first slot %s: %v; with these rows it reads %s", quote(s1), err, example)
	}
	if s2 == "" {
		return Decision{Line: line}, fmt.Errorf("the seed decision needs a second slot after ` | ` naming the first row to take; with these rows it reads %s", example)
	}
	d, err := ParseDecision(fmt.Sprintf("row 0 done | seeded %d rows, closed %d on baseline | %s", k, m, s2))
	if err != nil {
		return Decision{Line: line}, fmt.Errorf("%v; with these rows it reads %s", err, example)
	}
	return d, nil
}
