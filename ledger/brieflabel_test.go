package ledger

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// A Kiro (or spec-kit) criterion is named by its own id in the brief, in
// the seed list and in the dispatched row's heading; its text stays byte
// for byte.
func TestBriefNamesForeignCriterionIDs(t *testing.T) {
	t.Parallel()
	src := "### Requirement 1\n\n#### Acceptance Criteria\n\n1. WHEN a WHEN THEN the system SHALL b\n2. WHEN c THEN the system SHALL d\n"
	sp, ds := specs.ParseKiro(parse.Parse(".kiro/specs/f/requirements.md", []byte(src)), specs.Defaults{Repo: "acme/api", Base: "main", Format: specs.FormatKiro})
	if ds.HasErrors() {
		t.Fatalf("spec: %v", ds)
	}
	tests := []struct {
		target int
		want   []string
	}{
		{SeedTarget, []string{"- row 1: [1.1] WHEN a WHEN THEN the system SHALL b\n", "- row 2: [1.2] WHEN c THEN the system SHALL d\n"}},
		{2, []string{"## Acceptance criterion 2 (1.2)\n\nWHEN c THEN the system SHALL d\n"}},
	}
	for _, tt := range tests {
		l := dispatched(t, ledgerOf(t, 4, []string{"open/0", "open/0"}, seeded), tt.target)
		b, err := Brief(BriefInput{Ledger: l, Spec: sp, LedgerPath: "plans/f-ledger.md", Repo: "acme/api", Branch: "gallivant/f"})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b, w) {
				t.Errorf("target %d: the brief lacks %q:\n%s", tt.target, w, b)
			}
		}
	}
}
