package reconcile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

const ledgerPath = "plans/feature-ledger.md"

// delivered is what follows the last row when nothing holds the pull
// request: no checks count as green and no reviewer is configured.
var delivered = []string{"loop: verify", "loop: open pr acme/api#1", "loop: ready acme/api#1", "loop: announced ready acme/api#1"}

func andDelivered(s ...string) []string { return append(s, delivered...) }

func TestRowLoopHappyPath(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(3, "   - deferred: next quarter\n")})
	rep := r.pass()
	want := andDelivered(
		"loop: seed ledger",
		"loop: dispatch seed", "loop: record home seed",
		"loop: dispatch row 1", "loop: record home row 1",
		"loop: dispatch row 2", "loop: record home row 2",
	)
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s\nnotes %+v", diff, rep.Notes)
	}
	l := r.ledger(ledgerPath)
	got := []string{}
	for _, row := range l.Rows {
		got = append(got, string(row.Status))
	}
	if diff := cmp.Diff([]string{"done", "done", "cut"}, got); diff != "" {
		t.Errorf("row statuses (-want +got):\n%s", diff)
	}
	if l.Iterations != 3 || l.Pending != nil {
		t.Errorf("iterations %d pending %v", l.Iterations, l.Pending)
	}
	// The audit trail is on the control branch, with trailers.
	if got := r.subjects(); !slices.Equal(got[1:], want) {
		t.Errorf("control history: %v", got)
	}
	msg := run(t, r.control, "git", "log", "-1", "--format=%B", "--grep=^loop: record home row 2$", "main")
	if !strings.Contains(msg, "Gallivant-Spec: specs/feature.md") || !strings.Contains(msg, "Gallivant-Control: ") || !strings.Contains(msg, "Gallivant-Head: ") {
		t.Errorf("trailers missing:\n%s", msg)
	}
	run(t, r.control, "git", "fsck", "--strict", "--no-progress")
	// The agent's commits are on the work branch.
	work := r.gh.RepoDir("acme/api")
	if n := run(t, work, "git", "rev-list", "--count", "main..gallivant/feature"); n != "3" {
		t.Errorf("work branch has %s commits, want 3 (seed, row 1, row 2)", n)
	}
	// A pass with no external change writes nothing anywhere.
	r.gh.ResetLog()
	head := run(t, r.control, "git", "rev-parse", "main")
	rep = r.pass()
	if len(rep.Transitions) != 0 || run(t, r.control, "git", "rev-parse", "main") != head {
		t.Errorf("an idle pass committed: %v", subjectsOf(rep))
	}
	for _, req := range r.gh.Requests() {
		if req.Method != "GET" {
			t.Errorf("an idle pass wrote to GitHub: %s %s", req.Method, req.Path)
		}
	}
}

func TestRowLoopEscalation(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	// Row 1 fails on the worker; the escalated attempt on big-model passes.
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && model == "" {
			return Fail
		}
		return Done
	}
	rep := r.pass()
	want := andDelivered("loop: seed ledger", "loop: dispatch seed", "loop: record home seed",
		"loop: dispatch row 1", "loop: record home row 1", "loop: escalate row 1", "loop: dispatch row 1", "loop: record home row 1")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if got := r.runs[len(r.runs)-1].Model; got != "big-model" {
		t.Errorf("the escalated attempt ran with model %q", got)
	}
	if got := r.runs[len(r.runs)-2].Model; got != "" {
		t.Errorf("a plain attempt ran with model %q, want none", got)
	}
	if row := r.ledger(ledgerPath).Rows[0]; row.Status != ledger.Done || row.Attempts != 2 {
		t.Errorf("row 1: %+v", row)
	}
}

func TestRowLoopAllowanceStopThenRetryRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": strings.Replace(rigConfig, "  allowance: 2\n", "  allowance: 2\n  escalate_after: 9\n", 1)})
	hinted := false
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && !hinted {
			return Fail
		}
		return Done
	}
	rep := r.pass()
	if got := subjectsOf(rep); got[len(got)-1] != "loop: stop allowance" {
		t.Fatalf("want an allowance stop, got %v", got)
	}
	msg := run(t, r.control, "git", "log", "-1", "--format=%B", "main")
	for _, want := range []string{"Stopped on row 1 (allowance)", "row 1: 2 of 2", "Preserve every row's attempts.", "Recommendation: retry 1 | <hint>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stop body lacks %q:\n%s", want, msg)
		}
	}
	// Stopped: a pass does nothing until a person answers.
	if rep := r.pass(); len(rep.Transitions) != 0 {
		t.Errorf("a stopped entry moved: %v", subjectsOf(rep))
	}
	r.request(ledgerPath, "retry 1 | the value is seconds, not a date")
	hinted = true
	rep = r.pass()
	want := andDelivered("loop: retry row 1", "loop: dispatch row 1", "loop: record home row 1")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("after retry (-want +got):\n%s", diff)
	}
	l := r.ledger(ledgerPath)
	if len(l.Requests) != 0 || l.Rows[0].Status != ledger.Done || l.Rows[0].Attempts != 3 {
		t.Errorf("after retry: requests %v row %+v", l.Requests, l.Rows[0])
	}
	if got := r.runs[len(r.runs)-1].Brief; !strings.Contains(got, "hint: the value is seconds, not a date") {
		t.Errorf("the hint did not reach the agent:\n%s", got)
	}
}

func TestRowLoopMissesRepairAndStop(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": strings.Replace(rigConfig, "allowance: 2", "allowance: 5\n  escalate_after: 9", 1)})
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" {
			return Malformed
		}
		return Done
	}
	rep := r.pass()
	want := []string{"loop: seed ledger", "loop: dispatch seed", "loop: record home seed",
		"loop: dispatch row 1", "loop: repair row 1", "loop: dispatch row 1", "loop: repair row 1", "loop: stop misses"}
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	row := r.ledger(ledgerPath).Rows[0]
	if row.Status != ledger.Failed || row.Attempts != 2 || !strings.HasPrefix(row.Evidence, "iteration 2: subject 'Implement row 1'") {
		t.Errorf("repaired row: %+v", row)
	}
}

func TestRowLoopBoundaryAndResume(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	behave := TwoCommits
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" {
			return behave
		}
		return Done
	}
	rep := r.pass()
	if got := subjectsOf(rep); got[len(got)-1] != "loop: stop boundary" {
		t.Fatalf("want a boundary stop, got %v", got)
	}
	l := r.ledger(ledgerPath)
	if l.Pending == nil || l.Rows[0].Attempts != 0 {
		t.Errorf("a boundary keeps the tuple and the attempts: %+v %v", l.Rows[0], l.Pending)
	}
	if msg := run(t, r.control, "git", "log", "-1", "--format=%B", "main"); !strings.Contains(msg, "Stopped: iteration 1 added 2 commits") {
		t.Errorf("boundary commit message %q, want it to contain %q", msg, "Stopped: iteration 1 added 2 commits")
	}
	behave = Done
	r.request(ledgerPath, "resume | both commits are fine")
	rep = r.pass()
	want := andDelivered("loop: resume", "loop: dispatch row 1", "loop: record home row 1")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("after resume (-want +got):\n%s", diff)
	}
	// Both earlier commits stay on the work branch.
	if n := run(t, r.gh.RepoDir("acme/api"), "git", "rev-list", "--count", "main..gallivant/feature"); n != "4" {
		t.Errorf("work branch has %s commits, want 4 (seed, two kept, the return)", n)
	}
}

func TestRowLoopDirtyInterruptedNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		behave Behavior
		stop   string
		detail string // the start of the stop's detail, when it matters
	}{
		// A dirty tree names what was dirty (issue 27).
		{Dirty, "loop: stop boundary", "iteration 1 left the tree dirty: uncommitted ?? rows/; log "},
		{NoCommit, "loop: stop interrupted", ""},
		{Needs, "loop: stop needs", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.behave), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
			r.script = func(target string, n int, model string) Behavior {
				if target == "1" {
					return tt.behave
				}
				return Done
			}
			got := subjectsOf(r.pass())
			if got[len(got)-1] != tt.stop {
				t.Errorf("transitions %v, want the last to be %s", got, tt.stop)
			}
			if _, detail, _ := r.ledger(ledgerPath).Stop(); !strings.HasPrefix(detail, tt.detail) {
				t.Errorf("stop detail %q, want it to start %q", detail, tt.detail)
			}
		})
	}
}

// `resume` at an interrupted stop runs the same dispatch again, with no
// new count (L-69).
func TestInterruptedResumeKeepsTheCount(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	behave := NoCommit
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" {
			return behave
		}
		return Done
	}
	r.pass()
	before := r.ledger(ledgerPath)
	behave = Done
	r.request(ledgerPath, "resume | the runner was restarted")
	rep := r.pass()
	want := andDelivered("loop: resume", "loop: record home row 1")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	after := r.ledger(ledgerPath)
	if after.Iterations != before.Iterations {
		t.Errorf("resume took a new count: %d -> %d", before.Iterations, after.Iterations)
	}
	last := r.runs[len(r.runs)-1]
	if last.Iteration != before.Iterations-1 || last.Pending.String() != before.Pending.String() {
		t.Errorf("the rerun was not the same dispatch: %+v vs %v", last.Pending, before.Pending)
	}
}

func TestSeedRefusedThenResume(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	bad := true
	r.script = func(target string, n int, model string) Behavior {
		if target == "seed" && bad {
			return Malformed
		}
		return Done
	}
	got := subjectsOf(r.pass())
	if got[len(got)-1] != "loop: stop seed-refused" {
		t.Fatalf("want seed-refused, got %v", got)
	}
	bad = false
	r.request(ledgerPath, "resume | the seed agent is fixed")
	got = subjectsOf(r.pass())
	want := andDelivered("loop: resume", "loop: dispatch seed", "loop: record home seed", "loop: dispatch row 1", "loop: record home row 1")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStatusesAreHonoured(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{
		"specs/draft.md":     "---\nstatus: draft\n---\n" + specWith(1, ""),
		"specs/paused.md":    "---\nstatus: paused\n---\n" + specWith(1, ""),
		"specs/cancelled.md": "---\nstatus: cancelled\n---\n" + specWith(1, ""),
	})
	rep := r.pass()
	if len(rep.Transitions) != 0 {
		t.Errorf("draft, paused and cancelled specs moved: %v", subjectsOf(rep))
	}
	if len(r.gh.Requests()) != 0 {
		t.Errorf("a paused spec was read from GitHub: %+v", r.gh.Requests())
	}
}

func TestOneBadDocumentNeverStopsTheOthers(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{
		"specs/feature.md":      specWith(1, ""),
		"specs/broken.md":       "# Broken\n\nno criteria here\n",
		"plans/other-ledger.md": "# Ledger - loop engine\n**Spec:** `specs/other.md`\ngarbage\n",
		"specs/other.md":        specWith(1, ""),
	})
	rep := r.pass()
	got := subjectsOf(rep)
	if len(got) != 5+len(delivered) || got[0] != "loop: seed ledger" {
		t.Errorf("the good spec did not run: %v", got)
	}
	var problems []string
	for _, n := range rep.Notes {
		if n.Problem {
			problems = append(problems, n.Spec+": "+n.Message)
		}
	}
	if len(problems) != 2 || !strings.Contains(strings.Join(problems, "\n"), "specs/broken.md: the spec has errors") || !strings.Contains(strings.Join(problems, "\n"), "ledger plans/other-ledger.md has grammar errors") {
		t.Errorf("problems: %v", problems)
	}
	if !rep.Diagnostics.HasErrors() {
		t.Errorf("report diagnostics %v, want the bad documents' errors", rep.Diagnostics)
	}
}

func TestSpecChangedThenResnapshot(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	stall := true
	r.script = func(target string, n int, model string) Behavior {
		if target == "2" && stall {
			return NoCommit
		}
		return Done
	}
	r.pass() // row 1 done; row 2 interrupted
	r.request(ledgerPath, "resume | try again")
	// A person edits the contract: row 1 reworded, a new AC appended.
	r.edit("specs/feature.md", func(s string) string {
		return strings.Replace(strings.Replace(s, "Criterion 1 holds.", "Criterion 1 holds under load.", 1), "2. Criterion 2 holds.\n", "2. Criterion 2 holds.\n3. Criterion 3 holds.\n", 1)
	})
	stall = false
	rep := r.pass()
	got := subjectsOf(rep)
	if got[len(got)-1] != "loop: stop spec-changed" {
		t.Fatalf("want spec-changed after the resumed row, got %v", got)
	}
	body := run(t, r.control, "git", "log", "-1", "--format=%B", "main")
	if !strings.Contains(body, `ac 1 reworded: "Criterion 1 holds." -> "Criterion 1 holds under load."`) || !strings.Contains(body, "ac 3 added") {
		t.Errorf("the stop does not show the diff:\n%s", body)
	}
	r.request(ledgerPath, "resnapshot | accept the load requirement")
	rep = r.pass()
	got = subjectsOf(rep)
	// Row 1 reopened at 1 attempt of 2: its next attempt is the escalated one.
	want := andDelivered("loop: amend", "loop: escalate row 1", "loop: dispatch row 1", "loop: record home row 1", "loop: dispatch row 3", "loop: record home row 3")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpecIllegalThenFixed(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.script = func(string, int, string) Behavior { return NoCommit }
	r.pass()
	r.edit("specs/feature.md", func(s string) string { return strings.Replace(s, "## Acceptance criteria", "## Criteria", 1) })
	if got := subjectsOf(r.pass()); len(got) != 1 || got[0] != "loop: stop spec-illegal" {
		t.Fatalf("got %v", got)
	}
	r.edit("specs/feature.md", func(s string) string { return strings.Replace(s, "## Criteria", "## Acceptance criteria", 1) })
	if got := subjectsOf(r.pass()); len(got) == 0 || got[0] != "loop: resume" {
		t.Errorf("a fixed spec did not resume: %v", got)
	}
}

func TestLegacyCapMigrates(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""),
		ledgerPath: "# Ledger - loop engine\n**Spec:** `specs/feature.md`\nbase: 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\nverification: go test ./...\nchecks: commands\niterations: 2\ncap: 9\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | test -f x; FAIL |\n\n## Decisions\nrow 0 done | seeded 1 rows, closed 0 on baseline | row 1\n",
	})
	r.gh.CreateRepo("acme/api", "main")
	got := subjectsOf(r.pass())
	if len(got) < 1 || got[0] != "loop: migrate allowance" {
		t.Fatalf("got %v", got)
	}
	if l := r.ledger(ledgerPath); l.Allowance != 2 || l.Cap != 0 || l.Iterations < 2 {
		t.Errorf("after migration: allowance %d cap %d", l.Allowance, l.Cap)
	}
}

func TestCoordinatedLegs(t *testing.T) {
	t.Parallel()
	spec := "# Audit\n\n## Acceptance criteria\n1. API writes events.\n2. Console lists events.\n3. Schema documented.\n\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1, AC 3\n### Leg: web\nrepo: acme/web\nscope: AC 2, AC 3\n"
	r := newRig(t, map[string]string{"specs/audit.md": spec}, "acme/api", "acme/web")
	rep := r.pass()
	want := []string{"loop: seed ledger",
		"loop: dispatch seed", "loop: record api seed",
		"loop: dispatch seed", "loop: record web seed",
		"loop: dispatch row 1", "loop: record api row 1",
		"loop: dispatch row 2", "loop: record web row 2",
		"loop: dispatch row 3", "loop: record api row 3",
		"loop: dispatch row 4", "loop: record web row 4",
		// Issue 17: then one pull request per leg (legs_test.go), each
		// after gallivant replayed its rows' evidence on the leg's head.
		"loop: verify leg api", "loop: open pr acme/api#1", "loop: verify leg web", "loop: open pr acme/web#1"}
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for _, repo := range []string{"acme/api", "acme/web"} {
		if n := run(t, r.gh.RepoDir(repo), "git", "rev-list", "--count", "main..gallivant/audit"); n != "3" {
			t.Errorf("%s work branch has %s commits, want 3", repo, n)
		}
	}
	l := r.ledger("plans/audit-ledger.md")
	if len(l.Members) != 3 || !l.Members[1].Seeded || !l.Members[2].Seeded || l.Members[0].Seeded {
		t.Errorf("members %+v", l.Members)
	}
}

// With an asynchronous executor the reconciler waits; an agent elsewhere
// pushes the return; the next pass admits it. A dispatch with no return by
// the timeout is interrupted.
func TestAsyncExecutor(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	none := func(o *Options) { o.Executor = agent.NoneExecutor{} }
	rep := r.pass(none)
	if got := subjectsOf(rep); !slices.Equal(got, []string{"loop: seed ledger", "loop: dispatch seed"}) {
		t.Fatalf("got %v", got)
	}
	if rep := r.pass(none); len(rep.Transitions) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Message, "waiting for the return of the seed") {
		t.Errorf("the second pass did not wait: %v %+v", subjectsOf(rep), rep.Notes)
	}
	// An agent elsewhere answers from the brief.
	l := r.ledger(ledgerPath)
	brief, err := ledger.Brief(ledger.BriefInput{Ledger: l, Spec: specOf(t, specWith(1, "")), LedgerPath: ledgerPath, Repo: "acme/api", Branch: "gallivant/feature"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", "gallivant/feature", r.gh.GitURLWithToken("acme/api", r.gh.MainToken()), "w")
	if err := ScriptedAgent(func(string, int, string) Behavior { return Done })(t.Context(), dir+"/w", agent.Task{Spec: "specs/feature.md", Brief: brief}); err != nil {
		t.Fatal(err)
	}
	run(t, dir+"/w", "git", "push", "--quiet", "origin", "gallivant/feature")
	if got := subjectsOf(r.pass(none)); !slices.Equal(got, []string{"loop: record home seed", "loop: dispatch row 1"}) {
		t.Fatalf("got %v", got)
	}
	// Past the timeout but within the grace period the dispatch may still
	// be in flight (another reconciler's clock, its final push).
	r.clock.Advance(31 * time.Minute)
	if got := subjectsOf(r.pass(none)); len(got) != 0 {
		t.Errorf("within the grace period: got %v", got)
	}
	r.clock.Advance(5 * time.Minute)
	if got := subjectsOf(r.pass(none)); !slices.Equal(got, []string{"loop: stop interrupted"}) {
		t.Errorf("past the timeout and the grace period: got %v", got)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	head := run(t, r.control, "git", "rev-parse", "main")
	rep := r.pass(func(o *Options) { o.DryRun = true })
	if got := subjectsOf(rep); !slices.Equal(got, []string{"loop: seed ledger", "loop: dispatch seed"}) {
		t.Errorf("dry run plans %v", got)
	}
	if got := run(t, r.control, "git", "rev-parse", "main"); got != head || len(r.runs) != 0 {
		t.Errorf("after a dry run main is at %s with %d executor runs, want %s and 0", got, len(r.runs), head)
	}
	for _, req := range r.gh.Requests() {
		if req.Method != "GET" {
			t.Errorf("a dry run wrote to GitHub: %s %s", req.Method, req.Path)
		}
	}
}

// The workflow executor triggers workflow_dispatch in the member repository
// with the task reference as inputs, and does not wait for it.
func TestWorkflowExecutor(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.putDocsWorkflow()
	rep := r.pass(func(o *Options) {
		o.Executor = agent.WorkflowExecutor{GitHub: o.GitHub, Workflow: "agent.yml", Control: "acme/control"}
	})
	if got := subjectsOf(rep); !slices.Equal(got, []string{"loop: seed ledger", "loop: dispatch seed"}) {
		t.Fatalf("got %v", got)
	}
	ds := r.gh.Dispatches("acme/api")
	if len(ds) != 1 {
		t.Fatalf("%d workflow dispatches, want 1", len(ds))
	}
	want := map[string]string{"control": "acme/control", "spec": "specs/feature.md", "ledger": ledgerPath, "branch": "gallivant/feature",
		"target": "seed", "iteration": "0", "pending": r.ledger(ledgerPath).Pending.String()}
	if diff := cmp.Diff(want, ds[0].Inputs); diff != "" || ds[0].Workflow != "agent.yml" || ds[0].Ref != "main" {
		t.Errorf("dispatch %s@%s inputs (-want +got):\n%s", ds[0].Workflow, ds[0].Ref, diff)
	}
}

// `rows +N` raises the shared allowance at a row stop and the loop goes on.
func TestRowsRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": strings.Replace(rigConfig, "  allowance: 2\n", "  allowance: 1\n  escalate_after: 9\n", 1)})
	fail := true
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && (fail || model != "") {
			return Fail
		}
		return Done
	}
	// Allowance 1: the first attempt is the escalated one (L-44); it fails.
	r.pass()
	if reason, _, _ := r.ledger(ledgerPath).Stop(); reason != "allowance" {
		t.Fatalf("stop %q, want allowance", reason)
	}
	fail = false
	r.request(ledgerPath, "rows +2 | give the whole spec more room")
	got := subjectsOf(r.pass())
	if len(got) < 3 || got[0] != "loop: raise allowance" {
		t.Fatalf("got %v", got)
	}
	l := r.ledger(ledgerPath)
	granted := slices.ContainsFunc(l.Decisions, func(d ledger.Decision) bool { return d.Line == "rows +2 | give the whole spec more room" })
	if l.Allowance != 3 || !granted || l.Rows[0].Status != ledger.Done || l.Rows[0].Attempts != 2 {
		t.Errorf("after rows +2: allowance %d granted %v row %+v", l.Allowance, granted, l.Rows[0])
	}
}
