package specs

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

// PlanContext is what a plan is checked against.
type PlanContext struct {
	// Spec and SpecDoc are the paired spec and its parsed document.
	Spec    *Spec
	SpecDoc *parse.Document
	// Target is the target repository's tree; nil when none is at hand,
	// and then paths-exist is reported as skipped, never as passed.
	Target fs.FS
}

// CheckPlan runs every plan rule but the structural ones ParsePlan
// reports: wave file disjointness, paths, tests blocks, solo lines, the
// header-only entrypoint, spec anchors, the coverage table, waivers,
// placeholders and quote integrity. Each diagnostic says what to do.
func CheckPlan(p *Plan, c PlanContext) parse.Diagnostics {
	ck := &planCheck{p: p, c: c}
	ck.text, ck.lits = ck.lines(), ck.literals()
	if p.Format != FormatGallivant {
		ck.checkTasks()
		return ck.ds
	}
	ck.disjoint()
	ck.pathsExist()
	ck.testsBlocks()
	ck.soloLines()
	ck.entrypoint()
	ck.anchors()
	ck.table()
	ck.placeholders()
	ck.quotes()
	return ck.ds
}

type planCheck struct {
	p  *Plan
	c  PlanContext
	ds parse.Diagnostics
	// text is the plan's lines outside code blocks; lits the spec's code
	// spans.
	text []parse.Line
	lits map[string]bool
}

func (ck *planCheck) errorf(at parse.Pos, rule, format string, args ...any) {
	ck.ds.Errorf(ck.p.Path, at, rule, format, args...)
}

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// overlaps reports whether two declared paths can name the same file: equal
// paths, a directory (trailing /) and a path under it, or a glob matching
// the other. Two globs overlap when one's literal prefix is a prefix of the
// other's, the conservative answer.
func overlaps(a, b string) bool {
	if a == b {
		return true
	}
	for _, pr := range [][2]string{{a, b}, {b, a}} {
		x, y := pr[0], pr[1]
		if strings.HasSuffix(x, "/") && strings.HasPrefix(y, x) {
			return true
		}
		if strings.HasSuffix(x, "/**") && strings.HasPrefix(y, strings.TrimSuffix(x, "**")) {
			return true
		}
		if isGlob(x) && !isGlob(y) {
			if ok, _ := path.Match(x, y); ok {
				return true
			}
		}
	}
	if isGlob(a) && isGlob(b) {
		pa, pb := literalPrefix(a), literalPrefix(b)
		return strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)
	}
	return false
}

func literalPrefix(g string) string {
	if i := strings.IndexAny(g, "*?["); i >= 0 {
		return g[:i]
	}
	return g
}

// disjoint: within a wave, writers never overlap writers or another task's
// tests; tests may share a path with tests.
func (ck *planCheck) disjoint() {
	for _, w := range ck.p.Waves {
		for _, t := range w.Tasks {
			for _, f := range t.Files {
				if isGlob(f.Path) && f.Kind != "Modify" && f.Kind != "Test" {
					ck.errorf(f.Pos, RulePlanDisjoint, "%s: %s is a glob; only Modify: takes a glob, %s: names exact paths", f.Kind, f.Path, f.Kind)
				}
			}
		}
		for i, a := range w.Tasks {
			for _, b := range w.Tasks[i+1:] {
				for _, fb := range b.Files {
					for _, fa := range a.Files {
						if (!fa.Writes() && !fb.Writes()) || !overlaps(fa.Path, fb.Path) {
							continue
						}
						ck.errorf(fb.Pos, RulePlanDisjoint, "task %d's %s: %s overlaps task %d's %s: %s in wave %d; tasks of one wave own disjoint files: move one task to a later wave",
							b.N, fb.Kind, fb.Path, a.N, fa.Kind, fa.Path, w.N)
						break
					}
				}
			}
		}
	}
}

// creates returns every Create: path of the plan.
func (ck *planCheck) creates() map[string]bool {
	out := map[string]bool{}
	for _, t := range ck.p.Tasks() {
		for _, f := range t.Files {
			if f.Kind == "Create" {
				out[f.Path] = true
			}
		}
	}
	return out
}

// pathsExist: Modify: and Delete: paths exist in the target tree.
func (ck *planCheck) pathsExist() {
	if ck.c.Target == nil {
		ck.ds.Add(ck.p.Path, parse.Pos{Line: 1, Col: 1}, parse.SeverityInfo, RulePlanPathsExist,
			"skipped, not passed: no target repository tree to check Modify:, Delete: and Test: paths against (gallivant check --target DIR)")
		return
	}
	for _, t := range ck.p.Tasks() {
		for _, f := range t.Files {
			if f.Kind != "Modify" && f.Kind != "Delete" {
				continue
			}
			if isGlob(f.Path) {
				if ms, err := fs.Glob(ck.c.Target, f.Path); err != nil || len(ms) == 0 {
					ck.errorf(f.Pos, RulePlanPathsExist, "%s: %s matches no file of the target repository; fix the pattern, or use Create: for new files", f.Kind, f.Path)
				}
				continue
			}
			if _, err := fs.Stat(ck.c.Target, strings.TrimSuffix(f.Path, "/")); err != nil {
				ck.errorf(f.Pos, RulePlanPathsExist, "%s: %s does not exist in the target repository; use Create: for a new file, or fix the path", f.Kind, f.Path)
			}
		}
	}
}

var unsupported = []string{"cd ", "sh -c", "bash -c", "eval ", "$("}

// testsBlocks: every task carries selective tests anchored on its own Test:
// paths, directly after its Files entries.
func (ck *planCheck) testsBlocks() {
	creates := ck.creates()
	header := map[string]bool{}
	for _, s := range ck.p.VerificationSegments {
		header[s] = true
	}
	for _, t := range ck.p.Tasks() {
		if !t.HasTests {
			ck.errorf(t.Pos, RulePlanTestsBlock, "task %d has no **Tests:** block; add one directly after its Files entries, with a scoped test command per line (or one none: <category>)", t.N)
			continue
		}
		if !t.TestsPlaced {
			ck.errorf(t.TestsPos, RulePlanTestsBlock, "task %d's **Tests:** block must come directly after its last Files: entry", t.N)
		}
		tests := ck.testPaths(t, creates)
		commands, nones := ck.testBullets(t, tests, header)
		switch {
		case nones > 0 && (nones > 1 || len(t.Tests) > 1):
			ck.errorf(t.TestsPos, RulePlanTestsBlock, "task %d's **Tests:** block with none: holds exactly that one bullet", t.N)
		case nones == 1 && len(tests) > 0:
			ck.errorf(t.TestsPos, RulePlanTestsBlock, "task %d says none: but lists Test: paths; drop one or the other", t.N)
		case nones == 0 && commands == 0:
			ck.errorf(t.TestsPos, RulePlanTestsBlock, "task %d's **Tests:** block has no test command; add a scoped command on one of its Test: paths, or exactly one none: <category>", t.N)
		}
	}
}

// testPaths are task t's Test: paths; each that names a file must exist
// in the target repository (when it is given) or be some task's Create:
// path.
func (ck *planCheck) testPaths(t *Task, creates map[string]bool) []string {
	var tests []string
	for _, f := range t.Files {
		if f.Kind != "Test" {
			continue
		}
		tests = append(tests, f.Path)
		if ck.c.Target == nil || isGlob(f.Path) || creates[f.Path] {
			continue
		}
		if _, err := fs.Stat(ck.c.Target, strings.TrimSuffix(f.Path, "/")); err != nil {
			ck.errorf(f.Pos, RulePlanTestsBlock, "Test: %s neither exists in the target repository nor is any task's Create: path", f.Path)
		}
	}
	return tests
}

// testBullets checks each bullet of task t's **Tests:** block and counts
// its commands and its none: bullets.
func (ck *planCheck) testBullets(t *Task, tests []string, header map[string]bool) (commands, nones int) {
	for _, b := range t.Tests {
		switch b.Kind {
		case "bad":
			ck.errorf(b.Pos, RulePlanTestsBlock, "a **Tests:** bullet is one code-span command, via: <entry point> or none: <category>; got %q", b.Text)
		case "none":
			nones++
			if b.Text == "" {
				ck.errorf(b.Pos, RulePlanTestsBlock, "none: needs a category, like none: docs-only")
			}
		case "command":
			commands++
			ck.command(t, b, tests, header)
		}
	}
	return commands, nones
}

// command checks one test command: supported shell, every segment anchored
// on a Test: path of the task, no broadening selector, no full suite.
func (ck *planCheck) command(t *Task, b PlanTest, tests []string, header map[string]bool) {
	for _, u := range unsupported {
		if strings.Contains(b.Text, u) {
			ck.errorf(b.Pos, RulePlanTestsBlock, "%q uses %q, which a test command may not; run the test tool directly on the Test: path", b.Text, strings.TrimSpace(u))
			return
		}
	}
	whole := strings.Join(strings.Fields(b.Text), " ")
	for _, seg := range SplitCommand(b.Text, false) {
		if header[seg] {
			if seg != whole || !header[whole] {
				ck.errorf(b.Pos, RulePlanTestsBlock, "%q runs the full suite (%q is part of the header verification); scope it to the task's Test: paths", b.Text, seg)
			}
			continue
		}
		toks := strings.Fields(seg)
		anchored := false
		for i, tok := range toks {
			tok = strings.Trim(tok, `'"`)
			if anchors(tok, tests) {
				anchored = true
				continue
			}
			if i > 0 && (strings.ContainsAny(tok, "*?[") || (strings.HasSuffix(tok, "/") && tok != "/")) {
				ck.errorf(b.Pos, RulePlanTestsBlock, "%q is a broadening selector in %q; name the task's Test: paths instead", tok, b.Text)
				anchored = true // reported once
				break
			}
		}
		if !anchored {
			ck.errorf(b.Pos, RulePlanTestsBlock, "%q names none of task %d's Test: paths (%s); each segment runs one of them, alone or followed by ::, # or : and a filter",
				seg, t.N, strings.Join(orNone(tests), ", "))
		}
	}
}

func orNone(l []string) []string {
	if len(l) == 0 {
		return []string{"none"}
	}
	return l
}

// anchors reports whether a token names one of the Test: paths, alone or
// followed by ::, # or : and a filter. A glob or directory Test: path never
// anchors.
func anchors(tok string, tests []string) bool {
	tok = strings.TrimPrefix(tok, "./")
	for _, t := range tests {
		if isGlob(t) || strings.HasSuffix(t, "/") {
			continue
		}
		if tok == t {
			return true
		}
		for _, sep := range []string{"::", "#", ":"} {
			if strings.HasPrefix(tok, t+sep) && len(tok) > len(t+sep) {
				return true
			}
		}
	}
	return false
}

// soloLines: a one-task wave says why under its heading.
func (ck *planCheck) soloLines() {
	for _, w := range ck.p.Waves {
		if len(w.Tasks) != 1 {
			continue
		}
		if !w.SoloOK || w.Solo == "" {
			ck.errorf(w.Pos, RulePlanSoloLine, "wave %d has one task; put `Solo: <reason>` directly under its heading, naming the blocking task or wave, the contended resource, or lone remaining task", w.N)
		}
	}
}

// entrypoint: the header verification runs once, from the header.
func (ck *planCheck) entrypoint() {
	segs := map[string]bool{}
	for _, s := range ck.p.VerificationSegments {
		segs[s] = true
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, t := range ck.p.Tasks() {
		for _, r := range t.Runs {
			if segs[norm(r.Text)] {
				ck.errorf(r.Pos, RulePlanEntrypoint, "Run: %q repeats the header verification; it runs once, from the **Verification:** line", r.Text)
			}
		}
		for _, b := range t.Tests {
			if b.Kind == "command" && segs[norm(b.Text)] {
				ck.errorf(b.Pos, RulePlanEntrypoint, "the Tests bullet %q is the header verification; a task's tests are scoped to its Test: paths", b.Text)
			}
		}
	}
	whole := ck.headerValue()
	if whole == "" {
		return
	}
	for _, l := range ck.p.Prose {
		if strings.HasPrefix(l.Text, "Run:") {
			continue // a Run: step is checked above
		}
		if i := strings.Index(l.Text, whole); i >= 0 {
			ck.errorf(colAt(l, i), RulePlanEntrypoint, "prose inside a wave restates the header verification %q; refer to it as the plan's verification instead", whole)
		}
	}
}

// headerValue is the verification value without its backticks.
func (ck *planCheck) headerValue() string {
	v := strings.TrimSpace(ck.p.Verification)
	if spans := spanRE1.FindAllStringSubmatch(v, -1); len(spans) == 1 && strings.TrimSpace(spanRE1.ReplaceAllString(v, "")) == "" {
		return strings.TrimSpace(spans[0][1])
	}
	return v
}

// anchors resolves every anchor against the paired spec.
func (ck *planCheck) anchors() {
	if ck.c.SpecDoc == nil {
		return
	}
	check := func(a Anchor) {
		h, end := ck.section(a.Section)
		switch {
		case h == nil:
			ck.errorf(a.Pos, RulePlanAnchor, "%s has no section %q; anchors name a heading of the spec exactly", ck.c.SpecDoc.Path, a.Section)
		case a.From <= h.Pos.Line || a.To > end:
			ck.errorf(a.Pos, RulePlanAnchor, "%s is outside § %q, which holds lines %d-%d of %s", a, a.Section, h.Pos.Line+1, end, ck.c.SpecDoc.Path)
		}
	}
	for _, t := range ck.p.Tasks() {
		for _, a := range t.Anchors {
			check(a)
		}
	}
	for _, r := range ck.p.Coverage {
		for _, a := range r.Anchors {
			check(a)
		}
	}
}

// section finds a spec heading by its text and the last line of its
// section.
func (ck *planCheck) section(title string) (*parse.Heading, int) {
	var hs []*parse.Heading
	for _, b := range ck.c.SpecDoc.Blocks {
		if h, ok := b.(*parse.Heading); ok {
			hs = append(hs, h)
		}
	}
	for i, h := range hs {
		if h.Text != title {
			continue
		}
		end := ck.c.SpecDoc.NumLines()
		for _, n := range hs[i+1:] {
			if n.Level <= h.Level {
				end = n.Pos.Line - 1
				break
			}
		}
		return h, end
	}
	return nil, 0
}

// table: closure both ways, mechanical rows, waivers.
func (ck *planCheck) table() {
	p := ck.p
	if p.Coverage == nil {
		at := p.CoveragePos
		if at.Line == 0 {
			at = p.doc.EndPos()
		}
		ck.errorf(at, RulePlanTableClosure, "the plan ends with `## Spec coverage` and a | anchor | requirement (short) | owner | table")
		return
	}
	tasks := map[int]*Task{}
	for _, t := range p.Tasks() {
		tasks[t.N] = t
	}
	owns := map[int]int{}
	mechanical := map[int]int{}
	for _, r := range p.Coverage {
		for _, n := range r.Owners {
			t, ok := tasks[n]
			if !ok {
				ck.errorf(r.Owner.Pos, RulePlanTableClosure, "owner Task %d does not exist; every named owner is a task of the plan", n)
				continue
			}
			owns[n]++
			if r.Mechanical {
				mechanical[n]++
				if t.SpecLine != nil {
					ck.errorf(r.Owner.Pos, RulePlanTableClosure, "task %d has spec anchors, so it owns anchored rows, not a mechanical one", n)
				}
			}
		}
		if r.Mechanical && len(r.Owners) != 1 {
			ck.errorf(r.Owner.Pos, RulePlanTableClosure, "a mechanical row belongs to exactly one anchor-less task")
		}
		if r.Waived != "" && strings.Contains(r.Requirement.Raw, "`") {
			ck.errorf(r.Requirement.Pos, RulePlanWaiverLiteral, "a requirement quoting a literal (%s) cannot be waived; a task or Verification must own it", strings.TrimSpace(r.Requirement.Text))
		}
	}
	for _, t := range p.Tasks() {
		switch {
		case owns[t.N] == 0:
			ck.errorf(t.Pos, RulePlanTableClosure, "task %d owns no row of ## Spec coverage; give it the rows of its anchors (or one mechanical row)", t.N)
		case t.SpecLine == nil && mechanical[t.N] != 1:
			ck.errorf(t.Pos, RulePlanTableClosure, "task %d has no **Spec:** line, so it owns exactly one mechanical row (anchor -, requirement mechanical: <short>); it owns %d", t.N, mechanical[t.N])
		}
	}
}

var (
	placeholderRE = regexp.MustCompile(`(?i)\[(?:fill[ -]?in|tbd|todo|placeholder)[^\]]*\]|<[A-Za-z][A-Za-z0-9 _-]*>|\bx{3,}\b|\bTBD\b|\bTODO\b|\bFIXME\b`)
	htmlTags      = map[string]bool{"<br>": true, "<details>": true, "<summary>": true, "<sub>": true, "<sup>": true, "<kbd>": true, "<b>": true, "<i>": true, "<em>": true, "<strong>": true, "<code>": true, "<p>": true}
)

// mayHoldPlaceholder is a cheap filter before the placeholder expression.
func mayHoldPlaceholder(line string) bool {
	if strings.ContainsAny(line, "[<") {
		return true
	}
	lower := strings.ToLower(line)
	for _, w := range []string{"xxx", "tbd", "todo", "fixme"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// lines returns the plan's text lines outside code blocks.
func (ck *planCheck) lines() []parse.Line {
	doc := ck.p.doc
	inBlock := map[int]bool{}
	var mark func(bs []parse.Block)
	mark = func(bs []parse.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case *parse.CodeBlock:
				for l := b.Pos.Line; l <= b.Pos.Line+len(b.Lines)+1; l++ {
					inBlock[l] = true
				}
			case *parse.HTML:
				for _, l := range b.Lines {
					inBlock[l.Pos.Line] = true
				}
			case *parse.List:
				for _, it := range b.Items {
					mark(it.Blocks)
				}
			case *parse.Quote:
				mark(b.Blocks)
			}
		}
	}
	mark(doc.Blocks)
	var out []parse.Line
	for n := 1; n <= doc.NumLines(); n++ {
		if !inBlock[n] {
			out = append(out, parse.Line{Text: doc.Line(n), Pos: parse.Pos{Line: n, Col: 1}})
		}
	}
	return out
}

// literals are the spec's code spans, without templates.
func (ck *planCheck) literals() map[string]bool {
	out := map[string]bool{}
	if ck.c.SpecDoc == nil {
		return out
	}
	for n := 1; n <= ck.c.SpecDoc.NumLines(); n++ {
		for _, s := range spansOf(parse.Line{Text: ck.c.SpecDoc.Line(n), Pos: parse.Pos{Line: n, Col: 1}}) {
			out[s.Text] = true
		}
	}
	return out
}

var templateRE = regexp.MustCompile(`<[A-Za-z][^<>]*>`)

func isTemplate(s string) bool { return templateRE.MatchString(s) }

// placeholders: no fill-in markers anywhere, except inside a literal the
// spec itself requires.
func (ck *planCheck) placeholders() {
	lits := ck.lits
	for _, l := range ck.text {
		if !mayHoldPlaceholder(l.Text) {
			continue
		}
		spans := spanRE1.FindAllStringSubmatchIndex(l.Text, -1)
		for _, m := range placeholderRE.FindAllStringIndex(l.Text, -1) {
			tok := l.Text[m[0]:m[1]]
			if htmlTags[strings.ToLower(tok)] || strings.HasPrefix(l.Text[m[0]:], "<!--") {
				continue
			}
			exempt := false
			for _, s := range spans {
				if s[0] <= m[0] && m[1] <= s[1] && lits[strings.TrimSpace(l.Text[s[2]:s[3]])] {
					exempt = true
				}
			}
			if !exempt {
				ck.errorf(colAt(l, m[0]), RulePlanPlaceholder, "%q is a placeholder; write the real value", tok)
			}
		}
	}
}

// quotes: a literal the spec gives in a code span is restated exactly,
// and quoted.
func (ck *planCheck) quotes() {
	lits := ck.lits
	var exact []string
	norm := map[string]string{}
	header := map[string]bool{ck.headerValue(): true}
	for _, s := range ck.p.VerificationSegments {
		header[s] = true
	}
	for s := range lits {
		if isTemplate(s) || len(s) < 3 || header[s] {
			// The header verification is header-entrypoint's.
			continue
		}
		norm[normalizeLiteral(s)] = s
		if len(s) >= 6 && strings.ContainsAny(s, " ._-/:=") {
			exact = append(exact, s)
		}
	}
	for _, l := range ck.text {
		for _, s := range spansOf(l) {
			if lits[s.Text] {
				continue
			}
			if want, ok := norm[normalizeLiteral(s.Text)]; ok {
				ck.errorf(s.Pos, RulePlanQuote, "`%s` restates the spec's `%s` inexactly; quote it exactly", s.Text, want)
			}
		}
		bare := spanRE1.ReplaceAllStringFunc(l.Text, func(m string) string { return strings.Repeat("\x00", len(m)) })
		for _, s := range exact {
			if i := strings.Index(bare, s); i >= 0 {
				ck.errorf(colAt(l, i), RulePlanQuote, "%q restates a literal of the spec without quoting it; write it as `%s`", s, s)
			}
		}
	}
}

func normalizeLiteral(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	return strings.Trim(s, `"'.,;:`)
}

// CheckPlans checks every plan of the set against its paired spec and the
// target tree (nil: none at hand). Plans whose checks find errors are
// recorded in PlanErrors by spec path.
func (s *Set) CheckPlans(target fs.FS) parse.Diagnostics {
	var ds parse.Diagnostics
	s.PlanErrors = map[string]bool{}
	for _, p := range s.Plans {
		sp, ok := s.Specs[p.Spec]
		if !ok {
			continue
		}
		pds := CheckPlan(p, PlanContext{Spec: sp, SpecDoc: s.SpecDocs[p.Spec], Target: target})
		if pds.HasErrors() || s.planStructure[p.Path] {
			s.PlanErrors[p.Spec] = true
		}
		ds = append(ds, pds...)
	}
	return ds
}

// PlanPathFor names the plan a waves spec's agent follows: the plan
// paired with it, else the conventional <plans>/<stem>-plan.md; "" for a
// loop spec.
func (s *Set) PlanPathFor(spec string) string {
	sp := s.Specs[spec]
	if sp == nil || sp.Engine != EngineWaves {
		return ""
	}
	if p := s.PlanFor(spec); p != nil {
		return p.Path
	}
	return s.Config.PlanPath(spec)
}

// PlanFor returns the plan paired with a spec, or nil.
func (s *Set) PlanFor(spec string) *Plan {
	for _, p := range s.Plans {
		if p.Spec == spec {
			return p
		}
	}
	return nil
}

func (p *Plan) String() string { return fmt.Sprintf("plan %s for %s", p.Path, p.Spec) }
