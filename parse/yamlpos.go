package parse

import "unicode/utf8"

// YAMLPositions translates positions that yaml.v3 reports into gallivant's.
// Both end a line at \n, \r\n and a lone \r (as the markdown parser and
// editors do), but YAML also ends one at NEL (U+0085), LS (U+2028) and PS
// (U+2029): without translation a diagnostic would name a line the file
// does not have.
type YAMLPositions struct {
	// starts[i] is where YAML's line i+1 begins, in gallivant's lines and
	// columns.
	starts []Pos
}

// NewYAMLPositions indexes src, the exact text handed to yaml.v3.
func NewYAMLPositions(src []byte) YAMLPositions {
	m := YAMLPositions{starts: []Pos{{Line: 1, Col: 1}}}
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch r {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				n = 2
			}
			fallthrough
		case '\n':
			line, col = line+1, 1
			m.starts = append(m.starts, Pos{Line: line, Col: 1})
		case '\u0085', '\u2028', '\u2029':
			col++
			m.starts = append(m.starts, Pos{Line: line, Col: col})
		default:
			col++
		}
		i += n
	}
	return m
}

// Pos returns gallivant's position of YAML's 1-based line and column; a
// line past the end is clamped to the last one.
func (m YAMLPositions) Pos(line, col int) Pos {
	if len(m.starts) == 0 {
		return Pos{Line: max(line, 1), Col: max(col, 1)}
	}
	line = min(max(line, 1), len(m.starts))
	s := m.starts[line-1]
	return Pos{Line: s.Line, Col: s.Col + max(col, 1) - 1}
}
