package reconcile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// GitHub refuses to reopen a pull request whose head branch was deleted
// (422, issue 30 item 4), and so does the stand-in: `resume` after a closed
// stop then takes the replace-the-pull-request path, quoting GitHub's
// refusal, instead of recording a reopening that did not happen.
func TestResumeAfterDeletedHeadReplacesThePullRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.pass()
	r.as("alice").close(1)
	wantSubjects(t, r.pass(), "loop: stop closed")
	run(t, r.gh.RepoDir("acme/api"), "git", "branch", "-D", work)
	r.request("plans/feature-ledger.md", "- resume | closed by mistake")
	rep := r.pass()
	got := subjectsOf(rep)
	if len(got) < 2 || got[0] != "loop: resume" || got[1] != "loop: replace pr acme/api#1" {
		t.Fatalf("want resume then replace pr, got %v", got)
	}
	if log := run(t, r.control, "git", "log", "-1", "--format=%B", "--grep=^loop: replace pr", "main"); !strings.Contains(log, "branch has been deleted") {
		t.Errorf("the replace commit does not quote GitHub's refusal:\n%s", log)
	}
	if st := r.as("alice").pr(1).GetState(); st != "closed" {
		t.Errorf("pull request #1 is %s, want it left closed", st)
	}
}

// GitHub's update-branch answers 202 and merges later (issue 30 item 3):
// the merge gallivant asked for lands after the pass that asked, however
// many reads later, and is recorded as gallivant's own base merge, never
// as `loop: follow` (a push the loop did not make).
func TestLateBaseMergeIsNotFollowed(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Strict: true})
	r.gh.SetUpdateBranchDelay(4)
	r.pass()
	old := r.head(work)
	r.personPush("main", "unrelated.txt")
	r.as("ci-bot").status(old, "ci", "success")
	var all []string
	for pass := 0; pass < 4 && !slices.Contains(all, "loop: merge base acme/api#1"); pass++ {
		all = append(all, subjectsOf(r.pass())...)
	}
	if !slices.Contains(all, "loop: merge base acme/api#1") || slices.Contains(all, "loop: follow acme/api#1") {
		t.Fatalf("transitions %v, want the late merge recorded as loop: merge base and no loop: follow", all)
	}
	head := r.head(work)
	if h := r.ledger("plans/feature-ledger.md").Delivery.Head; h != head {
		t.Errorf("recorded head %s, want the merge commit %s", h, head)
	}
}
