package lessons

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseGood(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/good.md")
	if err != nil {
		t.Fatal(err)
	}
	f, ds := Parse("lessons/acme/api.md", data)
	if len(ds) != 0 {
		t.Fatalf("diagnostics on a good file: %v", ds)
	}
	want := &File{Path: "lessons/acme/api.md", Repo: "acme/api", Lessons: []Lesson{
		{
			Title: "Round to whole cents before adding tax", Pos: parse.Pos{Line: 3, Col: 4},
			Scope: []Pattern{{Raw: "billing/**", Pos: parse.Pos{Line: 5, Col: 8}}, {Raw: "pricing/*.go", Pos: parse.Pos{Line: 5, Col: 20}}},
			Sources: []Source{
				{Raw: "acme/api#12", Pos: parse.Pos{Line: 6, Col: 10}, Repo: "acme/api", Number: 12},
				{Raw: "https://github.com/acme/api/pull/12#discussion_r1234", Pos: parse.Pos{Line: 6, Col: 23}, Repo: "acme/api", Number: 12, Anchor: "discussion_r1234"},
			},
			Text: "Round every amount to whole cents before tax is added, never after: the\nreviewer has asked for it in three pull requests.\n\n```go\n## not a heading: inside a fence\ntotal := roundCents(net) + tax(roundCents(net))\n```",
		},
		{
			Title: "Never log the request body", Pos: parse.Pos{Line: 16, Col: 4},
			Sources: []Source{{Raw: "https://github.com/acme/api/pull/15#issuecomment-99", Pos: parse.Pos{Line: 17, Col: 10}, Repo: "acme/api", Number: 15, Anchor: "issuecomment-99"}},
			Text:    "Request bodies carry tokens. Log the route and the status only.",
		},
	}}
	if diff := cmp.Diff(want, f, cmpopts.IgnoreUnexported(Pattern{})); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	// CRLF line endings give the same model.
	crlf, _ := Parse("lessons/acme/api.md", []byte(strings.ReplaceAll(string(data), "\n", "\r\n")))
	if diff := cmp.Diff(f, crlf, cmpopts.IgnoreUnexported(Pattern{})); diff != "" {
		t.Errorf("CRLF copy (-LF +CRLF):\n%s", diff)
	}
}

// Every problem is a positioned diagnostic with its rule, and a bad lesson
// never hides the good ones around it.
func TestParseDiagnostics(t *testing.T) {
	t.Parallel()
	const src = "## Good one\nsources: acme/api#1\n\nKeep it.\n"
	tests := []struct {
		name, path, src string
		want            []string // file:line:col: severity: rule
		lessons         int
	}{
		{"path not named after a repository", "lessons/api.md", src, []string{"lessons/api.md:1:1: error: lessons/path"}, 1},
		{"no sources", "lessons/acme/api.md", "## Title\n\nText.\n", []string{"lessons/acme/api.md:1:4: error: lessons/sources"}, 0},
		{"no text", "lessons/acme/api.md", "## Title\nsources: acme/api#1\n", []string{"lessons/acme/api.md:1:4: error: lessons/text"}, 0},
		{"bad scope keeps the next lesson", "lessons/acme/api.md", "## Bad\nscope: ../etc, ok/**, a**b\nsources: acme/api#1\n\nText.\n\n" + src,
			[]string{"lessons/acme/api.md:2:8: error: lessons/scope", "lessons/acme/api.md:2:23: error: lessons/scope"}, 1},
		{"bad sources", "lessons/acme/api.md", "## Bad\nsources: acme#1, http://x/a/b/pull/1, https://github.com/acme/api/pull/0, https://github.com/acme/api/pull/3#top\n\nText.\n",
			[]string{"lessons/acme/api.md:2:10: error: lessons/sources", "lessons/acme/api.md:2:18: error: lessons/sources", "lessons/acme/api.md:2:39: error: lessons/sources", "lessons/acme/api.md:2:75: error: lessons/sources"}, 0},
		{"duplicate title", "lessons/acme/api.md", src + "\n## good ONE\nsources: acme/api#2\n\nAgain.\n", []string{"lessons/acme/api.md:6:4: error: lessons/duplicate"}, 1},
		{"key given twice", "lessons/acme/api.md", "## T\nsources: acme/api#1\nsources: acme/api#2\n\nText.\n", []string{"lessons/acme/api.md:3:1: error: lessons/key"}, 0},
		{"unknown key is text, warned", "lessons/acme/api.md", "## T\nsources: acme/api#1\nscopes: a/**\n", []string{"lessons/acme/api.md:3:1: warning: lessons/key"}, 1},
		{"setext heading", "lessons/acme/api.md", "Title\n-----\nsources: acme/api#1\n\nText.\n", []string{"lessons/acme/api.md:1:1: error: lessons/heading"}, 0},
		{"second title", "lessons/acme/api.md", "# Lessons\n\n" + src + "\n# Again\n", []string{"lessons/acme/api.md:8:3: error: lessons/heading"}, 1},
		{"stray text before the first lesson", "lessons/acme/api.md", "# Lessons\n\nsome notes\n\n" + src, []string{"lessons/acme/api.md:3:1: warning: lessons/stray"}, 1},
		{"text before the title", "lessons/acme/api.md", "notes\n\n# Lessons\n\n" + src, []string{"lessons/acme/api.md:1:1: warning: lessons/stray"}, 1},
		{"empty title", "lessons/acme/api.md", "##\nsources: acme/api#1\n\nText.\n", []string{"lessons/acme/api.md:1:1: error: lessons/title"}, 0},
		{"frontmatter", "lessons/acme/api.md", "---\nrepo: acme/api\n---\n" + src, []string{"lessons/acme/api.md:1:1: error: lessons/frontmatter"}, 1},
		{"long title", "lessons/acme/api.md", "## " + strings.Repeat("é", MaxTitle+1) + "\nsources: acme/api#1\n\nText.\n", []string{"lessons/acme/api.md:1:4: error: lessons/title"}, 0},
		{"long text", "lessons/acme/api.md", "## T\nsources: acme/api#1\n\n" + strings.Repeat("word ", MaxText/5+1) + "\n", []string{"lessons/acme/api.md:1:4: error: lessons/text"}, 0},
		{"too large", "lessons/acme/api.md", strings.Repeat("x", MaxFileSize+1), []string{"lessons/acme/api.md:1:1: error: lessons/too-large"}, 0},
		{"binary", "lessons/acme/api.md", "## T\x00\n", []string{"lessons/acme/api.md:1:5: error: file/binary"}, 0},
		{"empty file", "lessons/acme/api.md", "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, ds := Parse(tt.path, []byte(tt.src))
			var got []string
			for _, d := range ds {
				got = append(got, d.File+":"+d.Pos().String()+": "+string(d.Severity)+": "+d.Rule)
				if d.Message == "" {
					t.Errorf("diagnostic without a message: %v", d)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, ds)
			}
			if len(f.Lessons) != tt.lessons {
				t.Errorf("got %d lessons, want %d", len(f.Lessons), tt.lessons)
			}
		})
	}
}

// Messages say what was expected and show an accepted example.
func TestParseMessagesShowExamples(t *testing.T) {
	t.Parallel()
	_, ds := Parse("lessons/acme/api.md", []byte("## T\nscope: /abs\nsources: nope\n\nText.\n"))
	want := []string{
		"\"/abs\" is not a scope pattern: not a relative slash-separated path; expected repository paths or globs, as in `scope: billing/**, `pricing/*.go``",
		"\"nope\" is not a source: neither `owner/name#<number>` nor an https URL; expected pull requests or comment URLs, as in `sources: acme/api#12, https://github.com/acme/api/pull/12#discussion_r1234`",
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestTooManyLessons(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range MaxLessons + 2 {
		b.WriteString("## Lesson " + strconv.Itoa(i) + "\nsources: acme/api#1\n\nText.\n\n")
	}
	f, ds := Parse("lessons/acme/api.md", []byte(b.String()))
	if len(f.Lessons) != MaxLessons {
		t.Errorf("got %d lessons, want the first %d", len(f.Lessons), MaxLessons)
	}
	if len(ds) != 1 || ds[0].Rule != RuleTooMany || ds[0].Line != 5*MaxLessons+1 {
		t.Errorf("diagnostics = %v, want one %s at line %d", ds, RuleTooMany, 5*MaxLessons+1)
	}
}

func TestRepoOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, repo string
		ok         bool
	}{
		{"lessons/acme/api.md", "acme/api", true},
		{"lessons/acme/api.v2.md", "acme/api.v2", true},
		{"lessons/acme.md", "", false},
		{"lessons/acme/api/x.md", "", false},
		{"lessons/acme/api.txt", "", false},
		{"specs/acme/api.md", "", false},
		{"lessons/-x/api.md", "", false},
	}
	for _, tt := range tests {
		repo, ok := RepoOf(tt.path)
		if repo != tt.repo || ok != tt.ok {
			t.Errorf("RepoOf(%q) = %q, %v; want %q, %v", tt.path, repo, ok, tt.repo, tt.ok)
		}
		if ok && PathFor(repo) != tt.path {
			t.Errorf("PathFor(%q) = %q, want %q", repo, PathFor(repo), tt.path)
		}
	}
}

func TestPatternMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"billing/**", "billing/tax/round.go", true},
		{"billing/**", "billing", true},
		{"billing/**", "web/billing/x.go", false},
		{"billing", "billing/tax.go", true},
		{"docs/", "docs/api.md", true},
		{"pricing/*.go", "pricing/cents.go", true},
		{"pricing/*.go", "pricing/sub/cents.go", false},
		{"pricing/*.go", "pricing", false},
		{"pricing/*.go", "pricing/", true},
		{"**/x/**/x/**/x/**/x/**/x/**/y", "x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/z", false},
		{"pricing/*.go", "pricing/README.md", false},
		{"**/*_test.go", "a/b/c_test.go", true},
		{"**/*_test.go", "c_test.go", true},
		{"**/*_test.go", "a/b/c.go", false},
		{"web/**", "docs/api.md", false},
		{"web/**", ".", true},
		{"cmd/?pi/main.go", "cmd/api/main.go", true},
		{"[ab]*/x", "b1/x", true},
	}
	for _, tt := range tests {
		p, why := NewPattern(tt.pattern)
		if why != "" {
			t.Fatalf("NewPattern(%q): %s", tt.pattern, why)
		}
		if got := p.Matches(tt.path); got != tt.want {
			t.Errorf("%q.Matches(%q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	f, ds := Parse("lessons/acme/api.md", []byte("## Anywhere\nsources: acme/api#1\n\nA.\n\n## Billing\nscope: billing/**\nsources: acme/api#2\n\nB.\n\n## Web\nscope: web/**, ui/\nsources: acme/api#3\n\nC.\n"))
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	tests := []struct {
		inPlay []string
		want   []string
	}{
		{nil, []string{"Anywhere"}},
		{[]string{"billing/tax.go"}, []string{"Anywhere", "Billing"}},
		{[]string{"docs/api.md", "ui/app.ts"}, []string{"Anywhere", "Web"}},
		{[]string{"."}, []string{"Anywhere", "Billing", "Web"}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range f.Match(tt.inPlay) {
			got = append(got, l.Title)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Match(%q) (-want +got):\n%s", tt.inPlay, diff)
		}
	}
}
