package ledger

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "update golden files")

// ledgerCmp compares ledger models, ignoring where a parsed ledger's parts were.
var ledgerCmp = []cmp.Option{cmp.AllowUnexported(Delivery{}), cmpopts.IgnoreUnexported(Ledger{}), cmpopts.EquateEmpty()}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func mustParse(t testing.TB, path string) *Ledger {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, ds := Parse(filepath.Base(path), src)
	if Fatal(ds) {
		t.Fatalf("%s: %v", path, ds)
	}
	return l
}

// Format(Parse(x)) == x for every canonical ledger, and the model is stable.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/roundtrip/*.md")
	if len(files) < 10 {
		t.Fatalf("want at least ten round-trip ledgers, have %d", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			l, ds := Parse(filepath.Base(f), src)
			if len(ds) != 0 {
				t.Fatalf("diagnostics on a canonical ledger:\n%v", ds)
			}
			if got := Format(l); !bytes.Equal(got, src) {
				t.Errorf("Format(Parse(x)) mismatch (-want +got):\n%s", cmp.Diff(string(src), string(got)))
			}
			// CRLF copies parse to the same model.
			crlf, _ := Parse("x", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
			if diff := cmp.Diff(l, crlf, ledgerCmp...); diff != "" {
				t.Errorf("CRLF model mismatch with the LF one (-want +got):\n%s", diff)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			_ = enc.Encode(dumpModel(l))
			golden(t, strings.TrimSuffix(f, ".md")+".json", b.Bytes())
		})
	}
}

// dumpModel exposes the delivery values for golden files.
func dumpModel(l *Ledger) any {
	type view struct {
		*Ledger
		Delivery      struct{} // its lines are DeliveryLines
		DeliveryLines []string
	}
	v := view{Ledger: l}
	if l.Delivery != nil {
		v.DeliveryLines = l.Delivery.Lines()
	}
	return v
}

// gallivant fmt: a non-canonical ledger formats to canonical bytes without
// changing its meaning, and formatting is idempotent.
func TestFormatNonCanonical(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/fmt/*.in.md")
	if len(files) == 0 {
		t.Fatal("no fmt testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			l, ds := Parse(filepath.Base(f), src)
			if Fatal(ds) {
				t.Fatalf("diagnostics: %v", ds)
			}
			out := Format(l)
			golden(t, strings.TrimSuffix(f, ".in.md")+".out.md", out)
			l2, ds2 := Parse("again", out)
			if Fatal(ds2) {
				t.Fatalf("formatted output does not parse: %v", ds2)
			}
			if again := Format(l2); !bytes.Equal(again, out) {
				t.Errorf("formatting is not idempotent (-want +got):\n%s", cmp.Diff(string(out), string(again)))
			}
			if diff := cmp.Diff(l, l2, ledgerCmp...); diff != "" {
				t.Errorf("formatting changed the meaning (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/invalid/*.md")
	if len(files) == 0 {
		t.Fatal("no invalid testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			_, ds := Parse(filepath.Base(f), src)
			if !ds.HasErrors() {
				t.Fatalf("no error reported")
			}
			checkInside(t, src, ds)
			ds.Sort()
			var b bytes.Buffer
			_ = ds.WriteText(&b)
			golden(t, strings.TrimSuffix(f, ".md")+".golden", b.Bytes())
		})
	}
}

func checkInside(t *testing.T, src []byte, ds parse.Diagnostics) {
	t.Helper()
	doc := parse.Parse("x", src)
	for _, d := range ds {
		if d.Line < 1 || d.Line > doc.NumLines() {
			t.Fatalf("%s: line outside 1..%d", d, doc.NumLines())
		}
		if n := utf8.RuneCountInString(doc.Line(d.Line)); d.Col < 1 || d.Col > n+1 {
			t.Fatalf("%s: column outside 1..%d of %q", d, n+1, doc.Line(d.Line))
		}
	}
}

func TestParseDecision(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 201)
	tests := []struct {
		line string
		want Decision
		bad  bool
	}{
		{line: "row 2 done | limits read | row 1 next", want: Decision{Kind: DecisionResult, Row: 2, Status: Done, Slot1: "limits read", Slot2: "row 1 next"}},
		{line: "row 1 failed | x | needs a staging token", want: Decision{Kind: DecisionResult, Row: 1, Status: Failed, Slot1: "x", Slot2: "needs a staging token"}},
		{line: "row 0 done | seeded 3 rows, closed 1 on baseline | row 2", want: Decision{Kind: DecisionSeed, Status: Done, Slot1: "seeded 3 rows, closed 1 on baseline", Slot2: "row 2", Seeded: 3, Closed: 1}},
		{line: "row 1 retry | use v2 | allowed attempts 5", want: Decision{Kind: DecisionRetry, Row: 1, Slot1: "use v2", Slot2: "allowed attempts 5", Allowed: 5}},
		{line: "row 4 escalated | implModel round | allowed attempts 4", want: Decision{Kind: DecisionEscalated, Row: 4, Slot1: "implModel round", Slot2: "allowed attempts 4", Allowed: 4}},
		{line: "row 2 reopened | review: P1 - missing closure line | stale cache", want: Decision{Kind: DecisionReopened, Row: 2, Slot1: "review: P1 - missing closure line", Slot2: "stale cache"}},
		{line: "rows +50 |", want: Decision{Kind: DecisionGrant, Grant: 50}},
		{line: "rows +2 | more room", want: Decision{Kind: DecisionGrant, Grant: 2, Words: "more room"}},
		{line: "cap +4 | legacy", want: Decision{Kind: DecisionCapGrant, Grant: 4, Words: "legacy"}},
		{line: "task T002 failed | attempt 1 | the return changes go.mod | and more", want: Decision{Kind: DecisionTaskFailed, Status: Failed, Task: "T002", Attempt: 1, Slot1: "attempt 1", Slot2: "the return changes go.mod | and more"}},
		{line: "task 2.1 failed | attempt 12 | x", want: Decision{Kind: DecisionTaskFailed, Status: Failed, Task: "2.1", Attempt: 12, Slot1: "attempt 12", Slot2: "x"}},
		{line: "task T002 done | attempt 1 | x", bad: true},
		{line: "task T002 failed | attempt 0 | x", bad: true},
		{line: "task T002 failed | attempt 1 |  x", bad: true},
		{line: "task T002 failed | attempt 1 | " + long, bad: true},
		{line: "task T002 failed | x", bad: true},
		{line: "task .T failed | attempt 1 | x", bad: true},
		{line: "task T002 failed", bad: true},
		{line: "row 1 done | " + long + " | x", bad: true},
		{line: "row 1 done | x | " + long, bad: true},
		{line: "row 1 done |  | x", bad: true},
		{line: "row 1 done | x", bad: true},
		{line: "row 0 failed | seeded 1 rows, closed 0 on baseline | x", bad: true},
		{line: "row 0 done | seeded 1 rows, closed 2 on baseline | x", bad: true},
		{line: "row 0 done | did the seed | x", bad: true},
		{line: "row 1 escalated | bigger model | allowed attempts 4", bad: true},
		{line: "row 1 retry | x | allowed attempts", bad: true},
		{line: "rows +0 | x", bad: true},
		{line: "rows +5x", bad: true},
		{line: "- row 1 done | a | b", bad: true},
		{line: "row 01 done | a | b", bad: true},
		{line: "row 1 done | a\x07 | b", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := ParseDecision(tt.line)
			if tt.bad {
				if err == nil {
					t.Errorf("ParseDecision(%q) accepted a malformed decision", tt.line)
				}
				return
			}
			if err != nil {
				t.Errorf("ParseDecision(%q): %v", tt.line, err)
				return
			}
			tt.want.Line = tt.line
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDecision(%q) mismatch (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want Request
		bad  bool
	}{
		{line: "retry 1 | the value is in seconds", want: Request{Kind: RequestRetry, Row: 1, Text: "the value is in seconds"}},
		{line: "- retry 12 | hint", want: Request{Kind: RequestRetry, Row: 12, Text: "hint"}},
		{line: "rows +3", want: Request{Kind: RequestRows, N: 3}},
		{line: "rows +3 | more room", want: Request{Kind: RequestRows, N: 3, Text: "more room"}},
		{line: "rows +3|tight", want: Request{Kind: RequestRows, N: 3, Text: "tight"}},
		{line: "rows +50 because", want: Request{Kind: RequestRows, N: 50, Text: "because"}},
		{line: "resume | branch is fine as it is", want: Request{Kind: RequestResume, Text: "branch is fine as it is"}},
		{line: "resnapshot | accept the new AC 4", want: Request{Kind: RequestResnapshot, Text: "accept the new AC 4"}},
		{line: "recheck", want: Request{Kind: RequestRecheck}},
		{line: "recheck | token fixed", want: Request{Kind: RequestRecheck, Text: "token fixed"}},
		// P-16 / L-78: malformed grants.
		{line: "rows +0", bad: true},
		{line: "rows +x", bad: true},
		{line: "rows -1", bad: true},
		{line: "rows +50x", bad: true},
		{line: "cap +5", bad: true},
		{line: "retry 0 | x", bad: true},
		{line: "retry 1", bad: true},
		{line: "retry one | x", bad: true},
		{line: "resume", bad: true},
		{line: "resume now", bad: true},
		{line: "please retry row 1", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := ParseRequest(tt.line)
			if tt.bad {
				if err == nil {
					t.Errorf("ParseRequest(%q) accepted a malformed request: %+v", tt.line, got)
				}
				return
			}
			if err != nil {
				t.Errorf("ParseRequest(%q): %v", tt.line, err)
				return
			}
			tt.want.Line = tt.line
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRequest(%q) mismatch (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func seed(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		src, _ := os.ReadFile(p)
		f.Add(src)
	}
}

// The parser never panics, keeps positions inside the input, and whatever it
// accepts formats to a fixed point: Format(Parse(Format(Parse(x)))) is stable.
func FuzzParseLedger(f *testing.F) {
	seed(f, "testdata/roundtrip/*.md")
	seed(f, "testdata/fmt/*.in.md")
	seed(f, "testdata/invalid/*.md")
	f.Fuzz(func(t *testing.T, src []byte) {
		l, ds := Parse("f.md", src)
		checkInside(t, src, ds)
		if Fatal(ds) {
			return
		}
		once := Format(l)
		l2, ds2 := Parse("f.md", once)
		if Fatal(ds2) {
			t.Fatalf("formatted ledger does not parse: %v\n%s", ds2, once)
		}
		if twice := Format(l2); !bytes.Equal(once, twice) {
			t.Fatalf("format is not stable (-want +got):\n%s", cmp.Diff(string(once), string(twice)))
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"retry 1 | x", "rows +3 | y", "rows +50x", "resume | z", "recheck", "- resnapshot | w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseRequest(line)
		if err != nil {
			return
		}
		if r.Kind == 0 || (r.Kind == RequestRetry && r.Row < 1) || (r.Kind == RequestRows && r.N < 1) {
			t.Fatalf("accepted %q as %+v", line, r)
		}
		if strings.ContainsAny(r.Text, "\n\r") {
			t.Fatalf("request text holds a newline: %q", r.Text)
		}
	})
}

func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{"row 1 done | a | b", "row 0 done | seeded 1 rows, closed 0 on baseline | row 1", "rows +1 |", "row 2 retry | h | allowed attempts 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d, err := ParseDecision(line)
		if err != nil {
			return
		}
		again, err := ParseDecision(d.Line)
		if err != nil {
			t.Fatalf("decision %q formats as %q, which does not parse: %v", line, d.Line, err)
		}
		if diff := cmp.Diff(d, again); diff != "" {
			t.Fatalf("decision %q does not re-parse to itself (-want +got):\n%s", line, diff)
		}
	})
}
