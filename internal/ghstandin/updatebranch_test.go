package ghstandin_test

import (
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// GitHub's update-branch is a background job, so a second update-branch
// sent with the head read before the first one landed is refused with 422
// "expected head sha didn't match current head ref." — the job moved the
// head between the read and the request (issue 30 item 3). The refusal
// leaves the branch at the merge the first job made.
func TestUpdateBranchRefusesAHeadMovedByTheBackgroundJob(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.SetUpdateBranchDelay(1)
	w := clone(t, s, "acme/api")
	old := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	pushFile(t, w, "main", "g.txt", "g\n")
	path := "/repos/acme/api/pulls/" + itoa(n) + "/update-branch"
	if st, v := call(t, s, ghstandin.DefaultLogin, "PUT", path, map[string]string{"expected_head_sha": old}); st != 202 {
		t.Fatalf("first update-branch: %d %v, want 202", st, v)
	}
	head := func() string {
		t.Helper()
		_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/branches/f", nil)
		sha, _ := field(field(v, "commit"), "sha").(string)
		return sha
	}
	if got := head(); got != old {
		t.Fatalf("the read after the 202 sees %s, want the old head %s (the job has not run)", got, old)
	}
	// The job lands on this request, before its handler runs.
	st, v := call(t, s, ghstandin.DefaultLogin, "PUT", path, map[string]string{"expected_head_sha": old})
	if want := "expected head sha didn't match current head ref."; st != 422 || field(v, "message") != want {
		t.Fatalf("second update-branch with the old head: %d %v, want 422 %q", st, v, want)
	}
	merged := head()
	if merged == old {
		t.Fatalf("the background merge did not land")
	}
	git(t, w, "fetch", "--quiet", "origin")
	if subject := git(t, w, "log", "-1", "--format=%s", merged); subject != "Merge branch 'main' into f" {
		t.Errorf("head %s is %q, want the background job's merge commit", merged, subject)
	}
}
