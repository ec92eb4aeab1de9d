package parse

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// outlineMarkdown is blockMarkdown with goldmark's inline pass made empty.
// goldmark always walks every paragraph, heading and table cell after the
// block pass, reading each character and allocating a text node per line,
// even with no inline parser registered: on a ledger that pass is most of
// goldmark's cost, and ParseOutline reads none of its result. So the
// paragraphs and cells ParseOutline does not read give up their lines
// before the walk, once no block parser can look at them again:
//
//   - a table's cells as soon as the table transformer has built them
//     (ParseOutline re-splits rows from the source);
//   - a paragraph when the next paragraph is transformed, not when it is
//     itself: until goldmark has closed it, its lines decide whether it is
//     kept at all, and a setext underline turns them into a heading.
//
// The block structure is unchanged, which FuzzParseOutline checks against
// ParseBlocks.
var outlineMarkdown = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		// extension.Table's own transformers, at its priorities, the paragraph
		// one wrapped.
		parser.WithParagraphTransformers(util.Prioritized(cellDropper{extension.NewTableParagraphTransformer()}, 200)),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
		// Lowest priority: runs after every other paragraph transformer.
		parser.WithParagraphTransformers(util.Prioritized(lineDropper{}, -1000)),
	)),
)

// cellDropper runs the table transformer and empties the lines of the
// cells of the table it built.
type cellDropper struct{ table parser.ParagraphTransformer }

func (c cellDropper) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	parent, next := node.Parent(), node.NextSibling()
	c.table.Transform(node, reader, pc)
	// A table is inserted right after the paragraph, which it may replace:
	// either way it ends up just before the paragraph's old next sibling.
	var built ast.Node
	if next != nil {
		built = next.PreviousSibling()
	} else if parent != nil {
		built = parent.LastChild()
	}
	t, ok := built.(*east.Table)
	if !ok {
		return
	}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cell.Lines().Clear()
		}
	}
}

// droppedKey holds the paragraph whose lines lineDropper empties next.
var droppedKey = parser.NewContextKey()

// lineDropper empties the lines of the previously transformed paragraph.
type lineDropper struct{}

func (lineDropper) Transform(node *ast.Paragraph, _ text.Reader, pc parser.Context) {
	if prev, ok := pc.Get(droppedKey).(*ast.Paragraph); ok && prev != node {
		prev.Lines().Clear()
	}
	pc.Set(droppedKey, node)
}
