package parse

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is a document's YAML frontmatter, decoded into a YAML node
// tree so that every key and value keeps its position.
type Frontmatter struct {
	// Node is the root content node (usually a mapping), or nil when the
	// frontmatter is empty or not valid YAML.
	Node *yaml.Node
	// Line is the line of the opening `---` delimiter.
	Line int
	// ContentLine is the first line of YAML text.
	ContentLine int
	// EndLine is the line of the closing `---` delimiter.
	EndLine int
	// yaml translates yaml.v3's lines, which also break at NEL, LS and PS.
	yaml YAMLPositions
}

// YAML returns the translation of yaml.v3's positions within the
// frontmatter text (relative to ContentLine).
func (f *Frontmatter) YAML() YAMLPositions { return f.yaml }

// PosOf translates a node's YAML-relative position into a document position.
func (f *Frontmatter) PosOf(n *yaml.Node) Pos {
	if n == nil {
		return Pos{Line: f.Line, Col: 1}
	}
	p := f.yaml.Pos(n.Line, n.Column)
	return Pos{Line: p.Line + f.ContentLine - 1, Col: p.Col}
}

// parseFrontmatter splits off a leading `---` YAML block and returns the byte
// offset at which the markdown body starts.
func (d *Document) parseFrontmatter(src []byte) int {
	open := 0
	for n := 1; n <= d.NumLines(); n++ {
		t := strings.TrimSpace(d.Line(n))
		if t == "" {
			continue
		}
		if t == "---" || t == "---yaml" {
			open = n
		}
		break
	}
	if open == 0 {
		return 0
	}
	raw, bodyOff, ok := splitFrontmatter(src)
	if !ok {
		d.Diagnostics.Errorf(d.Path, Pos{open, 1}, RuleFrontmatterUnclose, "frontmatter opened with `---` is never closed; expected a closing `---` line")
		return len(src)
	}
	f := &Frontmatter{Line: open, ContentLine: open + 1, EndLine: d.PosOf(bodyOff - 1).Line, yaml: NewYAMLPositions(raw)}
	d.Front = f
	if m, ok := simpleMapping(raw); ok {
		f.Node = m
		return bodyOff
	}
	var node yaml.Node
	if err := yaml.Unmarshal(raw, &node); err != nil {
		at, msg := f.yaml.SyntaxError(err)
		line := at.Line + f.ContentLine - 1
		if line >= f.EndLine {
			line = f.EndLine - 1
		}
		if line < f.ContentLine {
			line = f.Line
		}
		d.Diagnostics.Errorf(d.Path, Pos{line, 1}, RuleFrontmatterSyntax, "frontmatter is not valid YAML: %s", msg)
		return bodyOff
	}
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
		f.Node = node.Content[0]
	}
	return bodyOff
}
