package audit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

const seedTasksSpec = `---
engine: waves
---
# Feature Specification: Rate limit

## User Scenarios & Testing

### User Story 1 - Callers over the limit are told to wait (Priority: P1)

**Acceptance Scenarios**:

1. **Given** a token over its limit, **When** it sends a request, **Then** the response is 429
`

const seedTasksPlan = `# Tasks: Rate limit

## Phase 1: Setup

- [ ] T001 Create the ratelimit package in ratelimit/doc.go

## Phase 2: User Story 1 (Priority: P1)

- [ ] T002 [P] [US1] Count requests in ratelimit/window.go
- [ ] T003 [P] [US1] Answer 429 in ratelimit/respond.go
`

// TestSeedTasksReplay: a waves spec's `loop: seed ledger` replays with the
// plan's tasks it seeded, every one open; a seed that starts a task, or
// lists tasks for a spec delivered by rows, is refused at ## Tasks.
func TestSeedTasksReplay(t *testing.T) {
	t.Parallel()
	parseSpec := func(src string) *specs.Spec {
		t.Helper()
		sp, _, ds := specs.ParseSpecFile(specs.File{Path: "specs/001-rate-limit/spec.md", Data: []byte(src)}, specs.Defaults{Repo: "acme/api", Base: "main", Format: specs.FormatSpecKit})
		if ds.HasErrors() {
			t.Fatalf("fixture spec: %v", ds)
		}
		return sp
	}
	waves, rows := parseSpec(seedTasksSpec), parseSpec(strings.Replace(seedTasksSpec, "engine: waves", "engine: loop", 1))
	plan, ds := specs.ParseTasksFile(specs.FormatSpecKit, specs.File{Path: "specs/001-rate-limit/tasks.md", Data: []byte(seedTasksPlan)})
	if ds.HasErrors() {
		t.Fatalf("fixture plan: %v", ds)
	}
	l, c := ledger.Seed(ledger.SeedInput{Spec: waves, SpecCommit: strings.Repeat("c", 40), Bases: map[string]string{specs.HomeMember: strings.Repeat("a", 40)}, Allowance: 3, Plan: plan})
	seeded := ledger.Format(l)
	started := edit(t, seeded, "task T001 | wave 1 | open | 0 | -", "task T001 | wave 1 | pending | 1 | "+strings.Repeat("a", 40))
	const path = "plans/001-rate-limit-ledger.md"
	for _, tc := range []struct {
		name  string
		spec  *specs.Spec
		after []byte
		want  []found
	}{
		{name: "the plan's tasks, open", spec: waves, after: seeded},
		{name: "without the spec at hand", after: seeded},
		{name: "a seed that starts a task", spec: waves, after: started, want: []found{{SectionTasks, path}}},
		{name: "a seed that starts a task, without the spec", after: started, want: []found{{SectionTasks, path}}},
		{name: "tasks for a spec delivered by rows", spec: rows, after: seeded, want: []found{{SectionTasks, path}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: c.Message(), Path: path, After: tc.after, Spec: tc.spec})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "seed ledger" {
				t.Errorf("kind = %q, want seed ledger", r.Kind)
			}
		})
	}
}
