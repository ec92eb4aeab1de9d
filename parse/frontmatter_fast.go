package parse

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// simpleMapping parses the common frontmatter — lines of `key: value`
// with a lower-case key and a plain, unambiguous string value
// (`repo: acme/api`) — into the node yaml.v3 would return, at a fraction
// of its cost: yaml.v3 spends some 20 µs setting up to parse three lines.
// It reports false for anything else (comments, quotes, numbers,
// booleans, nesting, blank lines, CR, non-ASCII), which yaml.v3 parses.
// FuzzSimpleMapping checks that both agree on every input it accepts.
func simpleMapping(raw []byte) (*yaml.Node, bool) {
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		return nil, false
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}
	for i, ln := range strings.Split(string(raw[:len(raw)-1]), "\n") {
		colon := strings.IndexByte(ln, ':')
		if colon < 1 || !simpleKey(ln[:colon]) {
			return nil, false
		}
		rest := ln[colon+1:]
		val := strings.TrimLeft(rest, " ")
		if len(val) == len(rest) || !simpleValue(val) {
			return nil, false
		}
		col := colon + 2 + len(rest) - len(val)
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ln[:colon], Line: i + 1, Column: 1},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val, Line: i + 1, Column: col})
	}
	return m, true
}

func simpleKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return true
}

// simpleValue reports whether v is a plain scalar that yaml.v3 reads as
// the string v itself: it starts with a letter, holds no indicator or
// comment character, does not end in a space, and is no boolean or null.
func simpleValue(v string) bool {
	if v == "" || v[len(v)-1] == ' ' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i == 0:
			return false
		case c >= '0' && c <= '9', c == ' ' && v[i-1] != ' ', c == '.', c == '/', c == '_', c == '-', c == '@', c == '+':
		default:
			return false
		}
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// splitFrontmatter finds a leading `---` (or `---yaml`) block as
// github.com/adrg/frontmatter's Parse does — blank lines skipped, lines
// compared with their surrounding space trimmed, the opening line needing
// a line break after it — without its buffered copy of the document:
// raw is the text between the delimiters, bodyOff where the document
// continues. ok is false when no block opens or it never closes.
// FuzzSplitFrontmatter checks that both agree.
func splitFrontmatter(src []byte) (raw []byte, bodyOff int, ok bool) {
	// next returns the line at i (trimmed), where the following line
	// starts, and whether the line had no line break.
	next := func(i int) (string, int, bool) {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return string(bytes.TrimSpace(src[i:])), len(src), true
		}
		return string(bytes.TrimSpace(src[i : i+j])), i + j + 1, false
	}
	i := 0
	for {
		ln, n, eof := next(i)
		if eof {
			return nil, 0, false
		}
		i = n
		if ln == "" {
			continue
		}
		if ln != "---" && ln != "---yaml" {
			return nil, 0, false
		}
		break
	}
	start := i
	for i < len(src) || i == start {
		ln, n, eof := next(i)
		if ln == "---" {
			return bytes.Clone(src[start:i]), n, true
		}
		if eof {
			return nil, 0, false
		}
		i = n
	}
	return nil, 0, false
}
