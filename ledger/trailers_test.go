package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ParseTrailers reads back what Message writes, repeated keys kept in
// order (one Proof a replayed row), and nothing from the prose.
func TestParseTrailersInvertsMessage(t *testing.T) {
	t.Parallel()
	c := Commit{Subject: "loop: verify", Sentence: "Gallivant-Head in prose: not a trailer.", Text: "- a line\r",
		Trailers: []Trailer{{TrailerHead, "abc"}, {TrailerProof, "row 1 | x"}, {TrailerProof, "row 2 | y"}}}
	got := ParseTrailers(c.Message(Trailer{TrailerSpec, "specs/a.md"}))
	want := []Trailer{{TrailerSpec, "specs/a.md"}, {TrailerHead, "abc"}, {TrailerProof, "row 1 | x"}, {TrailerProof, "row 2 | y"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if v := TrailerValue(got, TrailerProof); v != "row 1 | x" {
		t.Errorf("TrailerValue = %q, want the first", v)
	}
	if v := TrailerValue(got, TrailerPR); v != "" {
		t.Errorf("TrailerValue of an absent key = %q", v)
	}
}
