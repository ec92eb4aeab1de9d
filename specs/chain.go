package specs

import (
	"path"
	"regexp"
	"strings"

	"github.com/gallivant/gallivant/parse"
	"go.yaml.in/yaml/v3"
)

// Milestone is one entry of a chain.
type Milestone struct {
	// Ref is the reference as written (link target, code span or bare path).
	Ref string
	// Path is the resolved repository-relative spec path, "" when it did
	// not resolve.
	Path string
	Pos  parse.Pos
}

// Chain is an ordered list of specs delivered one after another.
type Chain struct {
	Path       string
	Title      string
	Status     Status
	Milestones []Milestone
}

// Name returns the chain's file name without .md; commit trailers use it.
func (c *Chain) Name() string { return Stem(c.Path) }

// Chain rule ids.
const (
	RuleChainFrontmatter = "chain/frontmatter"
	RuleChainTitle       = "chain/title"
	RuleChainMilestones  = "chain/milestones"
	RuleChainResolve     = "chain/milestone-resolves"
	RuleChainShared      = "chain/shared-repo-base"
	RuleChainMembership  = "chain/membership"
)

var (
	linkRE = regexp.MustCompile(`^\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)$`)
	spanRE = regexp.MustCompile("^`+([^`]+)`+$")
	bareRE = regexp.MustCompile(`^[^\s\[\]()<>` + "`" + `]+\.md$`)
)

// ParseChain parses and validates a chain document. Milestone references are
// returned unresolved; Resolve checks them against the repository.
func ParseChain(doc *parse.Document) (*Chain, parse.Diagnostics) {
	p := &chainParser{doc: doc, diags: append(parse.Diagnostics(nil), doc.Diagnostics...)}
	c := &Chain{Path: doc.Path, Status: StatusActive}
	p.frontmatter(c)
	if doc.Diagnostics.HasErrors() && len(doc.Blocks) == 0 {
		return c, p.diags
	}
	if list := p.milestoneList(p.title(c)); list != nil {
		p.milestones(c, list)
	}
	return c, p.diags
}

// chainParser is one ParseChain under way: the document and the
// diagnostics found so far.
type chainParser struct {
	doc   *parse.Document
	diags parse.Diagnostics
}

func (p *chainParser) errorf(at parse.Pos, rule, format string, args ...any) {
	p.diags.Errorf(p.doc.Path, at, rule, format, args...)
}

// frontmatter reads the chain's frontmatter, which takes only status.
func (p *chainParser) frontmatter(c *Chain) {
	f := p.doc.Front
	if f == nil || f.Node == nil {
		return
	}
	n := f.Node
	if n.Kind != yaml.MappingNode {
		p.errorf(f.PosOf(n), RuleChainFrontmatter, "frontmatter must be a mapping of keys to values, got %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "status" {
			p.errorf(f.PosOf(k), RuleChainFrontmatter, "unknown chain frontmatter key %q; a chain takes only status", k.Value)
			continue
		}
		switch Status(v.Value) {
		case StatusActive, StatusPaused, StatusCancelled:
			c.Status = Status(v.Value)
		default:
			p.errorf(f.PosOf(v), RuleChainFrontmatter, "chain status must be active, paused or cancelled, got %q", v.Value)
		}
	}
}

// title reads the chain's one `# Title` and returns the section the
// milestones are looked up in: the title's, or the document's top level
// when it has none.
func (p *chainParser) title(c *Chain) *parse.Section {
	root := p.doc.Root()
	var h1 *parse.Section
	for _, s := range root.Children {
		if s.Level() != 1 {
			continue
		}
		if h1 != nil {
			p.errorf(s.Heading.Pos, RuleChainTitle, "a chain has exactly one `# Title` heading; this is a second one")
			continue
		}
		h1 = s
	}
	if h1 == nil {
		p.errorf(parse.Pos{Line: 1, Col: 1}, RuleChainTitle, "a chain needs a `# Title` heading; none found")
		return root
	}
	c.Title = h1.Title()
	return h1
}

// milestoneList is the one list of the one `## Milestones` section under
// scope, or nil (reported) when there is none.
func (p *chainParser) milestoneList(scope *parse.Section) *parse.List {
	secs := scope.Find("Milestones")
	if len(secs) == 0 {
		p.errorf(parse.Pos{Line: 1, Col: 1}, RuleChainMilestones, "a chain needs a `## Milestones` section with an ordered list of specs; none found")
		return nil
	}
	sec := secs[0]
	for _, extra := range secs[1:] {
		p.errorf(extra.Heading.Pos, RuleChainMilestones, "a chain has exactly one `## Milestones` section; this is a second one")
	}
	var list *parse.List
	for _, b := range sec.Blocks {
		l, ok := b.(*parse.List)
		if !ok {
			continue
		}
		if list != nil {
			p.errorf(l.Pos, RuleChainMilestones, "`## Milestones` holds one list; join this list to the first")
			continue
		}
		list = l
	}
	if list == nil {
		p.errorf(sec.Heading.Pos, RuleChainMilestones, "`## Milestones` must hold a list of specs, like `1. specs/first.md`; none found")
	}
	return list
}

// milestones reads each item of list as a milestone reference: a link, a
// code span or a bare path. A chain has at least two.
func (p *chainParser) milestones(c *Chain, list *parse.List) {
	for _, it := range list.Items {
		t := strings.TrimSpace(it.Text())
		ref, ok := milestoneRef(t)
		if !ok {
			p.errorf(it.TextPos(), RuleChainMilestones, "a milestone is a spec path: a link [title](path.md), a code span `path.md` or a bare path.md; got %q", t)
			continue
		}
		c.Milestones = append(c.Milestones, Milestone{Ref: ref, Pos: it.TextPos()})
	}
	if len(c.Milestones) < 2 && len(list.Items) == len(c.Milestones) {
		p.errorf(list.Pos, RuleChainMilestones, "a chain needs at least two milestones, got %d; a single spec needs no chain", len(c.Milestones))
	}
}

// milestoneRef is the spec path a milestone item's text t names.
func milestoneRef(t string) (string, bool) {
	switch {
	case linkRE.MatchString(t):
		return linkRE.FindStringSubmatch(t)[1], true
	case spanRE.MatchString(t):
		return strings.TrimSpace(spanRE.FindStringSubmatch(t)[1]), true
	case bareRE.MatchString(t):
		return t, true
	}
	return "", false
}

// resolveRef resolves a milestone reference against the chain file's
// directory first, then the repository root, returning candidates in order.
func resolveRef(chainPath, ref string) []string {
	var out []string
	rel := path.Join(path.Dir(chainPath), ref)
	if c, err := cleanRel(rel); err == nil {
		out = append(out, c)
	}
	if c, err := cleanRel(strings.TrimPrefix(ref, "/")); err == nil && (len(out) == 0 || out[0] != c) {
		out = append(out, c)
	}
	return out
}
