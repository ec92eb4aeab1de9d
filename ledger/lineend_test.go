package ledger

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A ledger's diagnostics name the same line and column whichever line
// ending the file uses.
func TestPositionsByLineEnding(t *testing.T) {
	b, err := os.ReadFile("testdata/roundtrip/all-cut.md")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "| 2 | cut |", "| 2 | bogus |", 1)
	type at struct {
		Rule      string
		Line, Col int
	}
	want := []at{{"ledger/row", 12, 7}}
	for _, eol := range []struct{ name, s string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}} {
		t.Run(eol.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(strings.ReplaceAll(src, "\n", eol.s))
			_, ds := Parse("l.md", in)
			var got []at
			for _, d := range ds {
				got = append(got, at{d.Rule, d.Line, d.Col})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			checkInside(t, in, ds)
		})
	}
}
