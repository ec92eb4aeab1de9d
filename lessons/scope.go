package lessons

import (
	"path"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

// Pattern is one `scope:` entry: a slash path or glob relative to the
// target repository. `*` and `?` match within one path segment, `[...]`
// is a character class, and a `**` segment matches any number of
// segments. A pattern matches a path when it matches the path or one of
// its directories, so `billing` covers everything under billing/, and a
// trailing slash (`docs/`) says the same.
type Pattern struct {
	// Raw is the pattern as written, without backticks.
	Raw string
	// Pos is where it is written.
	Pos  parse.Pos
	segs []string
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.Raw }

// NewPattern parses one scope pattern, with a reason when it is not one.
func NewPattern(s string) (Pattern, string) {
	switch {
	case s == "":
		return Pattern{}, "an empty pattern"
	case len(s) > MaxEntry:
		return Pattern{}, "longer than the limit"
	case strings.HasPrefix(s, "/") || strings.Contains(s, `\`):
		return Pattern{}, "not a relative slash-separated path"
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return Pattern{}, "a control character"
		}
	}
	trimmed := strings.TrimSuffix(s, "/")
	segs := strings.Split(trimmed, "/")
	for _, g := range segs {
		switch {
		case g == "" || g == "." || g == "..":
			return Pattern{}, "an empty, `.` or `..` segment (the path must stay inside the repository)"
		case g != "**" && strings.Contains(g, "**"):
			return Pattern{}, "`**` inside a segment; `**` must be a whole segment, as in `billing/**/tax.go`"
		}
		if _, err := path.Match(g, ""); err != nil {
			return Pattern{}, "a malformed glob"
		}
	}
	return Pattern{Raw: s, segs: segs}, ""
}

// Matches reports whether the pattern covers file, a repository-relative
// path in play: file or one of its directories matches. A path in play
// that ends in a slash is a directory, and it is covered as well when the
// pattern reaches into it (`billing/` for `billing/*.go`); the whole
// repository ("", "." or "./") is in play for every pattern.
func (p Pattern) Matches(file string) bool {
	dir := file == "" || strings.HasSuffix(file, "/")
	file = strings.Trim(path.Clean("/"+file), "/")
	if file == "" {
		return true
	}
	return matchSegs(p.segs, strings.Split(file, "/"), dir)
}

// matchSegs matches pattern segments against path segments by dynamic
// programming, so that many `**` segments cost no more than a product of
// the two lengths. A pattern that runs out first matched a directory of
// the path; a path that runs out first is covered only when it is a
// directory, or when the rest of the pattern is `**`.
func matchSegs(pat, segs []string, dir bool) bool {
	// memo[i][j]: 0 unknown, 1 false, 2 true, for pat[i:] against segs[j:].
	memo := make([][]uint8, len(pat)+1)
	for i := range memo {
		memo[i] = make([]uint8, len(segs)+1)
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if m := memo[i][j]; m != 0 {
			return m == 2
		}
		var ok bool
		switch {
		case i == len(pat):
			ok = true
		case j == len(segs):
			ok = dir
			if !ok {
				ok = true
				for _, g := range pat[i:] {
					ok = ok && g == "**"
				}
			}
		case pat[i] == "**":
			ok = match(i+1, j) || match(i, j+1)
		default:
			m, _ := path.Match(pat[i], segs[j])
			ok = m && match(i+1, j+1)
		}
		memo[i][j] = 1
		if ok {
			memo[i][j] = 2
		}
		return ok
	}
	return match(0, 0)
}

// parseScope reads a `scope:` line.
func parseScope(file string, ds *parse.Diagnostics, kv parse.KeyValue) ([]Pattern, bool) {
	return parseList(file, ds, kv, listForm{rule: RuleScope, tooMany: "the scope lists %d patterns; at most %d are allowed",
		bad: "%q is not a scope pattern: %s; expected repository paths or globs, as in `%s`", example: exampleScope},
		NewPattern, func(p *Pattern, at parse.Pos) { p.Pos = at })
}

// listForm is what a list line's diagnostics say: its rule, the message
// for too many entries (count, limit), and for a bad one (the entry, why,
// an accepted example).
type listForm struct {
	rule, tooMany, bad, example string
}

// parseList reads a list line's entries, each with read, at most
// MaxEntries: a bad entry is a diagnostic at its position and the others
// are kept.
func parseList[T any](file string, ds *parse.Diagnostics, kv parse.KeyValue, f listForm, read func(string) (T, string), at func(*T, parse.Pos)) ([]T, bool) {
	es := split(kv)
	if len(es) > MaxEntries {
		ds.Errorf(file, kv.ValuePos, f.rule, f.tooMany, len(es), MaxEntries)
		return nil, false
	}
	var out []T
	ok := true
	for _, e := range es {
		v, why := read(e.text)
		if why != "" {
			ds.Errorf(file, e.pos, f.rule, f.bad, bounded(e.text), why, f.example)
			ok = false
			continue
		}
		at(&v, e.pos)
		out = append(out, v)
	}
	return out, ok
}

// bounded cuts text quoted in a diagnostic to a readable length.
func bounded(s string) string {
	if len(s) <= 80 {
		return s
	}
	s = s[:80]
	for len(s) > 0 && !utf8ValidEnd(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
