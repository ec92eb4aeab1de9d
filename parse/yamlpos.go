package parse

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// YAMLPositions translates positions that yaml.v3 reports into gallivant's.
// Both end a line at \n, \r\n and a lone \r (as the markdown parser and
// editors do), but YAML also ends one at NEL (U+0085), LS (U+2028) and PS
// (U+2029): without translation a diagnostic would name a line the file
// does not have.
type YAMLPositions struct {
	// starts[i] is where YAML's line i+1 begins, in gallivant's lines and
	// columns.
	starts []Pos
	// end is the position just after the last character of the last line
	// gallivant counts. When the text ends with a line break, YAML's last
	// line is empty and gallivant does not count it (as editors do not):
	// a position there is reported at end instead.
	end Pos
	// trailingBreak is true when the text ends with \n or \r.
	trailingBreak bool
}

// NewYAMLPositions indexes src, the exact text handed to yaml.v3.
func NewYAMLPositions(src []byte) YAMLPositions {
	m := YAMLPositions{starts: []Pos{{Line: 1, Col: 1}}}
	line, col := 1, 1
	m.end = Pos{Line: 1, Col: 1}
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch r {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				n = 2
			}
			fallthrough
		case '\n':
			m.end = Pos{Line: line, Col: col}
			line, col = line+1, 1
			m.starts = append(m.starts, Pos{Line: line, Col: 1})
			m.trailingBreak = i+n == len(src)
		case '\u0085', '\u2028', '\u2029':
			col++
			m.starts = append(m.starts, Pos{Line: line, Col: col})
		default:
			col++
		}
		if r != '\r' && r != '\n' {
			m.end = Pos{Line: line, Col: col}
		}
		i += n
	}
	return m
}

// Pos returns gallivant's position of YAML's 1-based line and column. A
// line past the end, or the empty line YAML counts after a final line
// break, is reported at the end of the last line.
func (m YAMLPositions) Pos(line, col int) Pos {
	if len(m.starts) == 0 {
		return Pos{Line: max(line, 1), Col: max(col, 1)}
	}
	if line > len(m.starts) || line == len(m.starts) && m.trailingBreak {
		return m.end
	}
	line = max(line, 1)
	s := m.starts[line-1]
	return Pos{Line: s.Line, Col: s.Col + max(col, 1) - 1}
}

// yamlErrRE matches the "yaml: line N: " prefix yaml.v3 puts on a syntax
// error.
var yamlErrRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlParserProblems are the problems yaml.v3's parser (as opposed to its
// scanner) reports. yaml.v3 numbers a parser error's line from 0 and a
// scanner error's from 1, in the same message format, so the problem text
// is the only way to tell which numbering a message uses.
var yamlParserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found duplicate %TAG directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// SyntaxError returns where a yaml.v3 syntax error (the error of
// yaml.Unmarshal on the text m indexes) lies, in gallivant's lines, and its
// message without yaml.v3's "yaml: line N:" prefix. yaml.v3 gives a line
// only, so the column is 1 unless the position is the end of the text. A
// message without a line lies on YAML's first line.
func (m YAMLPositions) SyntaxError(err error) (Pos, string) {
	s := err.Error()
	loc := yamlErrRE.FindStringSubmatchIndex(s)
	if loc == nil {
		return m.Pos(1, 1), s
	}
	msg := s[loc[1]:]
	line := 1
	if loc[2] >= 0 {
		n, convErr := strconv.Atoi(s[loc[2]:loc[3]])
		if convErr != nil {
			return m.Pos(1, 1), msg
		}
		line = n
		for _, p := range yamlParserProblems {
			if strings.HasPrefix(msg, p) {
				line++
				break
			}
		}
	}
	return m.Pos(line, 1), msg
}
