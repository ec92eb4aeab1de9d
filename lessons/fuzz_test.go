package lessons

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse holds the parser to its promises on any input: it never
// panics, every diagnostic has a position inside the input and a rule, and
// every lesson it returns is within the bounds.
func FuzzParse(f *testing.F) {
	good, _ := os.ReadFile("testdata/good.md")
	f.Add(good)
	f.Add([]byte("## T\nscope: a/**, `b`\nsources: acme/api#1, https://github.com/acme/api/pull/2#issuecomment-3\n\nText.\n"))
	f.Add([]byte("# L\n\nstray\n\nT\n-\n## \n## x ##\nsources: ,,\nscope: [\n"))
	f.Add([]byte("---\na: b\n---\n## T\r\nsources: a/b#1\r\n\r\nx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, ds := Parse("lessons/acme/api.md", data)
		lines := strings.Count(string(data), "\n") + strings.Count(string(data), "\r") + 2
		for _, d := range ds {
			if d.Rule == "" || d.Message == "" || d.Line < 1 || d.Col < 1 || d.Line > lines {
				t.Fatalf("diagnostic out of shape: %+v", d)
			}
		}
		if len(file.Lessons) > MaxLessons {
			t.Fatalf("%d lessons", len(file.Lessons))
		}
		for _, l := range file.Lessons {
			if l.Text == "" || len(l.Text) > MaxText || utf8.RuneCountInString(l.Title) > MaxTitle || len(l.Sources) == 0 {
				t.Fatalf("lesson out of bounds: %+v", l)
			}
			l.Applies([]string{"a/b.go", ""})
		}
	})
}
