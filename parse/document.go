package parse

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// MaxSize is the largest document, in bytes, that Parse reads. Larger inputs
// get a file/too-large diagnostic and an empty model: a control repository
// holds hand-written markdown and ledgers, and nothing legitimate comes near it.
const MaxSize = 4 << 20

// MaxNesting is the deepest container nesting (lists and block quotes) Parse
// hands to goldmark. goldmark's cost grows with the product of lines and open
// containers, so a hostile document nested thousands deep would take minutes;
// real documents stay far below this.
const MaxNesting = 64

// Rule ids reported by Parse itself.
const (
	RuleTooLarge           = "file/too-large"
	RuleBinary             = "file/binary"
	RuleEncoding           = "file/encoding"
	RuleNesting            = "file/nesting"
	RuleFrontmatterSyntax  = "frontmatter/syntax"
	RuleFrontmatterUnclose = "frontmatter/unclosed"
)

// Document is a parsed markdown document: its normalized source, its optional
// frontmatter and its top-level blocks with positions.
type Document struct {
	// Path is the name diagnostics report; it is never opened.
	Path string
	// Front is the frontmatter, or nil when the document has none.
	Front *Frontmatter
	// Blocks are the top-level blocks of the body, in document order.
	Blocks []Block
	// Diagnostics are problems with the bytes themselves. A document with
	// an error here has no Blocks.
	Diagnostics Diagnostics

	// text is the input with CRLF and lone CR line endings turned into LF;
	// lines are substrings of it, not copies.
	text       string
	lineStarts []int
	root       *Section
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.TaskList))

// blockMarkdown recognizes block structure only: no inline parser runs, so
// text inside paragraphs, headings and cells is never read as markup.
var blockMarkdown = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)),
	goldmark.WithExtensions(extension.Table),
)

// Parse parses src as the document at path. It never fails: problems are
// reported in the returned document's Diagnostics.
func Parse(path string, src []byte) *Document { return parseWith(markdown, true, path, src) }

// ParseBlocks is Parse for line grammars: it finds the same blocks
// (headings, paragraphs, lists, GFM tables, code) but parses no inline
// markup, so no code spans are reported and text such as an agent's
// decision is never interpreted. It costs about what Parse does, because
// goldmark still walks every line after its block pass; ParseOutline does
// not.
func ParseBlocks(path string, src []byte) *Document {
	return parseWith(blockMarkdown, false, path, src)
}

// ParseOutline is ParseBlocks for line grammars that read the lines
// themselves and ask the block structure only where a heading or a table
// is: its Blocks are exactly ParseBlocks' top-level *Heading and *Table
// blocks, in order, and everything else about the document (lines,
// frontmatter, diagnostics) is the same. Skipping the other blocks saves
// building a Line for every line of every paragraph and list.
func ParseOutline(path string, src []byte) *Document {
	return parseWith(outlineMarkdown, false, path, src, outlineOnly)
}

// outlineOnly makes a converter keep only top-level headings and tables.
func outlineOnly(c *converter) { c.outline = true }

func parseWith(md goldmark.Markdown, inline bool, path string, src []byte, opts ...func(*converter)) *Document {
	d := &Document{Path: path}
	if len(src) > MaxSize {
		d.index(nil)
		d.Diagnostics.Errorf(path, Pos{1, 1}, RuleTooLarge, "file is %d bytes; documents are limited to %d bytes", len(src), MaxSize)
		return d
	}
	// src is only read during Parse; the document keeps its own copy, text.
	src = normalizeNewlines(src)
	d.index(src)
	if i := bytes.IndexByte(src, 0); i >= 0 {
		d.Diagnostics.Errorf(path, d.PosOf(i), RuleBinary, "file contains a NUL byte; expected a UTF-8 text document")
		return d
	}
	if !utf8.Valid(src) {
		off := firstInvalidUTF8(src)
		d.Diagnostics.Errorf(path, d.PosOf(off), RuleEncoding, "invalid UTF-8 byte 0x%02x; expected a UTF-8 text document", src[off])
		return d
	}
	if line, depth := d.tooDeep(); line > 0 {
		d.Diagnostics.Errorf(path, Pos{line, 1}, RuleNesting, "lists or block quotes nested %d deep; at most %d levels are supported", depth, MaxNesting)
		return d
	}
	if l, over := d.overLimit(inline); over {
		d.Diagnostics.Errorf(path, d.PosOf(l.off), l.rule, "%s", l.msg)
		return d
	}
	bodyOff := d.parseFrontmatter(src)
	body := src[bodyOff:]
	root := md.Parser().Parse(text.NewReader(body))
	c := converter{doc: d, src: body, base: bodyOff, inline: inline}
	for _, o := range opts {
		o(&c)
	}
	d.Blocks = c.blocks(root, 0)
	return d
}

// normalizeNewlines turns CRLF and lone CR into LF, returning src itself
// when it has none.
func normalizeNewlines(src []byte) []byte {
	if bytes.IndexByte(src, '\r') < 0 {
		return src
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, src[i])
	}
	return out
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

func (d *Document) index(src []byte) {
	d.text = string(src)
	d.lineStarts = make([]int, 1, 1+strings.Count(d.text, "\n"))
	for off := 0; ; {
		i := strings.IndexByte(d.text[off:], '\n')
		if i < 0 || off+i+1 >= len(d.text) {
			break
		}
		off += i + 1
		d.lineStarts = append(d.lineStarts, off)
	}
}

// NumLines returns the number of lines in the source. An empty source has one
// empty line, so that position 1:1 is always inside the input.
func (d *Document) NumLines() int { return len(d.lineStarts) }

// Line returns line n (1-based) without its newline, or "" when n is out of range.
func (d *Document) Line(n int) string {
	if n < 1 || n > len(d.lineStarts) {
		return ""
	}
	start := d.lineStarts[n-1]
	end := len(d.text)
	if n < len(d.lineStarts) {
		end = d.lineStarts[n] - 1
	} else if end > start && d.text[end-1] == '\n' {
		end--
	}
	return d.text[start:end]
}

// PosOf converts a byte offset into Source to a position. Offsets past the end
// are clamped to the last position.
func (d *Document) PosOf(off int) Pos {
	if off < 0 {
		off = 0
	}
	if off > len(d.text) {
		off = len(d.text)
	}
	i := sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	start := d.lineStarts[i]
	col := utf8.RuneCountInString(d.text[start:off]) + 1
	return Pos{Line: i + 1, Col: col}
}

// ColOf converts a byte index within line n's text to a 1-based column.
func (d *Document) ColOf(n, byteIdx int) int {
	l := d.Line(n)
	if byteIdx > len(l) {
		byteIdx = len(l)
	}
	if byteIdx < 0 {
		byteIdx = 0
	}
	return utf8.RuneCountInString(l[:byteIdx]) + 1
}

// LinePos returns the position of byte index byteIdx within line n.
func (d *Document) LinePos(n, byteIdx int) Pos { return Pos{Line: n, Col: d.ColOf(n, byteIdx)} }

// EndPos returns the position just after the last character of the source,
// kept inside the input (the last character itself when the file ends without
// a newline).
func (d *Document) EndPos() Pos {
	n := d.NumLines()
	l := d.Line(n)
	c := utf8.RuneCountInString(l)
	if c < 1 {
		c = 1
	}
	return Pos{Line: n, Col: c}
}

// tooDeep estimates, per line, how many containers goldmark would have open
// (leading list and quote markers plus indentation) and returns the first line
// deeper than MaxNesting, or 0. It over-estimates indented code, which is why
// MaxNesting is generous.
func (d *Document) tooDeep() (line, depth int) {
	inFence := false
	for n := 1; n <= d.NumLines(); n++ {
		l := d.Line(n)
		indent, i := 0, 0
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			if l[i] == '\t' {
				indent += 4
			} else {
				indent++
			}
			i++
		}
		rest := l[i:]
		if indent <= 3 && (strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~")) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if dep := indent/2 + containerMarkers(rest); dep > MaxNesting {
			return n, dep
		}
	}
	return 0, 0
}

// containerMarkers counts the list and quote markers that open containers at
// the start of s ("- - > 1. x" opens four).
func containerMarkers(s string) int {
	n := 0
	for {
		rest, ok := containerMarker(strings.TrimLeft(s, " \t"))
		if !ok {
			return n
		}
		s = rest
		n++
	}
}

// containerMarker cuts one quote, bullet or ordered-list marker off the
// start of s.
func containerMarker(s string) (rest string, ok bool) {
	switch {
	case len(s) > 0 && s[0] == '>':
		return s[1:], true
	case len(s) > 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'):
		return s[2:], true
	}
	return orderedMarker(s)
}

// orderedMarker cuts an ordered-list marker off the start of s: one to
// nine digits, then `.` or `)`, then a blank.
func orderedMarker(s string) (rest string, ok bool) {
	j := 0
	for j < len(s) && j < 9 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 || j+1 >= len(s) || (s[j] != '.' && s[j] != ')') || (s[j+1] != ' ' && s[j+1] != '\t') {
		return "", false
	}
	return s[j+2:], true
}

// String summarizes the document for debugging.
func (d *Document) String() string {
	return fmt.Sprintf("Document(%s, %d lines, %d blocks)", d.Path, d.NumLines(), len(d.Blocks))
}
