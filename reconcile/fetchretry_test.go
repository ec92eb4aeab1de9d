package reconcile

import (
	"path/filepath"
	"slices"
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
