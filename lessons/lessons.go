package lessons

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Dir is the control-repository directory that holds the lessons files.
const Dir = "lessons"

// Bounds of one lessons file. They keep a hostile or runaway file from
// stalling a check or crowding a brief; real files stay far below them.
const (
	// MaxFileSize is the largest lessons file parsed, in bytes.
	MaxFileSize = 256 << 10
	// MaxLessons is the most lessons one file may hold.
	MaxLessons = 200
	// MaxTitle is the longest title, in characters.
	MaxTitle = 120
	// MaxText is the longest lesson text, in bytes.
	MaxText = 4 << 10
	// MaxEntries is the most patterns in one `scope:` line and the most
	// references in one `sources:` line.
	MaxEntries = 32
	// MaxEntry is the longest single pattern or reference, in bytes.
	MaxEntry = 300
)

// Rule ids the lessons grammar reports (docs/learning.md).
const (
	RulePath          = "lessons/path"
	RuleTooLarge      = "lessons/too-large"
	RuleFrontmatter   = "lessons/frontmatter"
	RuleHeading       = "lessons/heading"
	RuleTitle         = "lessons/title"
	RuleDuplicate     = "lessons/duplicate"
	RuleTooMany       = "lessons/too-many"
	RuleKey           = "lessons/key"
	RuleScope         = "lessons/scope"
	RuleSources       = "lessons/sources"
	RuleText          = "lessons/text"
	RuleStray         = "lessons/stray"
	exampleLesson     = "## Round to whole cents before adding tax"
	exampleScope      = "scope: billing/**, `pricing/*.go`"
	exampleSources    = "sources: acme/api#12, https://github.com/acme/api/pull/12#discussion_r1234"
	exampleRepoLesson = "lessons/acme/api.md"
)

// Lesson is one approved lesson.
type Lesson struct {
	// Title is the heading's text.
	Title string
	// Pos is where the title starts.
	Pos parse.Pos
	// Scope lists the paths or globs the lesson applies to; empty means
	// every change in the repository.
	Scope []Pattern
	// Sources are the pull requests and comments the lesson came from.
	Sources []Source
	// Text is the lesson itself, trimmed, as written.
	Text string
}

// File is a parsed lessons file.
type File struct {
	// Path is the file's control-repository path.
	Path string
	// Repo is the target repository the path names (owner/name).
	Repo string
	// Lessons are in file order: oldest first, since new lessons are
	// added at the end.
	Lessons []Lesson
}

// PathFor returns the lessons file of a target repository:
// lessons/<owner>/<name>.md.
func PathFor(repo string) string { return Dir + "/" + repo + ".md" }

// RepoOf returns the target repository a lessons file path names, and
// whether p is shaped lessons/<owner>/<name>.md with a valid owner/name.
func RepoOf(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, Dir+"/")
	if !ok {
		return "", false
	}
	repo, ok := strings.CutSuffix(rest, ".md")
	if !ok || strings.Count(repo, "/") != 1 || !specs.ValidRepo(repo) || path.Clean(p) != p {
		return "", false
	}
	return repo, true
}

// ReturnSubject is the subject of a learn task's return commit on the
// control repository's lessons branch (docs/learning.md "The learn task"):
// `Propose lessons for <owner>/<name>`. Admission does not read it; it is
// what a person sees on the lessons pull request's commit, and it is not a
// `loop:` subject, so the control history's replay passes it by once the
// pull request is merged.
func ReturnSubject(repo string) string { return "Propose lessons for " + repo }

// IsLessonsPath reports whether p lies under the lessons directory.
func IsLessonsPath(p string) bool { return strings.HasPrefix(p, Dir+"/") }

// Parse parses the lessons file at p. It never panics and never stops at
// the first problem: every problem is a positioned diagnostic, and the
// lessons that are well formed are returned even when others are not. A
// file whose diagnostics hold an error is not carried into briefs.
func Parse(p string, data []byte) (*File, parse.Diagnostics) {
	f := &File{Path: p}
	var ds parse.Diagnostics
	repo, ok := RepoOf(p)
	if !ok {
		ds.Errorf(p, parse.Pos{Line: 1, Col: 1}, RulePath, "a lessons file is named after its target repository, %s/<owner>/<name>.md (for example %s)", Dir, exampleRepoLesson)
	}
	f.Repo = repo
	if len(data) > MaxFileSize {
		ds.Errorf(p, parse.Pos{Line: 1, Col: 1}, RuleTooLarge, "file is %d bytes; a lessons file is limited to %d bytes", len(data), MaxFileSize)
		return f, ds
	}
	doc := parse.ParseOutline(p, data)
	ds = append(ds, doc.Diagnostics...)
	if doc.Diagnostics.HasErrors() {
		return f, ds
	}
	if doc.Front != nil {
		ds.Errorf(p, parse.Pos{Line: 1, Col: 1}, RuleFrontmatter, "a lessons file has no frontmatter; start it with an optional `# Lessons for <owner>/<name>` title and then `%s` sections", exampleLesson)
	}
	var heads []*parse.Heading
	for _, b := range doc.Blocks {
		if h, ok := b.(*parse.Heading); ok && h.Level <= 2 {
			heads = append(heads, h)
		}
	}
	first := 1
	if doc.Front != nil {
		first = doc.Front.EndLine + 1
	}
	titles := map[string]parse.Pos{}
	for i, h := range heads {
		end := doc.NumLines()
		if i+1 < len(heads) {
			end = heads[i+1].Pos.Line - 1
		}
		if i == 0 && !checkStray(doc, &ds, first, h.Pos.Line-1) && h.Level == 1 {
			checkStray(doc, &ds, h.Pos.Line+1, end)
		}
		if h.Level == 1 {
			if i > 0 {
				ds.Errorf(p, h.Pos, RuleHeading, "a lessons file has at most one `#` title, before its lessons; write each lesson as `%s`", exampleLesson)
			}
			continue
		}
		if !strings.HasPrefix(strings.TrimLeft(doc.Line(h.Pos.Line), " "), "#") {
			ds.Errorf(p, h.Pos, RuleHeading, "write a lesson's title as an ATX heading, `%s`, not underlined", exampleLesson)
			continue
		}
		l, ok := parseLesson(doc, &ds, h, end)
		if !ok {
			continue
		}
		key := strings.ToLower(l.Title)
		if at, dup := titles[key]; dup {
			ds.Errorf(p, h.Pos, RuleDuplicate, "the lesson %q is already at line %d; titles are unique within a file", l.Title, at.Line)
			continue
		}
		titles[key] = h.Pos
		if len(f.Lessons) == MaxLessons {
			ds.Errorf(p, h.Pos, RuleTooMany, "a lessons file holds at most %d lessons; merge or remove some", MaxLessons)
			break
		}
		f.Lessons = append(f.Lessons, l)
	}
	if len(heads) == 0 {
		checkStray(doc, &ds, first, doc.NumLines())
	}
	return f, ds
}

// checkStray reports the first text between lines from and to, outside
// any lesson (before the file's title or its first lesson): it would
// belong to no lesson and reach no brief. It reports whether it found any.
func checkStray(doc *parse.Document, ds *parse.Diagnostics, from, to int) bool {
	for n := from; n <= to; n++ {
		if t := doc.Line(n); strings.TrimSpace(t) != "" {
			ds.Add(doc.Path, doc.LinePos(n, len(t)-len(strings.TrimLeft(t, " \t"))), parse.SeverityWarning, RuleStray,
				"text outside a lesson is never carried into a brief; put it under a `%s` heading", exampleLesson)
			return true
		}
	}
	return false
}

// parseLesson reads the section of heading h, whose last line is end.
func parseLesson(doc *parse.Document, ds *parse.Diagnostics, h *parse.Heading, end int) (Lesson, bool) {
	p := doc.Path
	l := Lesson{Title: strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h.Text), "#")), Pos: h.Pos}
	ok := true
	switch n := utf8.RuneCountInString(l.Title); {
	case n == 0:
		ds.Errorf(p, h.Pos, RuleTitle, "a lesson needs a title, as in `%s`", exampleLesson)
		ok = false
	case n > MaxTitle:
		ds.Errorf(p, h.Pos, RuleTitle, "the title has %d characters; at most %d are allowed", n, MaxTitle)
		ok = false
	}
	n := h.Pos.Line + 1
	for n <= end && strings.TrimSpace(doc.Line(n)) == "" {
		n++
	}
	seen := map[string]int{}
	for ; n <= end; n++ {
		kv, isKV := parse.ParseKeyValue(parse.Line{Text: doc.Line(n), Pos: parse.Pos{Line: n, Col: 1}})
		if !isKV || !isWord(kv.Key) {
			break
		}
		if kv.Key != "scope" && kv.Key != "sources" {
			ds.Add(p, kv.KeyPos, parse.SeverityWarning, RuleKey, "`%s:` is not a lesson key (scope, sources); the line is read as the lesson's text", kv.Key)
			break
		}
		if at, again := seen[kv.Key]; again {
			ds.Errorf(p, kv.KeyPos, RuleKey, "`%s:` is already given at line %d; give it once, as a comma-separated list", kv.Key, at)
			ok = false
			continue
		}
		seen[kv.Key] = n
		if kv.Key == "scope" {
			pats, good := parseScope(p, ds, kv)
			l.Scope, ok = pats, ok && good
		} else {
			srcs, good := parseSources(p, ds, kv)
			l.Sources, ok = srcs, ok && good
		}
	}
	if _, has := seen["sources"]; !has {
		ds.Errorf(p, h.Pos, RuleSources, "the lesson %q names no sources; after its title write `%s`", l.Title, exampleSources)
		ok = false
	}
	var lines []string
	for ; n <= end; n++ {
		lines = append(lines, doc.Line(n))
	}
	l.Text = strings.TrimSpace(strings.Join(lines, "\n"))
	switch {
	case l.Text == "":
		ds.Errorf(p, h.Pos, RuleText, "the lesson %q has no text; after its scope and sources lines, write what to do, as in \"Round to whole cents before adding tax, never after.\"", l.Title)
		ok = false
	case len(l.Text) > MaxText:
		ds.Errorf(p, h.Pos, RuleText, "the lesson %q has %d bytes of text; at most %d are allowed: split it or say it shorter", l.Title, len(l.Text), MaxText)
		ok = false
	}
	return l, ok
}

// isWord reports whether k is a lower-case word, the shape of a lesson
// key; other `Key: value` lines are the lesson's text.
func isWord(k string) bool {
	for _, r := range k {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return k != ""
}

// entry is one comma-separated item of a key line, with its position.
type entry struct {
	text string
	pos  parse.Pos
}

// split splits a key line's value at commas, unquoting backticks.
func split(kv parse.KeyValue) []entry {
	var out []entry
	col := kv.ValuePos.Col
	for part := range strings.SplitSeq(kv.Value, ",") {
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		t := strings.TrimSpace(part)
		pos := parse.Pos{Line: kv.ValuePos.Line, Col: col + utf8.RuneCountInString(part[:lead])}
		col += utf8.RuneCountInString(part) + 1
		if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
			t = strings.TrimSpace(t[1 : len(t)-1])
		}
		out = append(out, entry{text: t, pos: pos})
	}
	return out
}
