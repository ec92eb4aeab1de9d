package ledger

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/specs"
)

// TestSeedWithPlan: a waves spec's seed lists its plan's tasks, every one
// open in its wave, and says so in its sentence; a spec without a plan
// seeds no `## Tasks` section, and its seed reads as before.
func TestSeedWithPlan(t *testing.T) {
	t.Parallel()
	sp, _, ds := specs.ParseSpecFile(specs.File{Path: "specs/001-rate-limit/spec.md", Data: []byte(`---
engine: waves
---
# Feature Specification: Rate limit

## User Scenarios & Testing

### User Story 1 - Callers over the limit are told to wait (Priority: P1)

**Acceptance Scenarios**:

1. **Given** a token over its limit, **When** it sends a request, **Then** the response is 429
2. **Given** a 429 response, **When** the client reads it, **Then** Retry-After is set
`)}, specs.Defaults{Repo: "acme/api", Base: "main", Format: specs.FormatSpecKit})
	if ds.HasErrors() {
		t.Fatalf("fixture spec: %v", ds)
	}
	plan, ds := specs.ParseTasksFile(specs.FormatSpecKit, specs.File{Path: "specs/001-rate-limit/tasks.md", Data: []byte(`# Tasks: Rate limit

## Phase 1: Setup

- [ ] T001 Create the ratelimit package in ratelimit/doc.go

## Phase 2: User Story 1 (Priority: P1)

- [ ] T002 [P] [US1] Count requests in ratelimit/window.go
- [ ] T003 [P] [US1] Answer 429 in ratelimit/respond.go
`)})
	if ds.HasErrors() {
		t.Fatalf("fixture plan: %v", ds)
	}
	bases := map[string]string{specs.HomeMember: strings.Repeat("a", 40)}
	for _, tc := range []struct {
		name      string
		plan      *specs.Plan
		want      []Task
		sentence  string
		formatted string
	}{
		{name: "with its plan", plan: plan,
			want:      tasks("task T001 | wave 1 | open | 0 | -", "task T002 | wave 2 | open | 0 | -", "task T003 | wave 2 | open | 0 | -"),
			sentence:  "Seeded 2 rows (0 cut) and 3 tasks in 2 waves of specs/001-rate-limit/tasks.md from contract ",
			formatted: "\n## Tasks\ntask T001 | wave 1 | open | 0 | -\ntask T002 | wave 2 | open | 0 | -\ntask T003 | wave 2 | open | 0 | -\n"},
		{name: "without a plan", sentence: "Seeded 2 rows (0 cut) from contract "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, c := Seed(SeedInput{Spec: sp, SpecCommit: strings.Repeat("c", 40), Bases: bases, Allowance: 3, Plan: tc.plan})
			if diff := cmp.Diff(tc.want, l.Tasks); diff != "" {
				t.Errorf("seeded tasks (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(c.Sentence, tc.sentence) {
				t.Errorf("sentence = %q, want it to start %q", c.Sentence, tc.sentence)
			}
			out := string(Format(l))
			if tc.formatted == "" {
				if strings.Contains(out, "## Tasks") {
					t.Errorf("a seed without a plan wrote a ## Tasks section:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, tc.formatted) {
				t.Errorf("the seeded ledger lacks %q:\n%s", tc.formatted, out)
			}
			// The seeded section is what check holds it to, and reads back.
			back, ds := Parse("plans/001-rate-limit-ledger.md", []byte(out))
			if ds.HasErrors() {
				t.Fatalf("the seeded ledger does not parse: %v", ds)
			}
			if got := ValidateTasks("plans/001-rate-limit-ledger.md", back, tc.plan); len(got) != 0 {
				t.Errorf("ValidateTasks of the seed: %v", got)
			}
		})
	}
}
