package ledger

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
)

// Rule ids of the ledger grammar and its cross-checks.
const (
	RuleHeader   = "ledger/header"
	RuleTable    = "ledger/table"
	RuleRow      = "ledger/row"
	RuleEvidence = "ledger/evidence"
	RuleMapping  = "ledger/leg-mapping"
	RuleDecision = "ledger/decision-grammar"
	RuleDelivery = "ledger/delivery"
	// RuleChainChanged reports a chain whose order or membership changed
	// after the milestone was seeded.
	RuleChainChanged = "ledger/chain-changed"
	RuleRequest      = "ledger/request"
	RuleSection      = "ledger/section"
	RuleSpecPath     = "ledger/spec-path"
	RulePairing      = "ledger/pairing"
	RuleAttempts     = "ledger/attempts"
	RulePending      = "ledger/pending"
	RuleDuplicate    = "ledger/duplicate"
)

// Fatal reports whether diagnostics make a ledger unusable. Malformed request
// lines are reported but never fatal: the inbox is human-owned, and one bad
// request must not stop the reconciler from reading the rest of the ledger.
func Fatal(ds parse.Diagnostics) bool {
	for _, d := range ds {
		if d.Severity == parse.SeverityError && d.Rule != RuleRequest {
			return true
		}
	}
	return false
}

var (
	specLineRE = regexp.MustCompile("^\\*\\*Spec:\\*\\* (`([^`]+)`|([^`\\s]+))$")
	memberKVRE = regexp.MustCompile(`^(base|seeded) ([a-z0-9][a-z0-9._-]*): (.*)$`)
	delimRE    = regexp.MustCompile(`^\s*:?-+:?\s*$`)
	memberRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// isWholeNumber reports whether s is a whole number written without sign or
// leading zeros (`0`, `7`, `120`): the spelling of row numbers, attempts and
// counts. A byte scan, because it runs for every cell of the row table.
func isWholeNumber(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type parser struct {
	doc   *parse.Document
	l     *Ledger
	diags parse.Diagnostics
	i     int // current line, 1-based
	n     int // number of lines
}

// errorf reports at a position clamped into the input, so "missing X" at the
// end of a file points at its last character.
func (p *parser) errorf(at parse.Pos, rule, format string, args ...any) {
	if at.Line > p.n {
		at = p.doc.EndPos()
	}
	if at.Line < 1 {
		at = parse.Pos{Line: 1, Col: 1}
	}
	if max := utf8.RuneCountInString(p.doc.Line(at.Line)) + 1; at.Col > max {
		at.Col = max
	}
	if at.Col < 1 {
		at.Col = 1
	}
	p.diags.Errorf(p.doc.Path, at, rule, format, args...)
}

func (p *parser) line() string { return p.doc.Line(p.i) }

// trimBlankRight is strings.TrimRight(s, " \t") without building a cutset
// per call; it runs for every row and decision line.
func trimBlankRight(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func (p *parser) at(col int) parse.Pos { return parse.Pos{Line: p.i, Col: col} }

// Parse parses a ledger. It always returns a ledger holding what could be
// read, with every diagnostic found; use Fatal to decide whether it is usable.
func Parse(path string, src []byte) (*Ledger, parse.Diagnostics) {
	doc := parse.ParseOutline(path, src)
	p := &parser{doc: doc, l: &Ledger{at: &positions{}, Delivery: &Delivery{absent: true}}, diags: append(parse.Diagnostics(nil), doc.Diagnostics...), i: 1, n: doc.NumLines()}
	if doc.Diagnostics.HasErrors() {
		return p.l, p.diags
	}
	if p.line() != Discriminant {
		p.errorf(p.at(1), RuleHeader, "line 1 must be exactly %q (the ledger discriminant), got %q", Discriminant, p.line())
		return p.l, p.diags
	}
	p.i++
	p.header()
	p.skipBlank()
	p.rowTable()
	p.sections()
	return p.l, p.diags
}

func (p *parser) skipBlank() {
	for p.i <= p.n && strings.TrimSpace(p.line()) == "" {
		p.i++
	}
}

// header reads the header lines, in their fixed order, up to the first blank line.
func (p *parser) header() {
	start := p.i
	var lines []string
	for p.i <= p.n && strings.TrimSpace(p.line()) != "" && !strings.HasPrefix(p.line(), "|") && !strings.HasPrefix(p.line(), "#") {
		// Trailing whitespace is formatting, which `gallivant fmt` removes.
		lines = append(lines, strings.TrimRight(p.line(), " \t"))
		p.i++
	}
	if len(lines) == 0 {
		p.errorf(parse.Pos{Line: start, Col: 1}, RuleHeader, "missing header lines: expected **Spec:**, base:, verification:, checks:, iterations: and allowance: after line 1")
		return
	}
	h := headerBlock{lines: lines, start: start}
	k, ok := p.fixedHeader(h)
	if !ok {
		return
	}
	k = p.budgetHeader(h, k)
	k = p.pendingHeader(h, k)
	p.memberHeader(h, k)
}

// headerBlock is the ledger's header lines and the line number of the
// first, so that an index into lines maps back to a position.
type headerBlock struct {
	lines []string
	start int
}

func (h headerBlock) pos(k int) parse.Pos { return parse.Pos{Line: h.start + k, Col: 1} }

// fixedHeader reads the lines every ledger has, in their fixed order:
// **Spec:**, base, verification, checks and iterations. It returns the
// index of the first line after them, and false when the order is broken
// and the rest of the header cannot be read.
func (p *parser) fixedHeader(h headerBlock) (int, bool) {
	l := p.l
	k := 0
	for _, want := range []string{"**Spec:**", "base", "verification", "checks", "iterations"} {
		if k >= len(h.lines) {
			p.errorf(h.pos(k), RuleHeader, "header ends before %s; expected it after line %d", want, h.start+k-1)
			return k, false
		}
		ln := h.lines[k]
		if want == "**Spec:**" {
			l.at.spec = h.start + k
			m := specLineRE.FindStringSubmatch(ln)
			if m == nil {
				p.errorf(h.pos(k), RuleHeader, "line 2 must be **Spec:** followed by the repository-relative spec path in backticks, got %q", ln)
			} else if m[2] != "" {
				l.Spec = m[2]
			} else {
				l.Spec, l.SpecBare = m[3], true
			}
			k++
			continue
		}
		key, val, ok := strings.Cut(ln, ": ")
		if !ok || key != want {
			p.errorf(h.pos(k), RuleHeader, "expected the %s: line here (header order is **Spec:**, base, verification, checks, iterations, allowance, pending), got %q", want, ln)
			return k, false
		}
		vpos := parse.Pos{Line: h.start + k, Col: len(key) + 3}
		switch key {
		case "base":
			if !sha40RE.MatchString(val) {
				p.errorf(vpos, RuleHeader, "base must be a full 40-character lowercase commit SHA, got %q", val)
			}
			l.Base = val
		case "verification":
			if strings.TrimSpace(val) == "" || strings.TrimSpace(val) != val {
				p.errorf(vpos, RuleHeader, "verification must be a command or `none`, got %q", val)
			}
			l.Verification = val
		case "checks":
			if val != "commands" {
				p.errorf(vpos, RuleHeader, "the checks line is the literal `checks: commands`, got %q", val)
			}
		case "iterations":
			l.at.iterations = h.start + k
			if !isWholeNumber(val) {
				p.errorf(vpos, RuleHeader, "iterations must be a whole number, got %q", val)
			}
			l.Iterations, _ = strconv.Atoi(val)
		}
		k++
	}
	return k, true
}

// budgetHeader reads the budget lines from index k: exactly one of
// allowance: and legacy cap: (L-8). It returns the index after them.
func (p *parser) budgetHeader(h headerBlock, k int) int {
	l := p.l
	var budget []int
	for k < len(h.lines) {
		key, val, _ := strings.Cut(h.lines[k], ": ")
		if key != "allowance" && key != "cap" {
			break
		}
		budget = append(budget, k)
		if !isWholeNumber(val) || val == "0" {
			p.errorf(parse.Pos{Line: h.start + k, Col: len(key) + 3}, RuleHeader, "%s must be a whole number of at least 1, got %q", key, val)
		}
		n, _ := strconv.Atoi(val)
		if key == "allowance" {
			l.Allowance = n
		} else {
			l.Cap = n
		}
		k++
	}
	if len(budget) != 1 {
		p.errorf(h.pos(min(k, len(h.lines))), RuleHeader, "ledger header malformed: %s", strings.Join(h.lines, "; "))
	}
	return k
}

// pendingHeader reads the optional pending: line at index k and returns
// the index after it.
func (p *parser) pendingHeader(h headerBlock, k int) int {
	if k >= len(h.lines) || !strings.HasPrefix(h.lines[k], "pending: ") {
		return k
	}
	p.l.at.pending = h.start + k
	pd, err := ParsePending(strings.TrimPrefix(h.lines[k], "pending: "))
	if err != nil {
		p.errorf(parse.Pos{Line: h.start + k, Col: 10}, RuleHeader, "pending: %v", err)
	} else {
		p.l.Pending = &pd
	}
	return k + 1
}

// memberHeader reads the rest of the header from index k: a coordinated
// ledger's `base <member>:` lines, each optionally followed by its
// `seeded <member>:` line.
func (p *parser) memberHeader(h headerBlock, k int) {
	l := p.l
	for ; k < len(h.lines); k++ {
		m := memberKVRE.FindStringSubmatch(h.lines[k])
		if m == nil {
			p.errorf(h.pos(k), RuleHeader, "unexpected header line %q; after allowance: come only pending: and the coordinated `base <member>:`/`seeded <member>:` pairs", h.lines[k])
			continue
		}
		vpos := parse.Pos{Line: h.start + k, Col: len(m[1]) + len(m[2]) + 4}
		switch m[1] {
		case "base":
			if !sha40RE.MatchString(m[3]) {
				p.errorf(vpos, RuleHeader, "base %s must be a full 40-character lowercase commit SHA, got %q", m[2], m[3])
			}
			if _, dup := l.MemberMeta(m[2]); dup {
				p.errorf(h.pos(k), RuleHeader, "member %s has a second base line", m[2])
			}
			l.Members = append(l.Members, Member{Name: m[2], Base: m[3]})
		case "seeded":
			mm, ok := l.MemberMeta(m[2])
			if !ok || l.Members[len(l.Members)-1].Name != m[2] {
				p.errorf(h.pos(k), RuleHeader, "seeded %s: must directly follow base %s:", m[2], m[2])
				continue
			}
			if m[3] != "yes" && m[3] != "no" {
				p.errorf(vpos, RuleHeader, "seeded %s must be yes or no, got %q", m[2], m[3])
			}
			mm.Seeded = m[3] == "yes"
		}
	}
}

// ParsePending parses `<target> | <member> | <sha>`.
func ParsePending(v string) (Pending, error) {
	parts := strings.Split(v, " | ")
	if len(parts) != 3 {
		return Pending{}, fmt.Errorf("expected `<row or seed> | <member> | <40-hex sha>`, got %q", v)
	}
	var pd Pending
	switch {
	case parts[0] == "seed":
		pd.Target = SeedTarget
	case isWholeNumber(parts[0]) && parts[0] != "0":
		pd.Target, _ = strconv.Atoi(parts[0])
	default:
		return pd, fmt.Errorf("target must be a row number or seed, got %q", parts[0])
	}
	if !memberRE.MatchString(parts[1]) {
		return pd, fmt.Errorf("member must be home or a leg name, got %q", parts[1])
	}
	pd.Member = parts[1]
	if !sha40RE.MatchString(parts[2]) {
		return pd, fmt.Errorf("sha must be a full 40-character lowercase commit SHA, got %q", parts[2])
	}
	pd.SHA = parts[2]
	return pd, nil
}

// tableAt returns the goldmark table whose header is line n, if any.
func (p *parser) tableAt(n int) *parse.Table {
	for _, b := range p.doc.Blocks {
		if t, ok := b.(*parse.Table); ok && t.Header.Line.Pos.Line == n {
			return t
		}
	}
	return nil
}

// tableLines checks a table's header and delimiter and returns the body row
// lines. want is the exact header cells.
func (p *parser) tableLines(want []string, rule string) ([]parse.Row, bool) {
	t := p.tableAt(p.i)
	if t == nil {
		p.errorf(p.at(1), rule, "expected the table header `| %s |` here, got %q", strings.Join(want, " | "), p.line())
		return nil, false
	}
	var got []string
	for _, c := range t.Header.Cells {
		got = append(got, c.Text)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		p.errorf(p.at(1), rule, "table header must be `| %s |`, got %q", strings.Join(want, " | "), p.line())
		return nil, false
	}
	dcells := parse.SplitCells(t.Delimiter.Text, t.Delimiter.Pos)
	for _, c := range dcells {
		if !delimRE.MatchString(c.Raw) {
			p.errorf(t.Delimiter.Pos, rule, "expected the delimiter row `|%s` after the table header", strings.Repeat("---|", len(want)))
			return nil, false
		}
	}
	if len(dcells) != len(want) {
		p.errorf(t.Delimiter.Pos, rule, "the delimiter row must have %d columns, got %d", len(want), len(dcells))
		return nil, false
	}
	p.i = t.Delimiter.Pos.Line + 1
	for _, r := range t.Rows {
		if r.Line.Pos.Line != p.i {
			p.errorf(p.at(1), rule, "table rows must follow each other without a break")
			return nil, false
		}
		p.i++
	}
	return t.Rows, true
}

func (p *parser) rowTable() {
	if p.i > p.n || !strings.HasPrefix(p.line(), "|") {
		p.errorf(p.at(1), RuleTable, "expected the row table `| row | status | attempts | evidence |` after the header and one blank line")
		return
	}
	p.l.at.table = p.i
	rows, ok := p.tableLines([]string{"row", "status", "attempts", "evidence"}, RuleTable)
	if !ok {
		return
	}
	for i, r := range rows {
		row, ok := p.row(r, i+1)
		if ok {
			p.l.Rows = append(p.l.Rows, row)
			p.l.at.rows = append(p.l.at.rows, r.Line.Pos.Line)
		}
	}
}

// row reads one `| n | status | attempts | evidence |` line.
func (p *parser) row(r parse.Row, want int) (Row, bool) {
	text := trimBlankRight(r.Line.Text)
	if !strings.HasPrefix(text, "|") || !strings.HasSuffix(text, "|") || strings.HasSuffix(text, `\|`) {
		p.errorf(r.Line.Pos, RuleRow, "a row is one line `| <n> | <status> | <attempts> | <evidence> |` with leading and trailing pipes")
		return Row{}, false
	}
	cells := r.Cells
	if len(cells) != 4 {
		p.errorf(r.Line.Pos, RuleRow, "a row has 4 cells (row, status, attempts, evidence), got %d; write a literal pipe in evidence as \\|", len(cells))
		return Row{}, false
	}
	var row Row
	ok := true
	if n, err := strconv.Atoi(cells[0].Text); err != nil || n != want || !isWholeNumber(cells[0].Text) {
		p.errorf(cells[0].Pos, RuleRow, "rows are numbered 1, 2, 3 … in order; expected %d, got %q", want, cells[0].Text)
		ok = false
	}
	row.N = want
	switch Status(cells[1].Text) {
	case Open, Done, Failed, Cut:
		row.Status = Status(cells[1].Text)
	default:
		p.errorf(cells[1].Pos, RuleRow, "status must be open, done, failed or cut, got %q", cells[1].Text)
		ok = false
	}
	if !isWholeNumber(cells[2].Text) {
		p.errorf(cells[2].Pos, RuleRow, "attempts must be a whole number of at least 0, got %q", cells[2].Text)
		ok = false
	}
	row.Attempts, _ = strconv.Atoi(cells[2].Text)
	row.Evidence = cells[3].Text
	if msg := EvidenceProblem(row.Evidence); msg != "" {
		p.errorf(cells[3].Pos, RuleEvidence, "evidence %s", msg)
		ok = false
	}
	return row, ok
}

// EvidenceProblem says what is wrong with an evidence text, or "". Evidence
// is one plain-text cell: no angle-bracket markup, no control characters,
// and no backslash directly before a pipe, which a table cell cannot tell
// from an escaped pipe.
func EvidenceProblem(e string) string {
	switch {
	case hasControl(e):
		return "has a control character (" + controlReason(e) + "); evidence is one line of plain text"
	case hasMarkup(e):
		return "contains angle-bracket markup; evidence is plain text"
	case strings.Contains(e, `\|`):
		return `has a backslash directly before a pipe, which a table cell cannot represent`
	case strings.TrimSpace(e) != e:
		return "has surrounding whitespace"
	}
	return ""
}

// hasMarkup reports angle-bracket markup: `<` followed by a letter, `/`,
// `!` or `?`, the start of an HTML tag, comment or declaration.
func hasMarkup(s string) bool {
	for i := strings.IndexByte(s, '<'); i >= 0 && i+1 < len(s); {
		c := s[i+1]
		if c == '/' || c == '!' || c == '?' || (c|0x20) >= 'a' && (c|0x20) <= 'z' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// sections reads `## Leg mapping`, `## Decisions`, `## Delivery`, `## Proof`,
// `## Tasks` and `## Requests`, in that order.
func (p *parser) sections() {
	order := []string{"Leg mapping", "Decisions", "Delivery", "Proof", "Tasks", "Requests"}
	next := 0
	seenDecisions := false
	for {
		p.skipBlank()
		if p.i > p.n {
			break
		}
		ln := p.line()
		title, ok := strings.CutPrefix(ln, "## ")
		if !ok || !p.isHeading(p.i) {
			p.errorf(p.at(1), RuleSection, "unexpected line %q; after the row table come only the sections ## Leg mapping, ## Decisions, ## Delivery, ## Proof, ## Tasks and ## Requests", ln)
			p.i++
			continue
		}
		idx := -1
		for j, o := range order {
			if title == o {
				idx = j
			}
		}
		if idx < 0 {
			p.errorf(p.at(4), RuleSection, "unknown section %q; a ledger has ## Leg mapping, ## Decisions, ## Delivery, ## Proof, ## Tasks and ## Requests", title)
			p.i++
			p.skipSection()
			continue
		}
		if idx < next {
			p.errorf(p.at(4), RuleSection, "section ## %s is out of order or repeated; the order is Leg mapping, Decisions, Delivery, Proof, Tasks, Requests", title)
			p.i++
			p.skipSection()
			continue
		}
		next = idx + 1
		p.i++
		switch title {
		case "Leg mapping":
			p.mapping()
		case "Decisions":
			seenDecisions = true
			p.decisions()
		case "Delivery":
			p.delivery()
		case "Proof":
			p.proof()
		case "Tasks":
			p.tasks()
		case "Requests":
			p.requests()
		}
	}
	if !seenDecisions {
		p.errorf(parse.Pos{Line: p.n, Col: 1}, RuleSection, "missing the ## Decisions section (it may be empty)")
	}
}

func (p *parser) isHeading(n int) bool {
	for _, b := range p.doc.Blocks {
		if h, ok := b.(*parse.Heading); ok && h.Level == 2 && h.Pos.Line == n {
			return true
		}
	}
	return false
}

func (p *parser) skipSection() {
	for p.i <= p.n && !strings.HasPrefix(p.line(), "## ") {
		p.i++
	}
}

// sectionLines returns the section's lines up to the next `## ` heading,
// with trailing blank lines dropped; blank lines inside are reported by the
// caller as it sees fit.
func (p *parser) sectionLines() []parse.Line {
	end := p.i
	for end <= p.n && !strings.HasPrefix(p.doc.Line(end), "## ") {
		end++
	}
	out := make([]parse.Line, 0, end-p.i)
	for p.i <= p.n && !(strings.HasPrefix(p.line(), "## ") && p.isHeading(p.i)) {
		out = append(out, parse.Line{Text: trimBlankRight(p.line()), Pos: p.at(1)})
		p.i++
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1].Text) == "" {
		out = out[:len(out)-1]
	}
	return out
}

func (p *parser) mapping() {
	p.skipBlank()
	if p.i > p.n {
		p.errorf(parse.Pos{Line: p.n, Col: 1}, RuleMapping, "## Leg mapping needs its table `| row | ac | leg |`")
		return
	}
	rows, ok := p.tableLines([]string{"row", "ac", "leg"}, RuleMapping)
	if !ok {
		p.skipSection()
		return
	}
	p.l.Mapping = []Mapping{}
	for _, r := range rows {
		cells := r.Cells
		if len(cells) != 3 {
			p.errorf(r.Line.Pos, RuleMapping, "a mapping row has 3 cells (row, ac, leg), got %d", len(cells))
			continue
		}
		row, err1 := strconv.Atoi(cells[0].Text)
		ac, err2 := strconv.Atoi(cells[1].Text)
		if err1 != nil || err2 != nil || row < 1 || ac < 1 || !isWholeNumber(cells[0].Text) || !isWholeNumber(cells[1].Text) {
			p.errorf(r.Line.Pos, RuleMapping, "row and ac must be numbers from 1, got %q and %q", cells[0].Text, cells[1].Text)
			continue
		}
		p.l.Mapping = append(p.l.Mapping, Mapping{Row: row, AC: ac, Leg: cells[2].Text})
		p.l.at.mapping = append(p.l.at.mapping, r.Line.Pos.Line)
	}
	if rest := p.sectionLines(); len(rest) > 0 {
		p.errorf(rest[0].Pos, RuleMapping, "unexpected line after the leg mapping table: %q", rest[0].Text)
	}
}

func (p *parser) decisions() {
	if p.i <= p.n && p.line() == "" && p.i+1 <= p.n && strings.HasPrefix(p.doc.Line(p.i+1), "row") {
		p.l.DecisionsGap = true
	}
	lines := p.sectionLines()
	p.l.Decisions = make([]Decision, 0, len(lines))
	p.l.at.decisions = make([]int, 0, len(lines))
	for _, ln := range lines {
		if strings.TrimSpace(ln.Text) == "" {
			continue
		}
		d, err := ParseDecision(ln.Text)
		if err != nil {
			p.errorf(ln.Pos, RuleDecision, "%v", err)
			continue
		}
		p.l.Decisions = append(p.l.Decisions, d)
		p.l.at.decisions = append(p.l.at.decisions, ln.Pos.Line)
	}
}

func (p *parser) delivery() {
	p.l.Delivery = NewDelivery()
	seen := map[string]bool{}
	for _, ln := range p.sectionLines() {
		if strings.TrimSpace(ln.Text) == "" {
			continue
		}
		key, val, ok := strings.Cut(ln.Text, ": ")
		if !ok {
			p.errorf(ln.Pos, RuleDelivery, "expected a `key: value` line, got %q", ln.Text)
			continue
		}
		if seen[key] {
			p.errorf(ln.Pos, RuleDelivery, "%s is set twice", key)
			continue
		}
		seen[key] = true
		if err := parseDeliveryLine(p.l.Delivery, key, val); err != nil {
			if errors.Is(err, errUnknownKey) {
				p.errorf(ln.Pos, RuleDelivery, "unknown delivery key %q; see docs/ledger.md for the keys", key)
			} else {
				p.errorf(parse.Pos{Line: ln.Pos.Line, Col: len(key) + 3}, RuleDelivery, "%s %v", key, err)
			}
			continue
		}
		if key == KeyChain {
			p.l.at.chain = ln.Pos.Line
		}
	}
}

func (p *parser) requests() {
	p.l.HasRequests = true
	for _, ln := range p.sectionLines() {
		if strings.TrimSpace(ln.Text) == "" {
			continue
		}
		p.l.Requests = append(p.l.Requests, strings.TrimRight(ln.Text, " \t"))
		p.l.at.requests = append(p.l.at.requests, ln.Pos.Line)
		if _, err := ParseRequest(ln.Text); err != nil {
			p.errorf(ln.Pos, RuleRequest, "%v", err)
		}
	}
}
