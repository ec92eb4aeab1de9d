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
	diags := append(parse.Diagnostics(nil), doc.Diagnostics...)
	c := &Chain{Path: doc.Path, Status: StatusActive}
	errorf := func(at parse.Pos, rule, format string, args ...any) {
		diags.Errorf(doc.Path, at, rule, format, args...)
	}
	if f := doc.Front; f != nil && f.Node != nil {
		n := f.Node
		if n.Kind != yaml.MappingNode {
			errorf(f.PosOf(n), RuleChainFrontmatter, "frontmatter must be a mapping of keys to values, got %s", kindName(n))
		} else {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value != "status" {
					errorf(f.PosOf(k), RuleChainFrontmatter, "unknown chain frontmatter key %q; a chain takes only status", k.Value)
					continue
				}
				switch Status(v.Value) {
				case StatusActive, StatusPaused, StatusCancelled:
					c.Status = Status(v.Value)
				default:
					errorf(f.PosOf(v), RuleChainFrontmatter, "chain status must be active, paused or cancelled, got %q", v.Value)
				}
			}
		}
	}
	if doc.Diagnostics.HasErrors() && len(doc.Blocks) == 0 {
		return c, diags
	}
	root := doc.Root()
	var h1 *parse.Section
	for _, s := range root.Children {
		if s.Level() != 1 {
			continue
		}
		if h1 != nil {
			errorf(s.Heading.Pos, RuleChainTitle, "a chain has exactly one `# Title` heading; this is a second one")
			continue
		}
		h1 = s
	}
	scope := root
	if h1 == nil {
		errorf(parse.Pos{Line: 1, Col: 1}, RuleChainTitle, "a chain needs a `# Title` heading; none found")
	} else {
		c.Title = h1.Title()
		scope = h1
	}
	secs := scope.Find("Milestones")
	if len(secs) == 0 {
		errorf(parse.Pos{Line: 1, Col: 1}, RuleChainMilestones, "a chain needs a `## Milestones` section with an ordered list of specs; none found")
		return c, diags
	}
	sec := secs[0]
	for _, extra := range secs[1:] {
		errorf(extra.Heading.Pos, RuleChainMilestones, "a chain has exactly one `## Milestones` section; this is a second one")
	}
	var list *parse.List
	for _, b := range sec.Blocks {
		if l, ok := b.(*parse.List); ok {
			if list != nil {
				errorf(l.Pos, RuleChainMilestones, "`## Milestones` holds one list; join this list to the first")
				continue
			}
			list = l
		}
	}
	if list == nil {
		errorf(sec.Heading.Pos, RuleChainMilestones, "`## Milestones` must hold a list of specs, like `1. specs/first.md`; none found")
		return c, diags
	}
	for _, it := range list.Items {
		t := strings.TrimSpace(it.Text())
		ref := ""
		switch {
		case linkRE.MatchString(t):
			ref = linkRE.FindStringSubmatch(t)[1]
		case spanRE.MatchString(t):
			ref = strings.TrimSpace(spanRE.FindStringSubmatch(t)[1])
		case bareRE.MatchString(t):
			ref = t
		default:
			errorf(it.TextPos(), RuleChainMilestones, "a milestone is a spec path: a link [title](path.md), a code span `path.md` or a bare path.md; got %q", t)
			continue
		}
		c.Milestones = append(c.Milestones, Milestone{Ref: ref, Pos: it.TextPos()})
	}
	if len(c.Milestones) < 2 && len(list.Items) == len(c.Milestones) {
		errorf(list.Pos, RuleChainMilestones, "a chain needs at least two milestones, got %d; a single spec needs no chain", len(c.Milestones))
	}
	return c, diags
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
