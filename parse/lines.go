package parse

import (
	"strings"
	"unicode/utf8"
)

// KeyValue is a `key: value` line.
type KeyValue struct {
	Key, Value       string
	KeyPos, ValuePos Pos
}

// ParseKeyValue reads l as a `key: value` line. The key starts with a letter
// and holds letters, digits, spaces, `_`, `-` and `.`; the colon is followed by
// a space or the end of the line. Surrounding whitespace of the value is
// trimmed. ok is false when l is not of that shape.
func ParseKeyValue(l Line) (kv KeyValue, ok bool) {
	t := l.Text
	lead := len(t) - len(strings.TrimLeft(t, " \t"))
	body := t[lead:]
	i := strings.Index(body, ":")
	if i <= 0 {
		return kv, false
	}
	key := body[:i]
	if !isKey(key) {
		return kv, false
	}
	after := body[i+1:]
	if after != "" && after[0] != ' ' && after[0] != '\t' {
		return kv, false
	}
	val := strings.TrimSpace(after)
	kv.Key = key
	kv.Value = val
	kv.KeyPos = advance(l.Pos, t[:lead])
	vi := lead + i + 1 + (len(after) - len(strings.TrimLeft(after, " \t")))
	kv.ValuePos = advance(l.Pos, t[:vi])
	return kv, true
}

func isKey(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == ' ' || r == '_' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// ParseBoldLabel reads l as a `**Label:** value` line and returns the label
// (without colon) and the trimmed value.
func ParseBoldLabel(l Line) (label, value string, valuePos Pos, ok bool) {
	t := strings.TrimLeft(l.Text, " \t")
	lead := len(l.Text) - len(t)
	if !strings.HasPrefix(t, "**") {
		return "", "", Pos{}, false
	}
	end := strings.Index(t[2:], ":**")
	if end <= 0 {
		return "", "", Pos{}, false
	}
	label = t[2 : 2+end]
	rest := t[2+end+3:]
	value = strings.TrimSpace(rest)
	vi := lead + 2 + end + 3 + (len(rest) - len(strings.TrimLeft(rest, " \t")))
	return label, value, advance(l.Pos, l.Text[:vi]), true
}

// Advance returns the position reached after the characters of s, starting
// at p on a single line.
func Advance(p Pos, s string) Pos { return advance(p, s) }

func advance(p Pos, s string) Pos {
	return Pos{Line: p.Line, Col: p.Col + utf8.RuneCountInString(s)}
}
