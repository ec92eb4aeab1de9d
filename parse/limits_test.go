package parse

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pathological are inputs under MaxSize that once made goldmark quadratic
// or allocate hundreds of times their size (issue 33).
var pathological = []struct {
	name string
	src  func() string
	want Diagnostic
}{
	{"emphasis delimiters on one line", func() string { return "# T\n\n" + strings.Repeat("*a_", 128<<10/3) + "\n" },
		Diagnostic{File: "x.md", Line: 3, Col: 6145, Severity: SeverityError, Rule: RuleMarkupLimit, Message: blockMarkupMsg}},
	{"emphasis spread over paragraphs", func() string { return strings.Repeat(strings.Repeat("*a_ ", 500)+"\n\n", 80) },
		Diagnostic{File: "x.md", Line: 131, Col: 1073, Severity: SeverityError, Rule: RuleMarkupLimit, Message: markupMsg}},
	{"unclosed links", func() string { return strings.Repeat("[a](", 256<<10/4) },
		Diagnostic{File: "x.md", Line: 1, Col: 5463, Severity: SeverityError, Rule: RuleMarkupLimit, Message: blockMarkupMsg}},
	{"4 MiB of [", func() string { return strings.Repeat("[", MaxSize) },
		Diagnostic{File: "x.md", Line: 1, Col: 4097, Severity: SeverityError, Rule: RuleMarkupLimit, Message: blockMarkupMsg}},
	{"100k-column table", func() string {
		return "|" + strings.Repeat("a|", 100_000) + "\n|" + strings.Repeat("-|", 100_000) + "\n" + strings.Repeat("|b|\n", 100)
	}, Diagnostic{File: "x.md", Line: 2, Col: 1, Severity: SeverityError, Rule: RuleTableLimit, Message: tableMsg}},
	{"narrow table padded by many short rows", func() string {
		return "|" + strings.Repeat("a|", 200) + "\n|" + strings.Repeat("-|", 200) + "\n" + strings.Repeat("|b|\n", 1000)
	}, Diagnostic{File: "x.md", Line: 656, Col: 1, Severity: SeverityError, Rule: RuleTableLimit, Message: tableMsg}},
}

// Each pathological input is refused with a diagnostic at the character
// that went past the limit, by every entry point, in bounded memory.
func TestPathologicalInputs(t *testing.T) {
	for _, tt := range pathological {
		src := []byte(tt.src())
		if len(src) > MaxSize {
			t.Fatalf("%s: %d bytes, over MaxSize", tt.name, len(src))
		}
		parsers := []struct {
			name  string
			parse func(string, []byte) *Document
		}{{"Parse", Parse}, {"ParseBlocks", ParseBlocks}, {"ParseOutline", ParseOutline}}
		for _, p := range parsers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				d := p.parse("x.md", src)
				runtime.ReadMemStats(&after)
				want := Diagnostics{tt.want}
				if tt.want.Rule == RuleMarkupLimit && p.name != "Parse" {
					// The line grammars run no inline parser, and
					// markup costs them nothing.
					want = nil
				}
				if diff := cmp.Diff(want, d.Diagnostics); diff != "" {
					t.Errorf("diagnostics (-want +got):\n%s", diff)
				}
				// The document keeps its text and line index; goldmark
				// never sees a refused one. 4 bytes per input byte
				// covers the copy, the index and the line grammars'
				// linear block pass.
				if got, limit := after.TotalAlloc-before.TotalAlloc, 4*uint64(len(src))+1<<20; got > limit {
					t.Errorf("allocated %d bytes for %d input bytes; want at most %d", got, len(src), limit)
				}
			})
		}
	}
}

// Documents at the limits still parse: the limits refuse only what no
// hand-written document holds.
func TestLimitsAdmitLargeOrdinaryDocuments(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Ledger\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n")
	for i := 0; i < 20_000; i++ {
		b.WriteString("| 1 | open | 0 | `go test ./x` |\n")
	}
	b.WriteString("\nSome *emphasis* and a [link](https://example.com) and `code`.\n")
	for i := 0; i < 200; i++ {
		b.WriteString("\n- [ ] item with `snake_case` and **bold** text\n")
	}
	d := Parse("x.md", []byte(b.String()))
	if d.Diagnostics.HasErrors() {
		t.Fatalf("an ordinary large document was refused: %v", d.Diagnostics)
	}
	if len(d.Blocks) < 3 {
		t.Fatalf("got %d blocks; want the heading, table, paragraph and list", len(d.Blocks))
	}
}

// BenchmarkPathological reports the bytes allocated per input byte for each
// refused input; a refusal costs the copy and the line index only.
func BenchmarkPathological(b *testing.B) {
	for _, tt := range pathological {
		src := []byte(tt.src())
		b.Run(strings.ReplaceAll(tt.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < b.N; i++ {
				Parse("x.md", src)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(src)), "B/input-byte")
		})
	}
}

// The worst documents the limits admit (paragraphs just under
// MaxBlockMarkup, up to MaxMarkup in all) parse in memory a small multiple
// of MaxSize: `[` is goldmark's most expensive character, emphasis its
// slowest (measured: 27 MB and 18 MB, 0.05 s and 0.3 s).
func TestWorstAdmittedDocuments(t *testing.T) {
	for _, unit := range []string{"[", "*a_"} {
		t.Run(unit, func(t *testing.T) {
			perUnit := strings.Count(unit, "[") + strings.Count(unit, "*") + strings.Count(unit, "_")
			para := strings.Repeat(unit, (MaxBlockMarkup-1)/perUnit) + "\n\n"
			src := []byte(strings.Repeat(para, MaxMarkup/((MaxBlockMarkup-1)/perUnit*perUnit)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d := Parse("x.md", src)
			runtime.ReadMemStats(&after)
			if len(d.Diagnostics) != 0 {
				t.Fatalf("refused: %v", d.Diagnostics)
			}
			if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(12*MaxSize); got > limit {
				t.Errorf("allocated %d bytes for %d input bytes; want at most %d", got, len(src), limit)
			}
		})
	}
}
