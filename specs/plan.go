package specs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
)

// Plan rule ids. Each names one rule of docs/plans.md.
const (
	RulePlanStructure     = "plan/structure"
	RulePlanDisjoint      = "plan/wave-file-disjointness"
	RulePlanPathsExist    = "plan/paths-exist"
	RulePlanTestsBlock    = "plan/tests-block"
	RulePlanSoloLine      = "plan/solo-line"
	RulePlanEntrypoint    = "plan/header-entrypoint"
	RulePlanAnchor        = "plan/anchor-resolution"
	RulePlanTableClosure  = "plan/table-closure"
	RulePlanWaiverLiteral = "plan/waiver-literal"
	RulePlanPlaceholder   = "plan/placeholder-scan"
	RulePlanQuote         = "plan/quote-integrity"
)

// Plan is a waves-and-tasks plan for one spec.
type Plan struct {
	Path string
	// Spec is the paired spec's path from the `**Spec:**` header line.
	Spec    string
	SpecPos parse.Pos
	// Verification is the header `**Verification:**` value as written;
	// VerificationSegments are its commands (its code spans, else the raw
	// value, split on &&, ||, ; and ,).
	Verification         string
	VerificationPos      parse.Pos
	VerificationSegments []string
	Waves                []*Wave
	// Coverage is the closing `## Spec coverage` table; nil when absent.
	Coverage    []CoverageRow
	CoveragePos parse.Pos
	// Prose are the text lines of the waves (paragraphs and list items
	// outside the Files and Tests blocks), for the entrypoint rule.
	Prose []parse.Line
	doc   *parse.Document
	// Format is the grammar the plan is written in: a spec-kit or Kiro
	// tasks.md is read by tasks.go and linted by the rules that apply to
	// it (docs/plans.md#spec-kit-and-kiro-tasks).
	Format Format
}

// Wave is a `## Wave N — <label>` section.
type Wave struct {
	N     int
	Label string
	Pos   parse.Pos
	// Solo is the `Solo: <reason>` reason; SoloOK reports that the line
	// sits directly under the heading.
	Solo   string
	SoloOK bool
	Tasks  []*Task
}

// Task is a `### Task N` section.
type Task struct {
	N     int
	Title string
	Pos   parse.Pos
	// SpecLine is the task's `**Spec:**` line; nil when the task has no
	// anchorable requirement.
	SpecLine *parse.Line
	Anchors  []Anchor
	Files    []PlanFile
	FilesPos parse.Pos
	HasFiles bool
	Tests    []PlanTest
	TestsPos parse.Pos
	HasTests bool
	// TestsPlaced reports that the Tests block directly follows the last
	// Files entry.
	TestsPlaced bool
	Runs        []PlanValue
	// ID is a spec-kit or Kiro task's own id (T012, 2.1); Parallel is
	// spec-kit's [P]; Criteria are the criterion ids the task cites
	// (spec-kit: its [USn] story's scenarios; Kiro: _Requirements:_).
	ID       string
	Parallel bool
	Criteria []PlanValue
}

// PlanFile is one `Create:`, `Modify:`, `Delete:` or `Test:` entry.
type PlanFile struct {
	Kind string
	Path string
	Pos  parse.Pos
}

// Writes reports whether the entry writes its path.
func (f PlanFile) Writes() bool { return f.Kind != "Test" }

// PlanTest is one `**Tests:**` bullet: a command (a code span), `via: <entry
// point>` or `none: <category>`.
type PlanTest struct {
	Kind string // command, via, none
	Text string
	Pos  parse.Pos
}

// PlanValue is a value and where it is.
type PlanValue struct {
	Text string
	Pos  parse.Pos
}

// Anchor is `§ "<section>" L<a>-L<b>`: lines of a section of the spec.
type Anchor struct {
	Section  string
	From, To int
	Pos      parse.Pos
}

func (a Anchor) String() string {
	if a.From == a.To {
		return fmt.Sprintf("§ %q L%d", a.Section, a.From)
	}
	return fmt.Sprintf("§ %q L%d-L%d", a.Section, a.From, a.To)
}

// CoverageRow is one row of `## Spec coverage`.
type CoverageRow struct {
	Anchor, Requirement, Owner parse.Cell
	// Anchors are the parsed anchors; Mechanical rows have anchor `-`.
	Anchors      []Anchor
	Mechanical   bool
	Owners       []int
	Verification bool
	Waived       string
}

var (
	waveRE     = regexp.MustCompile(`^Wave ([0-9]+) (?:—|–|-) (\S.*)$`)
	taskRE     = regexp.MustCompile(`^Task ([0-9]+)(?:(?::| —| –| -) *(.*))?$`)
	spanRE1    = regexp.MustCompile("`+([^`]+?)`+")
	fileRE     = regexp.MustCompile(`^(Create|Modify|Delete|Test): +(\S.*)$`)
	anchorRE   = regexp.MustCompile(`^§ *"([^"]+)" +L([1-9][0-9]*)(?:-L([1-9][0-9]*))?$`)
	ownerRE    = regexp.MustCompile(`^Task ([1-9][0-9]*)$`)
	coverageHd = []string{"anchor", "requirement (short)", "owner"}
)

// spansOf returns the backtick code spans of a line with their positions.
func spansOf(l parse.Line) []PlanValue {
	var out []PlanValue
	for _, m := range spanRE1.FindAllStringSubmatchIndex(l.Text, -1) {
		out = append(out, PlanValue{Text: strings.TrimSpace(l.Text[m[2]:m[3]]), Pos: colAt(l, m[0])})
	}
	return out
}

// colAt is the position of byte i of a line.
func colAt(l parse.Line, i int) parse.Pos {
	return parse.Pos{Line: l.Pos.Line, Col: l.Pos.Col + utf8.RuneCountInString(l.Text[:i])}
}

// valueOf is a `Key: value` line's value: its code spans when it has any,
// else the raw text.
func valueOf(l parse.Line, prefixLen int) []PlanValue {
	rest := parse.Line{Text: l.Text[prefixLen:], Pos: colAt(l, prefixLen)}
	if spans := spansOf(rest); len(spans) > 0 {
		return spans
	}
	t := strings.TrimSpace(rest.Text)
	return []PlanValue{{Text: t, Pos: colAt(rest, len(rest.Text)-len(strings.TrimLeft(rest.Text, " ")))}}
}

// SplitCommand splits a shell command into segments on &&, ||, ; and |
// outside quotes (and on , when comma is true). Segments are trimmed;
// empty ones are dropped.
func SplitCommand(cmd string, comma bool) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, strings.Join(strings.Fields(s), " "))
		}
		cur.Reset()
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			cur.WriteRune(r)
		case r == ';' || (comma && r == ','):
			flush()
		case (r == '&' || r == '|') && i+1 < len(rs) && rs[i+1] == r:
			flush()
			i++
		case r == '|':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// ParsePlan reads a plan's structure. It reports `plan/structure` problems;
// the other rules need the paired spec and run in CheckPlan.
func ParsePlan(doc *parse.Document) (*Plan, parse.Diagnostics) {
	pp := &planParser{p: &Plan{Path: doc.Path, doc: doc}, doc: doc, seenTask: map[int]parse.Pos{}}
	pp.ds = append(pp.ds, doc.Diagnostics...)
	if pp.ds.HasErrors() {
		return pp.p, pp.ds
	}
	for bi, b := range doc.Blocks {
		if h, ok := b.(*parse.Heading); ok {
			pp.heading(bi, h)
			continue
		}
		pp.block(b)
	}
	pp.finish()
	return pp.p, pp.ds
}

// planParser is the state of one ParsePlan: where in the plan the block
// loop is (header, a wave, a task, the coverage section) and what it has
// seen so far.
type planParser struct {
	p        *Plan
	doc      *parse.Document
	ds       parse.Diagnostics
	wave     *Wave
	task     *Task
	coverage bool
	seenTask map[int]parse.Pos
	// awaiting says which block header (**Files:**, **Tests:**) came last,
	// so that the list after it is read as its entries; lastKind is the
	// kind of the task's previous block, to place the Tests block.
	awaiting         string
	lastKind         string
	verificationSeen bool
	pastHeader       bool
}

func (pp *planParser) errorf(at parse.Pos, rule, format string, args ...any) {
	pp.ds.Errorf(pp.doc.Path, at, rule, format, args...)
}

// headerLine reads one line of the plan's header: **Spec:** and
// **Verification:**; other lines are prose.
func (pp *planParser) headerLine(l parse.Line) {
	p := pp.p
	switch {
	case strings.HasPrefix(l.Text, "**Spec:**"):
		if p.Spec != "" {
			pp.errorf(l.Pos, RulePlanStructure, "the plan has two **Spec:** lines; keep one")
			return
		}
		v := valueOf(l, len("**Spec:**"))
		if len(v) != 1 || !strings.HasSuffix(v[0].Text, ".md") || strings.ContainsAny(v[0].Text, " \t") {
			pp.errorf(l.Pos, RulePlanStructure, "**Spec:** holds the spec's path only, like **Spec:** `specs/rate-limiter.md`")
			return
		}
		p.Spec, p.SpecPos = strings.TrimPrefix(v[0].Text, "./"), v[0].Pos
	case strings.HasPrefix(l.Text, "**Verification:**"):
		if pp.verificationSeen {
			pp.errorf(l.Pos, RulePlanStructure, "the plan has two **Verification:** lines; keep one")
			return
		}
		vs := valueOf(l, len("**Verification:**"))
		p.Verification, p.VerificationPos = strings.TrimSpace(l.Text[len("**Verification:**"):]), vs[0].Pos
		pp.verificationSeen = true
		for _, v := range vs {
			p.VerificationSegments = append(p.VerificationSegments, SplitCommand(v.Text, true)...)
		}
		if p.Verification == "" {
			pp.errorf(l.Pos, RulePlanStructure, "**Verification:** is empty; give the full-suite command, like **Verification:** `go test ./...`")
		}
	}
}

// heading moves the parser to the section a heading opens: a wave (level
// 2), a task (level 3), or the closing ## Spec coverage. bi is the
// heading's index in the document's blocks, to read a wave's Solo: line.
func (pp *planParser) heading(bi int, h *parse.Heading) {
	pp.awaiting, pp.lastKind = "", ""
	// Header lines come before the first section.
	pp.pastHeader = pp.pastHeader || h.Level >= 2
	switch h.Level {
	case 1:
	case 2:
		pp.waveHeading(bi, h)
	case 3:
		pp.taskHeading(h)
	default:
		if pp.wave != nil && pp.task == nil {
			pp.errorf(h.Pos, RulePlanStructure, "a wave holds `### Task N` sections only; %q is not one", h.Text)
		}
	}
}

func (pp *planParser) waveHeading(bi int, h *parse.Heading) {
	p := pp.p
	pp.task = nil
	if pp.coverage {
		pp.errorf(h.Pos, RulePlanStructure, "## Spec coverage closes the plan; move %q before it", h.Text)
		return
	}
	if h.Text == "Spec coverage" {
		pp.coverage, pp.wave, p.CoveragePos = true, nil, h.Pos
		return
	}
	m := waveRE.FindStringSubmatch(h.Text)
	if m == nil {
		if len(p.Waves) > 0 {
			pp.errorf(h.Pos, RulePlanStructure, "%q sits between waves; after the first wave only `## Wave N — <label>` sections and the closing ## Spec coverage follow", h.Text)
		}
		pp.wave = nil
		return
	}
	n, _ := strconv.Atoi(m[1])
	if n != len(p.Waves)+1 {
		pp.errorf(h.Pos, RulePlanStructure, "wave %d follows wave %d; number waves 1, 2, 3 in order", n, len(p.Waves))
	}
	wave := &Wave{N: n, Label: m[2], Pos: h.Pos}
	pp.wave = wave
	p.Waves = append(p.Waves, wave)
	if bi+1 < len(pp.doc.Blocks) {
		if para, ok := pp.doc.Blocks[bi+1].(*parse.Paragraph); ok && strings.HasPrefix(para.Lines[0].Text, "Solo:") {
			wave.Solo, wave.SoloOK = strings.TrimSpace(strings.TrimPrefix(para.Lines[0].Text, "Solo:")), true
		}
	}
}

func (pp *planParser) taskHeading(h *parse.Heading) {
	pp.task = nil
	m := taskRE.FindStringSubmatch(h.Text)
	if pp.wave == nil {
		if m != nil {
			pp.errorf(h.Pos, RulePlanStructure, "%q is outside any wave; put it under a `## Wave N — <label>` heading", h.Text)
		}
		return
	}
	if m == nil {
		pp.errorf(h.Pos, RulePlanStructure, "a wave holds `### Task N` sections only; %q is not one", h.Text)
		return
	}
	n, _ := strconv.Atoi(m[1])
	if prev, dup := pp.seenTask[n]; dup {
		pp.errorf(h.Pos, RulePlanStructure, "task %d is already at line %d; task numbers are unique across the plan", n, prev.Line)
	}
	pp.seenTask[n] = h.Pos
	pp.task = &Task{N: n, Title: m[2], Pos: h.Pos}
	pp.wave.Tasks = append(pp.wave.Tasks, pp.task)
}

// block reads a block that is not a heading, by the section it is in.
func (pp *planParser) block(b parse.Block) {
	p := pp.p
	switch {
	case pp.coverage:
		if t, ok := b.(*parse.Table); ok && p.Coverage == nil {
			p.Coverage = p.coverageRows(t, &pp.ds)
		}
	case pp.wave == nil:
		if para, ok := b.(*parse.Paragraph); ok && !pp.pastHeader {
			for _, l := range para.Lines {
				pp.headerLine(l)
			}
		}
	case pp.task == nil:
		p.collectProse(b)
	default:
		p.taskBlock(pp.task, b, &pp.awaiting, &pp.lastKind, pp.errorf)
	}
}

// finish reports what the whole plan lacks: its header lines, a wave, a
// task in each wave and a **Files:** block in each task.
func (pp *planParser) finish() {
	p := pp.p
	if p.Spec == "" {
		pp.errorf(parse.Pos{Line: 1, Col: 1}, RulePlanStructure, "the plan has no **Spec:** line; add **Spec:** `specs/<name>.md` before the first wave")
	}
	if !pp.verificationSeen {
		pp.errorf(parse.Pos{Line: 1, Col: 1}, RulePlanStructure, "the plan has no **Verification:** line; add the full-suite command, like **Verification:** `go test ./...`, before the first wave")
	}
	if len(p.Waves) == 0 {
		pp.errorf(pp.doc.EndPos(), RulePlanStructure, "the plan has no `## Wave 1 — <label>` section")
	}
	for _, w := range p.Waves {
		if len(w.Tasks) == 0 {
			pp.errorf(w.Pos, RulePlanStructure, "wave %d has no `### Task N` section", w.N)
		}
		for _, t := range w.Tasks {
			if !t.HasFiles {
				pp.errorf(t.Pos, RulePlanStructure, "task %d has no **Files:** block; list its Create:, Modify: and Test: paths", t.N)
			}
		}
	}
}

// taskBlock reads one block of a task section.
func (p *Plan) taskBlock(t *Task, b parse.Block, awaiting, lastKind *string, errorf func(parse.Pos, string, string, ...any)) {
	kind := ""
	defer func() { *lastKind = kind }()
	switch b := b.(type) {
	case *parse.Paragraph:
		first := b.Lines[0]
		switch {
		case strings.HasPrefix(first.Text, "**Spec:**"):
			kind = "spec"
			l := first
			t.SpecLine = &l
			t.Anchors = parseAnchors(first, len("**Spec:**"), t, errorf)
			p.collectRest(b.Lines[1:])
			return
		case strings.TrimSpace(first.Text) == "**Files:**":
			kind, *awaiting = "files-head", "files"
			t.HasFiles, t.FilesPos = true, first.Pos
			return
		case strings.TrimSpace(first.Text) == "**Tests:**":
			kind, *awaiting = "tests-head", "tests"
			t.HasTests, t.TestsPos = true, first.Pos
			t.TestsPlaced = *lastKind == "files"
			return
		}
		p.collectProse(b)
		p.runsIn(t, b.Lines)
	case *parse.List:
		switch *awaiting {
		case "files":
			kind, *awaiting = "files", ""
			for _, it := range b.Items {
				m := fileRE.FindStringSubmatch(it.Text())
				if m == nil {
					errorf(it.TextPos(), RulePlanStructure, "a **Files:** entry is `Create: <path>`, `Modify: <path>`, `Delete: <path>` or `Test: <path>`, got %q", it.Text())
					continue
				}
				v := valueOf(it.Lines[0], len(m[1])+1)
				for _, pv := range v {
					t.Files = append(t.Files, PlanFile{Kind: m[1], Path: strings.TrimPrefix(pv.Text, "./"), Pos: pv.Pos})
				}
			}
			return
		case "tests":
			kind, *awaiting = "tests", ""
			for _, it := range b.Items {
				text := strings.TrimSpace(it.Text())
				switch {
				case strings.HasPrefix(text, "via:"):
					t.Tests = append(t.Tests, PlanTest{Kind: "via", Text: strings.TrimSpace(strings.TrimPrefix(text, "via:")), Pos: it.TextPos()})
				case strings.HasPrefix(text, "none:"):
					t.Tests = append(t.Tests, PlanTest{Kind: "none", Text: strings.TrimSpace(strings.TrimPrefix(text, "none:")), Pos: it.TextPos()})
				case len(it.Lines) == 0:
					t.Tests = append(t.Tests, PlanTest{Kind: "bad", Text: text, Pos: it.TextPos()})
				default:
					spans := spansOf(it.Lines[0])
					if len(spans) != 1 || strings.TrimSpace(spanRE1.ReplaceAllString(it.Text(), "")) != "" {
						t.Tests = append(t.Tests, PlanTest{Kind: "bad", Text: text, Pos: it.TextPos()})
						continue
					}
					t.Tests = append(t.Tests, PlanTest{Kind: "command", Text: spans[0].Text, Pos: spans[0].Pos})
				}
			}
			return
		}
		p.collectProse(b)
		for _, it := range b.Items {
			p.runsIn(t, it.Lines)
		}
	default:
		p.collectProse(b)
	}
}

// runsIn records `Run:` steps.
func (p *Plan) runsIn(t *Task, lines []parse.Line) {
	for _, l := range lines {
		if strings.HasPrefix(l.Text, "Run:") {
			t.Runs = append(t.Runs, valueOf(l, len("Run:"))...)
		}
	}
}

func (p *Plan) collectRest(lines []parse.Line) { p.Prose = append(p.Prose, lines...) }

// collectProse records the text lines of a block inside the waves.
func (p *Plan) collectProse(b parse.Block) {
	switch b := b.(type) {
	case *parse.Paragraph:
		p.collectRest(b.Lines)
	case *parse.List:
		for _, it := range b.Items {
			p.collectRest(it.Lines)
			for _, nb := range it.Blocks {
				p.collectProse(nb)
			}
		}
	case *parse.Quote:
		for _, nb := range b.Blocks {
			p.collectProse(nb)
		}
	case *parse.Table:
		for _, r := range append([]parse.Row{b.Header}, b.Rows...) {
			p.collectRest([]parse.Line{r.Line})
		}
	}
}

// parseAnchors reads a `**Spec:**` line's comma-separated anchors.
func parseAnchors(l parse.Line, prefix int, t *Task, errorf func(parse.Pos, string, string, ...any)) []Anchor {
	rest := l.Text[prefix:]
	if strings.TrimSpace(rest) == "none" {
		errorf(colAt(l, prefix+1), RulePlanAnchor, "task %d says **Spec:** none; a task with no anchorable requirement omits the **Spec:** line and owns a mechanical row of the coverage table", t.N)
		return nil
	}
	var out []Anchor
	off := prefix
	for _, part := range strings.Split(rest, ",") {
		trimmed := strings.TrimSpace(part)
		at := colAt(l, off+strings.Index(part, trimmed))
		off += len(part) + 1
		a, ok := parseAnchor(trimmed)
		if !ok {
			errorf(at, RulePlanAnchor, "%q is not an anchor; write § \"<section>\" L<a>-L<b> (or L<a>), several separated by commas", trimmed)
			continue
		}
		a.Pos = at
		out = append(out, a)
	}
	return out
}

func parseAnchor(s string) (Anchor, bool) {
	m := anchorRE.FindStringSubmatch(s)
	if m == nil {
		return Anchor{}, false
	}
	a := Anchor{Section: m[1]}
	a.From, _ = strconv.Atoi(m[2])
	a.To = a.From
	if m[3] != "" {
		a.To, _ = strconv.Atoi(m[3])
	}
	return a, a.To >= a.From
}

// coverageRows reads the coverage table.
func (p *Plan) coverageRows(t *parse.Table, ds *parse.Diagnostics) []CoverageRow {
	var hd []string
	for _, c := range t.Header.Cells {
		hd = append(hd, c.Text)
	}
	if strings.Join(hd, "|") != strings.Join(coverageHd, "|") {
		ds.Errorf(p.Path, t.Header.Line.Pos, RulePlanTableClosure, "the coverage table's header is | anchor | requirement (short) | owner |")
		return []CoverageRow{}
	}
	out := []CoverageRow{}
	for _, r := range t.Rows {
		if len(r.Cells) != 3 {
			ds.Errorf(p.Path, r.Line.Pos, RulePlanTableClosure, "a coverage row has 3 cells (anchor, requirement, owner); this one has %d", len(r.Cells))
			continue
		}
		row := CoverageRow{Anchor: r.Cells[0], Requirement: r.Cells[1], Owner: r.Cells[2]}
		switch a := row.Anchor.Text; {
		case a == "-":
			row.Mechanical = true
			if !strings.HasPrefix(row.Requirement.Text, "mechanical: ") {
				ds.Errorf(p.Path, row.Requirement.Pos, RulePlanTableClosure, "a row with anchor - is a mechanical row; its requirement reads `mechanical: <short>`")
			}
		default:
			for _, part := range strings.Split(a, ",") {
				an, ok := parseAnchor(strings.TrimSpace(part))
				if !ok {
					ds.Errorf(p.Path, row.Anchor.Pos, RulePlanTableClosure, "%q is not an anchor; write § \"<section>\" L<a>-L<b>, or - for a mechanical row", strings.TrimSpace(part))
					continue
				}
				an.Pos = row.Anchor.Pos
				row.Anchors = append(row.Anchors, an)
			}
		}
		switch o := row.Owner.Text; {
		case o == "Verification":
			row.Verification = true
		case strings.HasPrefix(o, "waived:"):
			row.Waived = strings.TrimSpace(strings.TrimPrefix(o, "waived:"))
			if row.Waived == "" {
				ds.Errorf(p.Path, row.Owner.Pos, RulePlanTableClosure, "waived: needs a reason, like waived: covered by the existing suite")
			}
		default:
			for _, part := range strings.Split(o, ",") {
				m := ownerRE.FindStringSubmatch(strings.TrimSpace(part))
				if m == nil {
					ds.Errorf(p.Path, row.Owner.Pos, RulePlanTableClosure, "owner %q is not a task list (Task 2, Task 4), Verification or waived: <reason>", o)
					row.Owners = nil
					break
				}
				n, _ := strconv.Atoi(m[1])
				row.Owners = append(row.Owners, n)
			}
		}
		out = append(out, row)
	}
	return out
}

// Tasks returns every task in plan order.
func (p *Plan) Tasks() []*Task {
	var out []*Task
	for _, w := range p.Waves {
		out = append(out, w.Tasks...)
	}
	return out
}
