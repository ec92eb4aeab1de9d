package specs

import (
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
)

// The grammar requires `## Acceptance criteria`; a level-3 heading right
// under the title is refused where it stands, with one diagnostic, not read
// as if it were right and not reported as a missing section.
func TestACHeadingMustBeLevel2(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want parse.Diagnostics
		acs  int
	}{
		{
			name: "level 3",
			src:  "# Feature\n\n### Acceptance Criteria\n1. Works.\n",
			want: parse.Diagnostics{{File: "specs/f.md", Line: 3, Col: 5, Severity: parse.SeverityError, Rule: RuleSpecACs,
				Message: "\"### Acceptance Criteria\" is a level-3 heading; the acceptance criteria go under a level-2 heading, `## Acceptance criteria`"}},
		},
		{
			name: "level 4",
			src:  "# Feature\n\n#### acceptance criteria\n1. Works.\n",
			want: parse.Diagnostics{{File: "specs/f.md", Line: 3, Col: 6, Severity: parse.SeverityError, Rule: RuleSpecACs,
				Message: "\"#### acceptance criteria\" is a level-4 heading; the acceptance criteria go under a level-2 heading, `## Acceptance criteria`"}},
		},
		{
			name: "level 2, any case",
			src:  "# Feature\n\n## Acceptance Criteria\n1. Works.\n",
			acs:  1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds := ParseSpec(parse.Parse("specs/f.md", []byte(tc.src)), Defaults{Repo: "acme/api", Base: "main"})
			var got parse.Diagnostics
			for _, d := range ds {
				if d.Severity == parse.SeverityError {
					got = append(got, d)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if s != nil && len(s.ACs) != tc.acs {
				t.Errorf("read %d ACs, want %d", len(s.ACs), tc.acs)
			}
		})
	}
}
