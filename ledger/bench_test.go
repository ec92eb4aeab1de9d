package ledger

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// bigLedger returns a 500-row ledger with 2,000 decisions and its spec.
func bigLedger(tb testing.TB) ([]byte, *specs.Spec) {
	var sb strings.Builder
	sb.WriteString("# Big\n\n## Acceptance criteria\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&sb, "- Criterion %d: endpoint %d answers within budget.\n", i, i)
	}
	sp := specOf(tb, sb.String())
	l, _ := Seed(SeedInput{Spec: sp, SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	l.Decisions = append(l.Decisions, NewSeedDecision(500, 0, "row 1"))
	for i := 0; i < 1999; i++ {
		n := i%500 + 1
		st := Failed
		if i >= 1500 {
			st = Done
		}
		l.Decisions = append(l.Decisions, NewResultDecision(n, st, fmt.Sprintf("attempt %d on endpoint %d: the handler answered in %d ms", i, n, 100+i%50), "tighten the cache and run the selective benchmark again"))
	}
	for i := range l.Rows {
		l.Rows[i] = Row{N: i + 1, Status: Done, Attempts: 4, Evidence: fmt.Sprintf("go test ./endpoint%d -run TestBudget; ok 0.%02ds; p99 %d ms", i+1, i%100, 50+i%40)}
	}
	l.Iterations = 2000
	return Format(l), sp
}

func benchLedger(b *testing.B, src []byte, sp *specs.Spec) {
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		l, ds := Parse("plans/big-ledger.md", src)
		if Fatal(ds) {
			b.Fatal(ds)
		}
		if ds := Validate("plans/big-ledger.md", l, sp); ds.HasErrors() {
			b.Fatal(ds)
		}
		_ = Format(l)
	}
}

func benchGoldmark(b *testing.B, src []byte) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.TaskList))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		_ = md.Parser().Parse(text.NewReader(src))
	}
}

// BenchmarkLedger500x2000 parses, validates and formats a 500-row ledger
// with 2,000 decisions, next to bare goldmark parsing of the same bytes; the
// ratio sub-benchmark reports ledger cost over goldmark cost.
//
// The ratio is the whole ledger layer on these bytes (Parse, which runs its
// own goldmark pass, then Validate and Format) over what a plain goldmark
// user pays to parse them (GFM tables and task lists; goldmark always runs
// its inline pass). Both are timed in the same iteration, so load on a
// shared machine hits them alike. Issue 15's goal is at most 2. Median of
// 8 alternating runs of -benchtime=100x on the shared 2-core machine
// (load 9-11): 2.20 before, 1.07 after Parse stopped paying for goldmark's
// inline pass (parse.ParseOutline) and regexps on the row and decision
// paths.
func BenchmarkLedger500x2000(b *testing.B) {
	src, sp := bigLedger(b)
	b.Run("ledger", func(b *testing.B) { benchLedger(b, src, sp) })
	b.Run("goldmark", func(b *testing.B) { benchGoldmark(b, src) })
	b.Run("ratio", func(b *testing.B) {
		md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.TaskList))
		var tl, tg time.Duration
		for b.Loop() {
			t0 := time.Now()
			l, _ := Parse("plans/big-ledger.md", src)
			_ = Validate("plans/big-ledger.md", l, sp)
			_ = Format(l)
			t1 := time.Now()
			_ = md.Parser().Parse(text.NewReader(src))
			tl += t1.Sub(t0)
			tg += time.Since(t1)
		}
		b.ReportMetric(float64(tl)/float64(tg), "ledger/goldmark")
	})
}

func BenchmarkParseDocument(b *testing.B) {
	src, _ := bigLedger(b)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		_ = parse.Parse("x", src)
	}
}

func BenchmarkStages(b *testing.B) {
	src, sp := bigLedger(b)
	b.Run("ParseOutline", func(b *testing.B) {
		for b.Loop() {
			_ = parse.ParseOutline("x", src)
		}
	})
	b.Run("ParseBlocks", func(b *testing.B) {
		for b.Loop() {
			_ = parse.ParseBlocks("x", src)
		}
	})
	b.Run("ledger.Parse", func(b *testing.B) {
		for b.Loop() {
			_, _ = Parse("x", src)
		}
	})
	l, _ := Parse("x", src)
	b.Run("Validate", func(b *testing.B) {
		for b.Loop() {
			_ = Validate("x", l, sp)
		}
	})
	b.Run("Format", func(b *testing.B) {
		for b.Loop() {
			_ = Format(l)
		}
	})
}
