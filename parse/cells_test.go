package parse

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// splitCellsReference is SplitCells as it was before it counted columns
// incrementally and shared one backing array per table: the behaviour
// both must keep.
func splitCellsReference(text string, at Pos) []Cell {
	cells := make([]Cell, 0, strings.Count(text, "|")+1)
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == '|' {
		i++
	}
	start := i
	col := func(byteIdx int) int { return at.Col + utf8.RuneCountInString(text[:byteIdx]) }
	flush := func(end int) {
		raw := text[start:end]
		lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
		cells = append(cells, Cell{
			Text: strings.ReplaceAll(strings.TrimSpace(raw), `\|`, "|"),
			Raw:  raw,
			Pos:  Pos{Line: at.Line, Col: col(start + min(lead, len(raw)))},
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
	if len(cells) == 0 {
		return nil
	}
	return cells
}

var cellLines = []string{
	"", "|", "||", "| a | b |", "a | b", "  |\tx\t|  y  ", "| é | ü | 日本 | b |",
	"|é|ü|日本|b|", `| go test; x \| y | z |`, `| a \\| b |`, `| trailing \`, `\|`, `|\`,
	"| 2 | open | 0 | |", "| 1 | done | 4 | go test ./endpoint1 -run TestBudget; ok 0.00s; p99 50 ms |",
	"| x |\u00a0| y |", "| \xff | \xe2\x82 | z |", "|||a||b|||",
}

func TestSplitCellsMatchesReference(t *testing.T) {
	t.Parallel()
	for _, line := range cellLines {
		t.Run(line, func(t *testing.T) {
			at := Pos{Line: 4, Col: 3}
			if diff := cmp.Diff(splitCellsReference(line, at), SplitCells(line, at)); diff != "" {
				t.Errorf("SplitCells(%q) differs from the reference (-want +got):\n%s", line, diff)
			}
		})
	}
}

// A table's rows share one backing array of cells; appending to one row's
// cells must not overwrite the next row's.
func TestTableRowCellsAreSeparate(t *testing.T) {
	t.Parallel()
	d := ParseBlocks("x.md", []byte("| a | b |\n|---|---|\n| é | 1 |\n| 2 |\n|  | 3 | 4 |\n"))
	tab, ok := d.Blocks[0].(*Table)
	if !ok || len(tab.Rows) != 3 {
		t.Fatalf("want a table with 3 rows, got %s", dump(d))
	}
	for i, r := range append([]Row{tab.Header}, tab.Rows...) {
		if diff := cmp.Diff(splitCellsReference(r.Line.Text, r.Line.Pos), r.Cells); diff != "" {
			t.Errorf("row %d cells differ from the reference (-want +got):\n%s", i, diff)
		}
	}
	want := tab.Rows[1].Cells[0]
	_ = append(tab.Rows[0].Cells, Cell{Text: "clobber"})
	if tab.Rows[1].Cells[0] != want {
		t.Errorf("appending to row 1's cells changed row 2's first cell to %+v", tab.Rows[1].Cells[0])
	}
}
