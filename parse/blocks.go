package parse

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Block is one block of a document: *Heading, *Paragraph, *List, *Table,
// *CodeBlock, *Quote, *Break or *HTML. The set is closed: an unexported
// method keeps other packages from adding kinds, so a type switch over
// these eight is exhaustive.
type Block interface {
	// Start is the position of the block's first character.
	Start() Pos
	isBlock()
}

// Line is one physical source line of a block, without its container prefix
// (list indentation, `> ` markers) and without its newline.
type Line struct {
	Text string
	// Pos is the position of Text's first character.
	Pos Pos
}

// CodeSpan is an inline code span.
type CodeSpan struct {
	// Text is the span's content as CommonMark defines it (one leading and
	// trailing space stripped when both are present, newlines as spaces).
	Text string
	// Pos is the position of the opening backtick.
	Pos Pos
}

// Heading is an ATX or setext heading.
type Heading struct {
	Level int
	// Text is the heading's raw inline source, trimmed.
	Text string
	// Pos is the position of the heading's text.
	Pos  Pos
	Code []CodeSpan
}

// Paragraph is a paragraph of one or more lines.
type Paragraph struct {
	Lines []Line
	Code  []CodeSpan
}

// List is an ordered or bullet list (task lists are bullet or ordered lists
// whose items carry a checkbox).
type List struct {
	Ordered bool
	// Pos is the position of the first item's marker.
	Pos   Pos
	Items []*Item
}

// Item is one list item.
type Item struct {
	// Pos is the position of the item's marker.
	Pos Pos
	// Task reports whether the item starts with a task-list checkbox, and
	// Checked whether that box is ticked.
	Task, Checked bool
	// Lines are the lines of the item's first paragraph, checkbox removed.
	Lines []Line
	Code  []CodeSpan
	// Blocks are the item's blocks after its first paragraph: nested lists,
	// further paragraphs, code blocks.
	Blocks []Block
}

// Text returns the item's first paragraph with its lines joined by a space.
func (it *Item) Text() string { return joinLines(it.Lines) }

// TextPos returns the position of the item's text, or of its marker when it
// has none.
func (it *Item) TextPos() Pos {
	if len(it.Lines) > 0 {
		return it.Lines[0].Pos
	}
	return it.Pos
}

// Table is a GFM table. Cells are split from the raw lines on unescaped pipes;
// `\|` inside a cell is a literal pipe.
type Table struct {
	Header Row
	// Delimiter is the `|---|---|` line.
	Delimiter Line
	Rows      []Row
}

// Row is one table line and its cells.
type Row struct {
	Line  Line
	Cells []Cell
}

// Cell is one table cell.
type Cell struct {
	// Text is the cell's content, trimmed, with `\|` turned into `|`.
	Text string
	// Raw is the cell's source between its pipes, untrimmed.
	Raw string
	// Pos is the position of the cell's first non-space character (or of
	// the cell start when it is empty).
	Pos Pos
}

// CodeBlock is a fenced or indented code block.
type CodeBlock struct {
	Pos    Pos
	Fenced bool
	Info   string
	Lines  []Line
}

// Quote is a block quote.
type Quote struct {
	Pos    Pos
	Blocks []Block
}

// Break is a thematic break (`---`, `***`).
type Break struct{ Pos Pos }

// HTML is a raw HTML block (including comments).
type HTML struct {
	Pos   Pos
	Lines []Line
}

func (b *Heading) Start() Pos   { return b.Pos }
func (b *Paragraph) Start() Pos { return firstPos(b.Lines) }
func (b *List) Start() Pos      { return b.Pos }
func (b *Table) Start() Pos     { return b.Header.Line.Pos }
func (b *CodeBlock) Start() Pos { return b.Pos }
func (b *Quote) Start() Pos     { return b.Pos }
func (b *Break) Start() Pos     { return b.Pos }
func (b *HTML) Start() Pos      { return b.Pos }

func (*Heading) isBlock()   {}
func (*Paragraph) isBlock() {}
func (*List) isBlock()      {}
func (*Table) isBlock()     {}
func (*CodeBlock) isBlock() {}
func (*Quote) isBlock()     {}
func (*Break) isBlock()     {}
func (*HTML) isBlock()      {}

// Text returns the paragraph's lines joined by a space.
func (b *Paragraph) Text() string { return joinLines(b.Lines) }

func firstPos(ls []Line) Pos {
	if len(ls) == 0 {
		return Pos{}
	}
	return ls[0].Pos
}

func joinLines(ls []Line) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = strings.TrimSpace(l.Text)
	}
	return strings.Join(parts, " ")
}

// converter turns goldmark's AST into the block model. Offsets in the AST are
// relative to src, which starts at base in the document's source.
type converter struct {
	doc  *Document
	src  []byte
	base int
	// inline is false for ParseBlocks, whose AST holds no code spans.
	inline bool
	// outline is true for ParseOutline, which keeps only the top-level
	// headings and tables.
	outline bool
}

func (c *converter) pos(off int) Pos { return c.doc.PosOf(c.base + off) }

func (c *converter) blocks(parent ast.Node, depth int) []Block {
	var out []Block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		if c.outline && n.Kind() != ast.KindHeading && n.Kind() != east.KindTable {
			continue
		}
		if b := c.block(n, depth); b != nil {
			out = append(out, b)
		}
	}
	return out
}

func (c *converter) block(n ast.Node, depth int) Block {
	switch n := n.(type) {
	case *ast.Heading:
		ls := c.lines(n)
		h := &Heading{Level: n.Level, Text: strings.TrimSpace(joinLines(ls)), Code: c.codeSpans(n)}
		h.Pos = firstPos(ls)
		if h.Pos == (Pos{}) {
			h.Pos = c.pos(n.Pos())
		}
		return h
	case *ast.Paragraph, *ast.TextBlock:
		return &Paragraph{Lines: c.lines(n), Code: c.codeSpans(n)}
	case *ast.List:
		l := &List{Ordered: n.IsOrdered(), Pos: c.pos(n.Pos())}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			l.Items = append(l.Items, c.item(it, depth+1))
		}
		return l
	case *east.Table:
		return c.table(n)
	case *ast.FencedCodeBlock:
		cb := &CodeBlock{Pos: c.pos(n.Pos()), Fenced: true, Lines: c.lines(n)}
		if n.Info != nil {
			cb.Info = strings.TrimSpace(string(n.Info.Segment.Value(c.src)))
		}
		return cb
	case *ast.CodeBlock:
		return &CodeBlock{Pos: c.pos(n.Pos()), Lines: c.lines(n)}
	case *ast.Blockquote:
		return &Quote{Pos: c.pos(n.Pos()), Blocks: c.blocks(n, depth+1)}
	case *ast.ThematicBreak:
		return &Break{Pos: c.pos(n.Pos())}
	case *ast.HTMLBlock:
		h := &HTML{Pos: c.pos(n.Pos()), Lines: c.lines(n)}
		if n.HasClosure() {
			seg := n.ClosureLine
			h.Lines = append(h.Lines, c.line(seg.Start, seg.Stop))
		}
		return h
	}
	return nil
}

func (c *converter) item(n ast.Node, depth int) *Item {
	it := &Item{Pos: c.pos(n.Pos())}
	first := n.FirstChild()
	if first != nil {
		if _, ok := first.(*ast.TextBlock); ok {
			it.consumeFirst(c, first)
			first = first.NextSibling()
		} else if _, ok := first.(*ast.Paragraph); ok {
			it.consumeFirst(c, first)
			first = first.NextSibling()
		}
	}
	for b := first; b != nil; b = b.NextSibling() {
		if blk := c.block(b, depth); blk != nil {
			it.Blocks = append(it.Blocks, blk)
		}
	}
	return it
}

func (it *Item) consumeFirst(c *converter, p ast.Node) {
	it.Lines = c.lines(p)
	it.Code = c.codeSpans(p)
	if box, ok := p.FirstChild().(*east.TaskCheckBox); ok && len(it.Lines) > 0 {
		it.Task, it.Checked = true, box.IsChecked
		l := &it.Lines[0]
		// The checkbox is "[ ]" or "[x]" followed by optional spaces.
		if i := strings.Index(l.Text, "]"); i >= 0 {
			rest := l.Text[i+1:]
			trimmed := strings.TrimLeft(rest, " \t")
			skip := len(l.Text) - len(trimmed)
			l.Pos.Col += utf8.RuneCountInString(l.Text[:skip])
			l.Text = trimmed
		}
	}
}

// lines returns a block node's source lines.
func (c *converter) lines(n ast.Node) []Line {
	segs := n.Lines()
	out := make([]Line, 0, segs.Len())
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		out = append(out, c.line(s.Start, s.Stop))
	}
	return out
}

func (c *converter) line(start, stop int) Line {
	if stop > len(c.src) {
		stop = len(c.src)
	}
	if start > stop {
		start = stop
	}
	t := c.doc.text[c.base+start : c.base+stop]
	t = strings.TrimRight(t, "\n")
	return Line{Text: t, Pos: c.pos(start)}
}

func (c *converter) codeSpans(n ast.Node) []CodeSpan {
	if !c.inline {
		return nil
	}
	var out []CodeSpan
	_ = ast.Walk(n, func(x ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		cs, ok := x.(*ast.CodeSpan)
		if !ok {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for t := cs.FirstChild(); t != nil; t = t.NextSibling() {
			if tx, ok := t.(*ast.Text); ok {
				b.Write(tx.Segment.Value(c.src))
			} else if s, ok := t.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		out = append(out, CodeSpan{Text: b.String(), Pos: c.pos(cs.Pos())})
		return ast.WalkSkipChildren, nil
	})
	return out
}

func (c *converter) table(t *east.Table) *Table {
	out := &Table{}
	// One backing array for the cells of all rows instead of one per row;
	// each row's slice is capped so that appending to it cannot reach the
	// next row's cells.
	cells := make([]Cell, 0, t.ChildCount()*(len(t.Alignments)+1))
	first := true
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var row Row
		row, cells = c.row(r.Pos(), cells)
		if first {
			out.Header = row
			dl := row.Line.Pos.Line + 1
			text := c.doc.Line(dl)
			// The delimiter row shares the header's container prefix.
			prefix := len(c.doc.Line(row.Line.Pos.Line)) - len(row.Line.Text)
			if prefix < 0 || prefix > len(text) {
				prefix = 0
			}
			out.Delimiter = Line{Text: text[prefix:], Pos: c.doc.LinePos(dl, prefix)}
			first = false
			continue
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// row reads the physical line starting at off and splits it into cells,
// which it appends to slab. It returns the row and the grown slab.
func (c *converter) row(off int, slab []Cell) (Row, []Cell) {
	end := off
	for end < len(c.src) && c.src[end] != '\n' {
		end++
	}
	l := c.line(off, end)
	start := len(slab)
	slab = appendCells(slab, l.Text, l.Pos)
	row := Row{Line: l}
	if len(slab) > start {
		row.Cells = slab[start:len(slab):len(slab)]
	}
	return row, slab
}

// SplitCells splits a table line into cells on unescaped pipes. A leading and
// a trailing pipe are optional; `\|` is a literal pipe in the cell text. at is
// the position of text's first character and anchors the cells' positions.
func SplitCells(text string, at Pos) []Cell {
	cells := appendCells(make([]Cell, 0, strings.Count(text, "|")+1), text, at)
	if len(cells) == 0 {
		return nil
	}
	return cells
}

// appendCells appends text's cells, as SplitCells splits them, to cells.
func appendCells(cells []Cell, text string, at Pos) []Cell {
	i := 0
	// Skip leading whitespace and one leading pipe.
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == '|' {
		i++
	}
	start := i
	// Cells start left to right, so columns are counted on from the last
	// one rather than from the start of the line for every cell. Every
	// index counted to follows an ASCII byte or is 0: a rune boundary.
	counted, col := 0, at.Col
	colAt := func(byteIdx int) int {
		col += utf8.RuneCountInString(text[counted:byteIdx])
		counted = byteIdx
		return col
	}
	flush := func(end int) {
		raw := text[start:end]
		lead := 0
		for lead < len(raw) && (raw[lead] == ' ' || raw[lead] == '\t') {
			lead++
		}
		t := strings.TrimSpace(raw)
		if strings.IndexByte(t, '\\') >= 0 {
			t = strings.ReplaceAll(t, `\|`, "|")
		}
		cells = append(cells, Cell{
			Text: t,
			Raw:  raw,
			Pos:  Pos{Line: at.Line, Col: colAt(start + min(lead, len(raw)))},
		})
	}
	for i < len(text) {
		switch text[i] {
		case '\\':
			i += 2
			continue
		case '|':
			flush(i)
			start = i + 1
		}
		i++
	}
	if start > len(text) {
		start = len(text)
	}
	if strings.TrimSpace(text[start:]) != "" {
		flush(len(text))
	}
	return cells
}
