package specs

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

// Rule ids of spec-kit and Kiro specs (docs/grammar.md#spec-kit-and-kiro).
const (
	RuleSpecKitTitle         = "spec-kit/title"
	RuleSpecKitStory         = "spec-kit/story"
	RuleSpecKitScenario      = "spec-kit/scenario"
	RuleSpecKitID            = "spec-kit/duplicate-id"
	RuleSpecKitClarification = "spec-kit/needs-clarification"
	RuleSpecKitCriteria      = "spec-kit/criteria"
	RuleKiroRequirement      = "kiro/requirement"
	RuleKiroCriterion        = "kiro/criterion"
	RuleKiroID               = "kiro/duplicate-id"
	RuleKiroCriteria         = "kiro/criteria"
)

var (
	storyRE    = regexp.MustCompile(`^User Story ([0-9]{1,4})\b\s*(?:[-–—:]\s*)?(.*?)\s*(?:\(Priority: *(P[0-9]+)\))?\s*(?:🎯.*)?$`)
	idItemRE   = regexp.MustCompile(`^\*\*((?:FR|SC)-[0-9]{3,})\*\*:?\s*(.*)$`)
	clarifyRE  = regexp.MustCompile(`\[NEEDS CLARIFICATION[^\]]*\]`)
	givenRE    = regexp.MustCompile(`(?i)\*\*given\*\*`)
	whenRE     = regexp.MustCompile(`(?i)\*\*when\*\*`)
	thenRE     = regexp.MustCompile(`(?i)\*\*then\*\*`)
	scenarioHd = regexp.MustCompile(`(?i)^\*\*acceptance scenarios\*\*:?$|^\*\*acceptance scenarios:\*\*$`)
)

// ParseSpecKit reads a GitHub spec-kit spec.md: `# Feature Specification:
// <title>`, `### User Story N - <title> (Priority: Pn)` sections under
// `## User Scenarios & Testing`, each with numbered `**Given** …, **When**
// …, **Then** …` acceptance scenarios (criteria US<N>.<k>), `**FR-001**`
// functional requirements and `**SC-001**` success criteria (criteria too
// when def.SuccessCriteria). The frontmatter and `## Verify` are
// gallivant's (docs/grammar.md). A `[NEEDS CLARIFICATION: …]` marker left
// anywhere is an error: a spec with open questions is not dispatched.
func ParseSpecKit(doc *parse.Document, def Defaults) (*Spec, parse.Diagnostics) {
	p, s, ok := startForeign(doc, def, FormatSpecKit)
	if !ok {
		return s, p.diags
	}
	root := p.doc.Root()
	scope := p.title(s, root, RuleSpecKitTitle, "Feature Specification:")
	seen := map[string]parse.Pos{}
	stories := 0
	for _, sec := range descendants(scope) {
		if sec.Level() < 3 {
			continue
		}
		m := storyRE.FindStringSubmatch(sec.Title())
		if m == nil {
			if strings.HasPrefix(strings.ToLower(sec.Title()), "user story") {
				p.errorf(sec.Heading.Pos, RuleSpecKitStory, "%s is not a user story heading; write `### User Story 1 - <title> (Priority: P1)`", quoteText(sec.Title(), 80))
			}
			continue
		}
		stories++
		id := "US" + m[1]
		if prev, dup := seen[id]; dup {
			p.errorf(sec.Heading.Pos, RuleSpecKitID, "User Story %s is numbered again (first at line %d); number the stories 1, 2, 3 …", m[1], prev.Line)
			continue
		}
		seen[id] = sec.Heading.Pos
		p.scenarios(s, sec, id)
	}
	if stories == 0 {
		p.errorf(p.firstBodyPos(), RuleSpecKitStory, "a spec-kit spec needs at least one `### User Story 1 - <title> (Priority: P1)` under `## User Scenarios & Testing`; none found")
	}
	p.idItems(s, scope, def.SuccessCriteria, seen)
	p.clarifications()
	p.finishForeign(s, scope, def, RuleSpecKitCriteria)
	return s, p.diags
}

// scenarios reads a story's `**Acceptance Scenarios**:` list.
func (p *specParser) scenarios(s *Spec, sec *parse.Section, id string) {
	var list *parse.List
	after := false
	for _, b := range sec.Blocks {
		switch x := b.(type) {
		case *parse.Paragraph:
			after = len(x.Lines) > 0 && scenarioHd.MatchString(strings.TrimSpace(x.Lines[len(x.Lines)-1].Text))
		case *parse.List:
			if after && list == nil {
				list = x
			}
			after = false
		}
	}
	if list == nil {
		p.errorf(sec.Heading.Pos, RuleSpecKitScenario, "user story %s has no acceptance scenarios; add `**Acceptance Scenarios**:` and a numbered list like 1. **Given** …, **When** …, **Then** …", id)
		return
	}
	for k, it := range list.Items {
		text := normalizeSpace(it.Text())
		cid := id + "." + strconv.Itoa(k+1)
		var missing []string
		for _, w := range []struct {
			re   *regexp.Regexp
			word string
		}{{givenRE, "**Given**"}, {whenRE, "**When**"}, {thenRE, "**Then**"}} {
			if !w.re.MatchString(text) {
				missing = append(missing, w.word)
			}
		}
		if len(missing) > 0 {
			p.errorf(it.TextPos(), RuleSpecKitScenario, "scenario %s has no %s; an acceptance scenario reads 1. **Given** <state>, **When** <action>, **Then** <outcome>", cid, strings.Join(missing, " and no "))
		}
		p.appendAC(s, it, cid, text)
	}
}

// idItems reads the `**FR-001**:` and `**SC-001**:` items anywhere in the
// spec: ids are unique, and success criteria become criteria when asked.
func (p *specParser) idItems(s *Spec, scope *parse.Section, sc bool, seen map[string]parse.Pos) {
	for _, b := range blocksOf(scope) {
		l, ok := b.(*parse.List)
		if !ok {
			continue
		}
		for _, it := range l.Items {
			m := idItemRE.FindStringSubmatch(strings.TrimSpace(it.Text()))
			if m == nil {
				continue
			}
			if prev, dup := seen[m[1]]; dup {
				p.errorf(it.TextPos(), RuleSpecKitID, "%s is used twice (first at line %d); ids are unique", m[1], prev.Line)
				continue
			}
			seen[m[1]] = it.TextPos()
			if sc && strings.HasPrefix(m[1], "SC-") {
				if strings.TrimSpace(m[2]) == "" {
					p.errorf(it.TextPos(), RuleSpecKitCriteria, "success criterion %s has no text", m[1])
				}
				p.appendAC(s, it, m[1], normalizeSpace(m[2]))
			}
		}
	}
}

// clarifications refuses every `[NEEDS CLARIFICATION: …]` marker left in
// the document's text.
func (p *specParser) clarifications() {
	for _, l := range textLines(p.doc.Blocks) {
		for _, m := range clarifyRE.FindAllStringIndex(l.Text, -1) {
			q := l.Text[m[0]:m[1]]
			p.errorf(colAt(l, m[0]), RuleSpecKitClarification, "open question %s; answer it in the spec (for example with /speckit.clarify) before it is delivered: a spec with open clarifications is not dispatched", quoteText(q, 120))
		}
	}
}

// startForeign begins a spec-kit or Kiro parse: the spec with its
// defaults and gallivant's frontmatter read.
func startForeign(doc *parse.Document, def Defaults, f Format) (*specParser, *Spec, bool) {
	p := &specParser{doc: doc, diags: append(parse.Diagnostics(nil), doc.Diagnostics...)}
	s := &Spec{Path: doc.Path, Status: StatusActive, Engine: EngineLoop, Repo: def.Repo, Base: def.Base, Format: f}
	if doc.Diagnostics.HasErrors() && len(doc.Blocks) == 0 && doc.Front == nil {
		return p, s, false
	}
	p.frontmatter(s)
	return p, s, true
}

// finishForeign reads `## Verify` (else formats.verify), and reports a
// spec without criteria or without a repository.
func (p *specParser) finishForeign(s *Spec, scope *parse.Section, def Defaults, rule string) {
	p.verify(s, scope)
	if len(s.Verify) == 0 && def.Verify != "" {
		s.Verify = strings.Split(def.Verify, "\n")
	}
	if len(s.ACs) == 0 {
		p.errorf(p.firstBodyPos(), rule, "%s has no acceptance criteria, so there is nothing to deliver", p.doc.Path)
	}
	if s.Repo == "" && !def.ConfigUnreadable {
		p.errorf(parse.Pos{Line: 1, Col: 1}, RuleSpecRepo, "no target repository: set `repo: owner/name` in the frontmatter or defaults.repo in gallivant.yaml")
	}
}

// title reads the one `#` heading, stripping a format's fixed prefix;
// it returns the section the rest is read under.
func (p *specParser) title(s *Spec, root *parse.Section, rule, prefix string) *parse.Section {
	var h1 []*parse.Section
	for _, c := range root.Children {
		if c.Level() == 1 {
			h1 = append(h1, c)
		}
	}
	if len(h1) == 0 {
		if prefix == "" {
			return root
		}
		p.errorf(p.firstBodyPos(), rule, "the spec needs one `# %s <title>` heading; none found", strings.TrimSpace(prefix))
		return root
	}
	for _, extra := range h1[1:] {
		p.errorf(extra.Heading.Pos, rule, "the spec has one `#` heading; this is a second one (use `##` for sections)")
	}
	t := strings.TrimSpace(h1[0].Title())
	if len(t) >= len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
		t = strings.TrimSpace(t[len(prefix):])
	}
	s.Title = t
	if len(root.Children) == 1 {
		return h1[0]
	}
	return root
}

// appendAC adds a criterion numbered by position with its own id.
func (p *specParser) appendAC(s *Spec, it *parse.Item, id, text string) {
	src := make([]string, len(it.Lines))
	for i, l := range it.Lines {
		src[i] = l.Text
	}
	s.ACs = append(s.ACs, AC{N: len(s.ACs) + 1, ID: id, Text: text, Source: strings.Join(src, "\n"), Pos: it.Pos})
}

// descendants returns every section under sec, depth first.
func descendants(sec *parse.Section) []*parse.Section {
	var out []*parse.Section
	for _, c := range sec.Children {
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}

// blocksOf returns the blocks of sec and every section under it.
func blocksOf(sec *parse.Section) []parse.Block {
	var out []parse.Block
	sec.Walk(func(b parse.Block) { out = append(out, b) })
	return out
}

// textLines returns the prose lines of blocks: headings, paragraphs,
// list items (nested too), quotes and table rows; code and HTML comments
// are not text.
func textLines(blocks []parse.Block) []parse.Line {
	var out []parse.Line
	for _, b := range blocks {
		switch x := b.(type) {
		case *parse.Heading:
			out = append(out, parse.Line{Text: x.Text, Pos: x.Pos})
		case *parse.Paragraph:
			out = append(out, x.Lines...)
		case *parse.List:
			for _, it := range x.Items {
				out = append(out, it.Lines...)
				out = append(out, textLines(it.Blocks)...)
			}
		case *parse.Quote:
			out = append(out, textLines(x.Blocks)...)
		case *parse.Table:
			out = append(out, x.Header.Line)
			for _, r := range x.Rows {
				out = append(out, r.Line)
			}
		}
	}
	return out
}

// withFormat returns the defaults a file in format f is read with.
func (d Defaults) withFormat(cfg *Config, f Format) Defaults {
	if f == FormatGallivant {
		return d
	}
	d.Format = f
	d.SuccessCriteria = cfg.Formats.SuccessCriteria
	d.Verify = strings.Join(cfg.Formats.Verify, "\n")
	return d
}

// quoteText quotes untrusted text as data for a diagnostic, cut to at
// most max runes.
func quoteText(s string, max int) string {
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}
