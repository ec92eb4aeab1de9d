package parse

import (
	"fmt"
	"strings"
)

// dump renders a document model as indented text for golden files and for
// comparing two models.
func dump(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lines %d\n", d.NumLines())
	if f := d.Front; f != nil {
		fmt.Fprintf(&b, "frontmatter %d..%d content %d", f.Line, f.EndLine, f.ContentLine)
		if f.Node != nil {
			fmt.Fprintf(&b, " kind %d at %s", f.Node.Kind, f.PosOf(f.Node))
			for i := 0; i+1 < len(f.Node.Content); i += 2 {
				fmt.Fprintf(&b, "\n  key %q at %s", f.Node.Content[i].Value, f.PosOf(f.Node.Content[i]))
			}
		}
		b.WriteString("\n")
	}
	for _, blk := range d.Blocks {
		dumpBlock(&b, blk, 0)
	}
	for _, diag := range d.Diagnostics {
		fmt.Fprintf(&b, "diag %s\n", diag)
	}
	return b.String()
}

func dumpBlock(b *strings.Builder, blk Block, depth int) {
	ind := strings.Repeat("  ", depth)
	switch x := blk.(type) {
	case *Heading:
		fmt.Fprintf(b, "%sheading %d at %s %q%s\n", ind, x.Level, x.Pos, x.Text, spans(x.Code))
	case *Paragraph:
		fmt.Fprintf(b, "%sparagraph%s\n", ind, spans(x.Code))
		for _, l := range x.Lines {
			fmt.Fprintf(b, "%s  line %s %q\n", ind, l.Pos, l.Text)
		}
	case *List:
		fmt.Fprintf(b, "%slist ordered=%v at %s\n", ind, x.Ordered, x.Pos)
		for _, it := range x.Items {
			fmt.Fprintf(b, "%s  item at %s task=%v checked=%v text %s %q%s\n", ind, it.Pos, it.Task, it.Checked, it.TextPos(), it.Text(), spans(it.Code))
			for _, c := range it.Blocks {
				dumpBlock(b, c, depth+2)
			}
		}
	case *Table:
		fmt.Fprintf(b, "%stable delimiter %s %q\n", ind, x.Delimiter.Pos, x.Delimiter.Text)
		for _, r := range append([]Row{x.Header}, x.Rows...) {
			fmt.Fprintf(b, "%s  row %s", ind, r.Line.Pos)
			for _, c := range r.Cells {
				fmt.Fprintf(b, " [%s %q]", c.Pos, c.Text)
			}
			b.WriteString("\n")
		}
	case *CodeBlock:
		fmt.Fprintf(b, "%scode fenced=%v info=%q at %s lines %d\n", ind, x.Fenced, x.Info, x.Pos, len(x.Lines))
	case *Quote:
		fmt.Fprintf(b, "%squote at %s\n", ind, x.Pos)
		for _, c := range x.Blocks {
			dumpBlock(b, c, depth+1)
		}
	case *Break:
		fmt.Fprintf(b, "%sbreak at %s\n", ind, x.Pos)
	case *HTML:
		fmt.Fprintf(b, "%shtml at %s lines %d\n", ind, x.Pos, len(x.Lines))
	}
}

func spans(cs []CodeSpan) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, " code(%s %q)", c.Pos, c.Text)
	}
	return b.String()
}
