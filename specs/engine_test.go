package specs

import (
	"testing"

	"github.com/gallivant/gallivant/parse"

	"github.com/google/go-cmp/cmp"
)

// TestFrontmatterEngine: a spec-kit or Kiro spec opts into wave execution
// with `engine: waves` in gallivant's frontmatter; a gallivant spec keeps
// its **Engine:** line, and a value that is no engine is positioned.
func TestFrontmatterEngine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		src    string
		format Format
		engine string
		want   []string
	}{
		{name: "spec-kit opts into waves", src: skSpecWith("engine: waves\n"), format: FormatSpecKit, engine: EngineWaves},
		{name: "spec-kit says loop", src: skSpecWith("engine: loop\n"), format: FormatSpecKit, engine: EngineLoop},
		{name: "spec-kit default", src: skSpecWith(""), format: FormatSpecKit, engine: EngineLoop},
		{name: "kiro opts into waves", src: "---\nengine: waves\n---\n# Requirements Document\n\n## Requirements\n\n### Requirement 1\n\n**User Story:** As a clerk, I want a file, so that I can file it\n\n#### Acceptance Criteria\n\n1. WHEN the clerk exports THEN the system SHALL write a file\n",
			format: FormatKiro, engine: EngineWaves},
		{name: "not an engine", src: skSpecWith("engine: turbo\n"), format: FormatSpecKit, engine: EngineLoop,
			want: []string{"2:9 spec/engine engine must be loop or waves, got \"turbo\""}},
		{name: "gallivant spec keeps its line", src: "---\nengine: waves\n---\n# A\n\n## Acceptance criteria\n1. It works.\n", engine: EngineLoop,
			want: []string{"2:9 spec/engine a gallivant spec names its engine in its **Engine:** line, not in the frontmatter; for example **Engine:** waves"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp, _, ds := ParseSpecFile(File{Path: "specs/001-x/spec.md", Data: []byte(tc.src)}, Defaults{Repo: "acme/api", Base: "main", Format: tc.format})
			var got []string
			for _, d := range ds {
				if d.Severity == parse.SeverityError {
					got = append(got, d.Pos().String()+" "+d.Rule+" "+d.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if sp.Engine != tc.engine {
				t.Errorf("engine = %q, want %q", sp.Engine, tc.engine)
			}
		})
	}
}

func skSpecWith(front string) string {
	if front != "" {
		front = "---\n" + front + "---\n"
	}
	return front + "# Feature Specification: X\n\n## User Scenarios & Testing\n\n### User Story 1 - It works (Priority: P1)\n\n**Acceptance Scenarios**:\n\n1. **Given** a thing, **When** it runs, **Then** it works\n"
}
