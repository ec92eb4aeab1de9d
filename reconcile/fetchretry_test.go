package reconcile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 33: the soak with git faults found a dispatch stopped
// harness-error before its agent started: the executor's fetch of the
// work branch met a 500, the mirror was taken for damaged and fetched
// again, which met a cut answer. A fetch that fails on the network or on
// GitHub's side is tried again, and the mirror is kept: the run goes on.
func TestMirrorFetchRetriesGitHubFailures(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	for _, kind := range []ghstandin.FaultKind{ghstandin.FaultStatus, ghstandin.FaultReset} {
		r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/api\.git/git-upload-pack$`, Kind: kind, Count: 1})
	}
	rep := r.pass()
	got := subjectsOf(rep)
	if slices.ContainsFunc(got, func(s string) bool { return s == "loop: stop harness-error" }) || !slices.Contains(got, "loop: record home seed") {
		t.Fatalf("transitions %v, want the seed run despite two failed fetches\nnotes: %s", got, noteOf(rep))
	}
	if left := r.gh.Faults(); len(left) != 0 {
		t.Errorf("faults never met: %+v", left)
	}
	if aside, _ := filepath.Glob(filepath.Join(r.work, "mirrors", "acme__api", "*.damaged-*")); len(aside) != 0 {
		t.Errorf("a failed fetch set the mirror aside as damaged: %v", aside)
	}
}

// Issue 33: a fetch of the work repository that keeps failing on
// GitHub's side (every attempt a 502, or a reset connection) stopped the
// entry harness-error, for a person to resume. It is the pass's problem,
// not the entry's: the dispatch is withdrawn (no attempt spent), no
// further agent starts in the pass, the pass reports one problem (exit
// status 1), and the next pass, with GitHub answering again, dispatches
// and runs it.
func TestMirrorFetchThatKeepsFailingLeavesTheEntryDue(t *testing.T) {
	t.Parallel()
	for _, kind := range []ghstandin.FaultKind{ghstandin.FaultStatus, ghstandin.FaultReset} {
		t.Run(map[ghstandin.FaultKind]string{ghstandin.FaultStatus: "502", ghstandin.FaultReset: "reset"}[kind], func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
			off := r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/api\.git/git-upload-pack$`, Kind: kind})
			rep := r.pass()
			off()
			wantSubjects(t, rep, "loop: seed ledger", "loop: dispatch seed", "loop: withdraw seed")
			var problems []string
			for _, n := range rep.Notes {
				if n.Problem {
					problems = append(problems, n.Message)
				}
			}
			if len(problems) != 1 || !strings.Contains(problems[0], "could not fetch the work repository from GitHub") {
				t.Errorf("problems %q; want one naming the fetch", problems)
			}
			got := subjectsOf(r.pass())
			if !slices.Contains(got, "loop: dispatch seed") || !slices.Contains(got, "loop: record home seed") {
				t.Errorf("the next pass, with GitHub answering: %v; want the seed dispatched and run", got)
			}
		})
	}
}
