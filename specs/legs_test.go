package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// S-9: a leg's design: line is prose for people; which leg owns a
// criterion comes from its scope: line only, however the design reads.
func TestLegDesignNeverAssignsOwnership_S9(t *testing.T) {
	t.Parallel()
	s := specFrom(t, "# Audit\n\n## Acceptance criteria\n1. API writes events.\n2. Console lists events.\n\n"+
		"## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1\ndesign: the api leg also owns AC 2 and the console\n"+
		"### Leg: web\nrepo: acme/web\nscope: none\ndesign: web owns AC 2\n")
	want := []Entry{{1, "api"}, {2, "home"}}
	if diff := cmp.Diff(want, s.Entries()); diff != "" {
		t.Errorf("Entries mismatch (-want +got):\n%s", diff)
	}
}
