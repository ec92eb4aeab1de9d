package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
)

// A spec too large to read has no entry, but the pass still reports it as a
// problem, so that reconcile's exit status is 1 as docs/cli.md says; the
// other specs go on.
func TestPassNotesATooLargeSpecAsAProblem(t *testing.T) {
	t.Parallel()
	huge := "# Huge\n\n" + strings.Repeat("x", parse.MaxSize) + "\n"
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "specs/huge.md": huge})
	rep := r.pass()
	var got []Note
	for _, n := range rep.Notes {
		if n.Problem {
			got = append(got, n)
		}
	}
	want := []Note{{Spec: "specs/huge.md", Problem: true,
		Message: "the document cannot be read (file/too-large: file is 4194313 bytes; documents are limited to 4194304 bytes); nothing in it is acted on"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problem notes (-want +got):\n%s", diff)
	}
	seeded := false
	for _, tr := range rep.Transitions {
		seeded = seeded || tr.Spec == "specs/feature.md"
	}
	if !seeded {
		t.Errorf("transitions %+v; want specs/feature.md seeded despite the huge spec", rep.Transitions)
	}
}
