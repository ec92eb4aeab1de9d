package parse

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/adrg/frontmatter"
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

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

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
	var raw []byte
	capture := func(data []byte, v any) error {
		*(v.(*[]byte)) = bytes.Clone(data)
		return nil
	}
	formats := []*frontmatter.Format{
		frontmatter.NewFormat("---", "---", capture),
		frontmatter.NewFormat("---yaml", "---", capture),
	}
	rest, err := frontmatter.Parse(bytes.NewReader(src), &raw, formats...)
	if err != nil || raw == nil {
		d.Diagnostics.Errorf(d.Path, Pos{open, 1}, RuleFrontmatterUnclose, "frontmatter opened with `---` is never closed; expected a closing `---` line")
		return len(src)
	}
	bodyOff := len(src) - len(rest)
	f := &Frontmatter{Line: open, ContentLine: open + 1, EndLine: d.PosOf(bodyOff - 1).Line, yaml: NewYAMLPositions(raw)}
	d.Front = f
	var node yaml.Node
	if err := yaml.Unmarshal(raw, &node); err != nil {
		line := f.ContentLine
		if n, ok := YAMLErrorLine(err); ok {
			line = f.yaml.Pos(n, 1).Line + f.ContentLine - 1
		}
		if line >= f.EndLine {
			line = f.EndLine - 1
		}
		if line < f.ContentLine {
			line = f.Line
		}
		d.Diagnostics.Errorf(d.Path, Pos{line, 1}, RuleFrontmatterSyntax, "frontmatter is not valid YAML: %s", yamlMessage(err))
		return bodyOff
	}
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
		f.Node = node.Content[0]
	}
	return bodyOff
}

// YAMLErrorLine is the 1-based line a yaml.v3 syntax error names, relative
// to the YAML it parsed. yaml.v3 reports a parser error (as opposed to a
// scanner error) at the 0-based line of its mark, one line early; that is
// corrected here, so the line is the one where the broken construct
// starts.
func YAMLErrorLine(err error) (int, bool) {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, false
	}
	n, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		return 0, false
	}
	for _, msg := range yamlParserErrors {
		if strings.Contains(err.Error(), msg) {
			return n + 1, true
		}
	}
	return n, true
}

// yamlParserErrors are the messages of yaml.v3's parser (parserc.go), whose
// lines it reports 0-based; its scanner's are 1-based.
var yamlParserErrors = []string{
	"did not find expected <document start>", "did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found undefined tag handle", "found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive",
}

// YAMLMessage is a yaml.v3 error's message without its "yaml: line N:"
// prefix, whose line the caller reports as a position instead.
func YAMLMessage(err error) string { return yamlMessage(err) }

// yamlMessage strips yaml.v3's "yaml: line N:" prefix, whose line number is
// relative to the frontmatter and would mislead next to a document position.
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	if i := strings.Index(s, ": "); i >= 0 && strings.HasPrefix(s, "line ") {
		s = s[i+2:]
	}
	return s
}
