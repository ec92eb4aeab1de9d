package specs

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

var (
	requirementRE = regexp.MustCompile(`^Requirement ([0-9]{1,4})\b\s*(?:[-–—:]\s*)?(.*)$`)
	shallRE       = regexp.MustCompile(`(?i)\bshall\b`)
	earsRE        = regexp.MustCompile(`(?i)^(?:when|if|while|where|the)\b`)
)

// ParseKiro reads a Kiro requirements.md: `### Requirement N` sections
// (under `## Requirements`, or anywhere), each with a `**User Story:**`
// and a numbered list of EARS acceptance criteria ("WHEN … THEN the
// system SHALL …") under `#### Acceptance Criteria`, criterion k of
// requirement N being N.k. The title is the `#` heading, or the feature
// folder's name when that heading is Kiro's generic "Requirements
// Document". design.md holds no criteria and is not read.
func ParseKiro(doc *parse.Document, def Defaults) (*Spec, parse.Diagnostics) {
	p, s, ok := startForeign(doc, def, FormatKiro)
	if !ok {
		return s, p.diags
	}
	root := p.doc.Root()
	scope := p.title(s, root, RuleKiroRequirement, "")
	if s.Title == "" || strings.EqualFold(s.Title, "Requirements Document") || strings.EqualFold(s.Title, "Requirements") {
		s.Title = path.Base(path.Dir(doc.Path))
	}
	seen := map[int]parse.Pos{}
	for _, sec := range descendants(scope) {
		m := requirementRE.FindStringSubmatch(sec.Title())
		if m == nil || sec.Level() < 2 {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if prev, dup := seen[n]; dup {
			p.errorf(sec.Heading.Pos, RuleKiroID, "Requirement %d is numbered again (first at line %d); number the requirements 1, 2, 3 …", n, prev.Line)
			continue
		}
		seen[n] = sec.Heading.Pos
		p.kiroCriteria(s, sec, n)
	}
	if len(seen) == 0 {
		p.errorf(p.firstBodyPos(), RuleKiroRequirement, "a Kiro spec needs at least one `### Requirement 1` section with a numbered list of acceptance criteria; none found")
	}
	p.finishForeign(s, scope, def, RuleKiroCriteria)
	return s, p.diags
}

// kiroCriteria reads requirement n's acceptance criteria: the ordered
// list under its `Acceptance Criteria` subsection, else the first ordered
// list directly under it.
func (p *specParser) kiroCriteria(s *Spec, sec *parse.Section, n int) {
	var list *parse.List
	for _, c := range sec.Children {
		if strings.EqualFold(strings.TrimSpace(c.Title()), "Acceptance Criteria") {
			list = firstOrdered(c.Blocks)
			break
		}
	}
	if list == nil {
		list = firstOrdered(sec.Blocks)
	}
	if list == nil {
		p.errorf(sec.Heading.Pos, RuleKiroCriteria, "Requirement %d has no acceptance criteria; add `#### Acceptance Criteria` and a numbered list like 1. WHEN … THEN the system SHALL …", n)
		return
	}
	for k, it := range list.Items {
		id := strconv.Itoa(n) + "." + strconv.Itoa(k+1)
		text := normalizeSpace(it.Text())
		switch {
		case text == "":
			p.errorf(it.Pos, RuleKiroCriterion, "criterion %s has no text", id)
		case !shallRE.MatchString(text):
			p.errorf(it.TextPos(), RuleKiroCriterion, "criterion %s has no SHALL; an EARS criterion reads WHEN <trigger> THEN the system SHALL <response>", id)
		case !earsRE.MatchString(text):
			p.diags.Add(p.doc.Path, it.TextPos(), parse.SeverityWarning, RuleKiroCriterion, "criterion %s does not start with WHEN, IF, WHILE, WHERE or THE, as an EARS criterion does", id)
		}
		p.appendAC(s, it, id, text)
	}
}

func firstOrdered(blocks []parse.Block) *parse.List {
	for _, b := range blocks {
		if l, ok := b.(*parse.List); ok && l.Ordered {
			return l
		}
	}
	return nil
}
