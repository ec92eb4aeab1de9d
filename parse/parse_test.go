package parse

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

func TestParseGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(Parse(filepath.Base(f), src))
			golden := strings.TrimSuffix(f, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden file (run go test -update): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Parse(%s) mismatch (-want +got):\n%s", f, diff)
			}
		})
	}
}

// LF and CRLF copies of a document must produce the same model (P-5).
func TestParseCRLFEqualsLF(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/*.md")
	for _, f := range files {
		src, _ := os.ReadFile(f)
		crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
		got, want := dump(Parse("x.md", crlf)), dump(Parse("x.md", src))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: CRLF model mismatch with the LF one (-want +got):\n%s", f, diff)
		}
	}
}

func TestParseBadInput(t *testing.T) {
	t.Parallel()
	deepList := strings.Repeat("- ", 5000) + "x\n"
	var indented strings.Builder
	for i := 0; i < 300; i++ {
		indented.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	tests := []struct {
		name     string
		src      []byte
		wantRule string
		wantPos  Pos
	}{
		{"too large", bytes.Repeat([]byte("a"), MaxSize+1), RuleTooLarge, Pos{1, 1}},
		{"binary", []byte("# T\nab\x00cd\n"), RuleBinary, Pos{2, 3}},
		{"invalid utf8", []byte("# T\n\nhé\xffllo\n"), RuleEncoding, Pos{3, 3}},
		{"deep markers", []byte(deepList), RuleNesting, Pos{1, 1}},
		{"deep indentation", []byte(indented.String()), RuleNesting, Pos{MaxNesting + 1, 1}},
		{"deep quotes", []byte("# T\n" + strings.Repeat(">", 1000) + " x\n"), RuleNesting, Pos{2, 1}},
		{"bad yaml", []byte("---\na: 1\nrepo: [x\n---\n# T\n"), RuleFrontmatterSyntax, Pos{4, 1}},
		{"unclosed frontmatter", []byte("---\nrepo: x\n# T\n"), RuleFrontmatterUnclose, Pos{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse("bad.md", tt.src)
			if len(d.Diagnostics) == 0 {
				t.Fatalf("Parse(%s) reported nothing; want %s", tt.name, tt.wantRule)
			}
			got := d.Diagnostics[0]
			if got.Rule != tt.wantRule || got.Severity != SeverityError {
				t.Errorf("Parse(%s) = %s; want rule %s", tt.name, got, tt.wantRule)
			}
			if tt.wantPos.Line != 0 && got.Pos().Line > tt.wantPos.Line+1 {
				t.Errorf("Parse(%s) at %s; want near %s", tt.name, got.Pos(), tt.wantPos)
			}
			checkInside(t, d)
		})
	}
}

func TestParseBadInputPositions(t *testing.T) {
	t.Parallel()
	d := Parse("b.md", []byte("# T\nab\x00cd\n"))
	if got, want := d.Diagnostics[0].Pos(), (Pos{2, 3}); got != want {
		t.Errorf("NUL at %s, want %s", got, want)
	}
	d = Parse("b.md", []byte("# T\n\nhé\xffllo\n"))
	if got, want := d.Diagnostics[0].Pos(), (Pos{3, 3}); got != want {
		t.Errorf("invalid byte at %s, want %s", got, want)
	}
	d = Parse("b.md", []byte("---\na: 1\nrepo: [x\n---\n# T\n"))
	if got := d.Diagnostics[0].Pos().Line; got < 2 || got > 3 {
		t.Errorf("yaml error at line %d, want 2 or 3", got)
	}
}

func TestSplitCells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"| a | b |", []string{"a", "b"}},
		{"a | b", []string{"a", "b"}},
		{`| go test; x \| y | z |`, []string{"go test; x | y", "z"}},
		{"| 2 | open | 0 | |", []string{"2", "open", "0", ""}},
		{`| a \\| b |`, []string{`a \\`, "b"}},
		{"|", nil},
		{"", nil},
		{`| trailing \`, []string{`trailing \`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			cells := SplitCells(tt.in, Pos{1, 1})
			var got []string
			for _, c := range cells {
				got = append(got, c.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitCells(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSplitCellsPositions(t *testing.T) {
	t.Parallel()
	cells := SplitCells("| é | b |", Pos{3, 5})
	want := []Pos{{3, 7}, {3, 11}}
	for i, c := range cells {
		if c.Pos != want[i] {
			t.Errorf("cell %d at %s, want %s", i, c.Pos, want[i])
		}
	}
}

func TestParseKeyValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		ok     bool
		key    string
		val    string
		valCol int
	}{
		{"base: abc", true, "base", "abc", 7},
		{"iterations: 3", true, "iterations", "3", 13},
		{"base <member>: x", false, "", "", 0},
		{"seeded api: yes", true, "seeded api", "yes", 13},
		{"key:", true, "key", "", 5},
		{"http://x", false, "", "", 0},
		{": x", false, "", "", 0},
		{"1 x: y", false, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			kv, ok := ParseKeyValue(Line{Text: tt.in, Pos: Pos{1, 1}})
			if ok != tt.ok || kv.Key != tt.key || kv.Value != tt.val || (ok && kv.ValuePos.Col != tt.valCol) {
				t.Errorf("ParseKeyValue(%q) = %+v, %v; want key %q value %q col %d ok %v", tt.in, kv, ok, tt.key, tt.val, tt.valCol, tt.ok)
			}
		})
	}
}

func TestParseBoldLabel(t *testing.T) {
	t.Parallel()
	label, value, p, ok := ParseBoldLabel(Line{Text: "**Spec:** `specs/a.md`", Pos: Pos{2, 1}})
	if !ok || label != "Spec" || value != "`specs/a.md`" || p != (Pos{2, 11}) {
		t.Errorf("ParseBoldLabel = %q %q %s %v, want %q %q %s true", label, value, p, ok, "Spec", "`specs/a.md`", Pos{2, 11})
	}
	if label, _, _, ok := ParseBoldLabel(Line{Text: "**bold** text"}); ok {
		t.Errorf("ParseBoldLabel(**bold** text) = %q, true; want a non-label line refused", label)
	}
}

func TestSections(t *testing.T) {
	t.Parallel()
	src, _ := os.ReadFile("testdata/spec.md")
	root := Parse("spec.md", src).Root()
	if len(root.Children) != 1 {
		t.Fatalf("root has %d children, want the H1 only", len(root.Children))
	}
	h1 := root.Children[0]
	var titles []string
	for _, c := range h1.Children {
		titles = append(titles, c.Title())
	}
	if diff := cmp.Diff([]string{"Acceptance criteria", "Verify", "Setext heading"}, titles); diff != "" {
		t.Errorf("sections mismatch (-want +got):\n%s", diff)
	}
	if got := h1.Find("verify"); len(got) != 1 {
		t.Errorf("Find(verify) = %d sections, want 1", len(got))
	}
}

// checkInside fails when any position the model reports lies outside the input.
func checkInside(t *testing.T, d *Document) {
	t.Helper()
	inside := func(what string, p Pos) {
		if p.Line < 1 || p.Line > d.NumLines() {
			t.Errorf("%s at %s: line outside 1..%d", what, p, d.NumLines())
			return
		}
		if n := utf8.RuneCountInString(d.Line(p.Line)); p.Col < 1 || p.Col > n+1 {
			t.Errorf("%s at %s: column outside 1..%d", what, p, n+1)
		}
	}
	for _, diag := range d.Diagnostics {
		inside("diagnostic "+diag.Rule, diag.Pos())
	}
	var walk func([]Block)
	walk = func(bs []Block) {
		for _, b := range bs {
			inside("block", b.Start())
			switch x := b.(type) {
			case *List:
				for _, it := range x.Items {
					inside("item", it.Pos)
					inside("item text", it.TextPos())
					walk(it.Blocks)
				}
			case *Quote:
				walk(x.Blocks)
			case *Table:
				for _, r := range append([]Row{x.Header}, x.Rows...) {
					for _, c := range r.Cells {
						inside("cell", c.Pos)
					}
				}
			}
		}
	}
	walk(d.Blocks)
}

func TestCorpora(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "corpora")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.md"))
	if len(files) == 0 {
		t.Skip("shared corpora not present next to this checkout")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := Parse(f, src)
		if d.Diagnostics.HasErrors() {
			t.Errorf("%s: unexpected parse errors: %v", f, d.Diagnostics)
		}
		if len(d.Blocks) == 0 {
			t.Errorf("%s: no blocks", f)
		}
		checkInside(t, d)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, p := range files {
		src, _ := os.ReadFile(p)
		f.Add(src)
	}
	f.Add([]byte("| a |\n|---|\n| \\| |\n"))
	f.Add([]byte("---\n- a\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Parse("f.md", src)
		checkInside(t, d)
		if diff := cmp.Diff(dump(d), dump(Parse("f.md", src))); diff != "" {
			t.Errorf("Parse is not deterministic (-first +second):\n%s", diff)
		}
	})
}
