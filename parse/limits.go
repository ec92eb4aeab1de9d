package parse

import (
	"fmt"
	"strings"
)

// Limits on what one document may ask of the markdown parser. goldmark's
// inline parser is quadratic in the emphasis delimiters, unclosed links and
// code-span backticks of one paragraph (a 128 KB line of `*a_` took 8.8 s),
// every `[` costs it about half a kilobyte, and a GFM table pads every row
// to the columns of its delimiter row (a 100,000-column table took 858 MB).
// Parse refuses a document past a limit with a positioned diagnostic before
// goldmark sees it, so that parsing stays linear in the input with memory a
// small multiple of MaxSize. Hand-written documents stay far below them.
const (
	// MaxBlockMarkup is the most inline markup characters (* _ ` [ ] ( ! <)
	// one paragraph, list or table (a run of non-blank lines outside code
	// fences) may hold.
	MaxBlockMarkup = 4096
	// MaxMarkup is the most inline markup characters a whole document may
	// hold.
	MaxMarkup = 1 << 16
	// MaxTableCells is the most table cells a document may hold, counting
	// the cells goldmark adds to pad a short row to its table's width.
	MaxTableCells = 1 << 17
)

// Rule ids of the limits.
const (
	RuleMarkupLimit = "file/markup-limit"
	RuleTableLimit  = "file/table-limit"
)

// limit is a limit a document went past: where, which rule, and why.
type limit struct {
	off  int
	rule string
	msg  string
}

// overLimit scans the normalized text once and returns the first limit it
// goes past, or ok false. inline says whether the inline parser will run;
// the table limit holds either way.
func (d *Document) overLimit(inline bool) (l limit, over bool) {
	block, total, cells := 0, 0, 0
	tableCols := 0 // columns of the table the current line belongs to, or 0
	inFence := false
	prevCells := 0 // cells of the previous line, should it be a table header
	for n := 1; n <= d.NumLines(); n++ {
		start := d.lineStarts[n-1]
		line := d.Line(n)
		trimmed := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			block, tableCols, prevCells = 0, 0, 0
			continue
		}
		if inFence {
			continue
		}
		if strings.TrimSpace(line) == "" {
			block, tableCols, prevCells = 0, 0, 0
			continue
		}
		quoted := strings.TrimLeft(trimmed, "> \t")
		content, item := listItem(quoted)
		switch {
		case tableCols > 0:
			cells += tableCols
		case prevCells > 0 && isDelimRow(content):
			tableCols = rowCells(content)
			cells += max(tableCols, prevCells) + tableCols
		}
		// Each table cell, list item and heading is parsed on its own.
		if tableCols > 0 || item || strings.HasPrefix(quoted, "#") {
			block = 0
		}
		if inline {
			for i := 0; i < len(line); i++ {
				switch line[i] {
				case '*', '_', '`', '[', ']', '(', '!', '<':
					block++
					total++
					if block > MaxBlockMarkup {
						return limit{start + i, RuleMarkupLimit, blockMarkupMsg}, true
					}
					if total > MaxMarkup {
						return limit{start + i, RuleMarkupLimit, markupMsg}, true
					}
				}
			}
		}
		if cells > MaxTableCells {
			return limit{start, RuleTableLimit, tableMsg}, true
		}
		prevCells = 0
		if tableCols == 0 {
			prevCells = rowCells(content)
		}
	}
	return limit{}, false
}

var (
	blockMarkupMsg = fmt.Sprintf("more than %d markup characters (* _ ` [ ] ( ! <) in one paragraph, list or table; split it with blank lines or put the text in a code block", MaxBlockMarkup)
	markupMsg      = fmt.Sprintf("more than %d markup characters (* _ ` [ ] ( ! <) in the document; put long text in a code block", MaxMarkup)
	tableMsg       = fmt.Sprintf("the tables hold more than %d cells, counting each row as wide as its table's delimiter row; use fewer columns or rows", MaxTableCells)
)

// listItem strips the list markers at the start of s and reports whether
// there was one: "- ", "* ", "+ ", "1. " or "1) ".
func listItem(s string) (string, bool) {
	found := false
	for {
		i := 0
		for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		switch {
		case i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && (s[i+1] == ' ' || s[i+1] == '\t'):
			s = strings.TrimLeft(s[i+2:], " \t")
		case i == 0 && len(s) > 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'):
			s = strings.TrimLeft(s[2:], " \t")
		default:
			return s, found
		}
		found = true
	}
}

// isDelimRow reports whether s looks like a GFM table delimiter row: only
// pipes, dashes, colons and blanks, with a pipe and a dash.
func isDelimRow(s string) bool {
	if !strings.Contains(s, "-") || !strings.Contains(s, "|") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// rowCells counts the cells of a table line as goldmark splits it: on
// pipes, without the empty cells before a leading and after a trailing one.
func rowCells(s string) int {
	s = strings.TrimSpace(s)
	n := strings.Count(s, "|") + 1
	if strings.HasPrefix(s, "|") {
		n--
	}
	if len(s) > 1 && strings.HasSuffix(s, "|") {
		n--
	}
	return max(n, 1)
}
