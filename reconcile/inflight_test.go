package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
)

// Issue 12, finding 1: a dispatch is dated when it happens, not when its
// pass began. A pass whose agents take 12 minutes each dispatches row 2
// 24 minutes after it started; a second reconciler that looks while that
// agent runs (36 minutes in: past the pass start + timeout + grace) must
// see a dispatch in flight and wait, not stop it interrupted.
func TestDispatchIsJudgedByItsOwnStart(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	start := r.clock.Now()
	scripted := r.agent
	var second *Report
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		r.clock.Advance(12 * time.Minute)
		if task.Pending.Target == 2 {
			second = r.pass(func(o *Options) { o.Executor = agent.NoneExecutor{} })
		}
		return scripted(ctx, dir, task)
	}
	rep := r.pass()
	if second == nil {
		t.Fatal("row 2 never ran")
	}
	if len(second.Transitions) != 0 {
		t.Errorf("the second reconciler acted on a dispatch in flight: %v", subjectsOf(second))
	}
	if len(second.Notes) != 1 || !strings.Contains(second.Notes[0].Message, "waiting for the return of row 2") {
		t.Errorf("the second reconciler did not wait: %+v", second.Notes)
	}
	if n := countSubjects(rep, "loop: stop"); n != 0 {
		t.Errorf("the pass stopped: %v", subjectsOf(rep))
	}
	// Every commit date is its own event's time.
	dates := map[string]string{}
	for _, line := range strings.Split(run(t, r.control, "git", "log", "--format=%cI %s", "main"), "\n") {
		date, subject, _ := strings.Cut(line, " ")
		if _, seen := dates[subject]; !seen {
			dates[subject] = date
		}
	}
	at := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339) }
	want := map[string]string{
		"loop: seed ledger":       at(0),
		"loop: dispatch seed":     at(0),
		"loop: dispatch row 1":    at(12 * time.Minute),
		"loop: dispatch row 2":    at(24 * time.Minute),
		"loop: record home row 2": at(36 * time.Minute),
	}
	got := map[string]string{}
	for k := range want {
		got[k] = strings.Replace(dates[k], "+00:00", "Z", 1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commit dates (-want +got):\n%s", diff)
	}
}

// `resume` after `interrupted` looks at the work branch first: a return
// that arrived after the stop (an orphaned agent's, pushed late) is
// admitted and the attempt is not run again.
func TestResumeAdmitsAReturnAlreadyThere(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && n == 1 {
			return NoCommit
		}
		return Done
	}
	if got := subjectsOf(r.pass()); !slices.Contains(got, "loop: stop interrupted") {
		t.Fatalf("no interrupted stop: %v", got)
	}
	runs := len(r.runs)
	// The late return: the same dispatch answered in a checkout of the
	// work branch and pushed.
	task := r.runs[runs-1]
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", "gallivant/feature", r.gh.GitURLWithToken("acme/api", r.gh.MainToken()), "w")
	if err := ScriptedAgent(func(string, int, string) Behavior { return Done })(t.Context(), dir+"/w", task); err != nil {
		t.Fatal(err)
	}
	run(t, dir+"/w", "git", "push", "--quiet", "origin", "gallivant/feature")
	r.request(ledgerPath, "resume | the agent finished after all")
	rep := r.pass()
	if got := subjectsOf(rep); len(got) < 2 || got[0] != "loop: resume" || got[1] != "loop: record home row 1" {
		t.Errorf("got %v, want the resume and the admitted return", got)
	}
	if len(r.runs) != runs {
		t.Errorf("the attempt ran again: %d runs, want %d", len(r.runs), runs)
	}
	if len(rep.Refusals) != 0 || len(r.ledger(ledgerPath).Requests) != 0 {
		t.Errorf("the resume request was not consumed: %+v", rep.Refusals)
	}
}

// Issue 12, finding 4: a pass that loses a compare-and-swap race after its
// write-ahead dispatch landed still reports that dispatch; the report
// matches the control branch exactly.
func TestLostRaceReportsWhatLanded(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	moved := false
	rep := r.pass(func(o *Options) {
		o.Crash = func(point string) error {
			if point == "executor:after" && !moved {
				// A person pushes while the first agent runs: the pass's
				// next push loses the race.
				moved = true
				r.edit("notes.txt", func(string) string { return "moved\n" })
			}
			return nil
		}
	})
	if rep.Retries == 0 {
		t.Fatal("the pass never lost a race")
	}
	var want []string
	for _, s := range r.subjects() {
		if strings.HasPrefix(s, "loop: ") {
			want = append(want, s)
		}
	}
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Errorf("reported transitions differ from the control branch (-branch +report):\n%s", diff)
	}
	for _, tr := range rep.Transitions {
		if tr.Commit == "" {
			t.Errorf("%s reported without its commit", tr.Subject)
			continue
		}
		run(t, r.control, "git", "merge-base", "--is-ancestor", tr.Commit, "main")
	}
}

// An interrupted stop whose return arrives later (an agent that outlived
// its reconciler, pushed from another machine's cache) clears itself: the
// return is admitted without a person.
func TestLateReturnClearsInterrupted(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && n == 1 {
			return NoCommit
		}
		return Done
	}
	if got := subjectsOf(r.pass()); !slices.Contains(got, "loop: stop interrupted") {
		t.Fatalf("no interrupted stop: %v", got)
	}
	runs := len(r.runs)
	task := r.runs[runs-1]
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", "gallivant/feature", r.gh.GitURLWithToken("acme/api", r.gh.MainToken()), "w")
	if err := ScriptedAgent(func(string, int, string) Behavior { return Done })(t.Context(), dir+"/w", task); err != nil {
		t.Fatal(err)
	}
	run(t, dir+"/w", "git", "push", "--quiet", "origin", "gallivant/feature")
	rep := r.pass()
	if got := subjectsOf(rep); len(got) < 2 || got[0] != "loop: resume" || got[1] != "loop: record home row 1" {
		t.Errorf("got %v, want the stop cleared and the return admitted", got)
	}
	if len(r.runs) != runs {
		t.Errorf("the attempt ran again")
	}
}
