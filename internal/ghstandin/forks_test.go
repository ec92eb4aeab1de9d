package ghstandin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// commitAndPush commits file on branch of the clone w and pushes it to
// remote, returning the new head.
func commitAndPush(t *testing.T, w, remote, branch, file string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "add "+file)
	if out, ok := gitTry(t, w, "push", "--quiet", remote, "HEAD:refs/heads/"+branch); !ok {
		t.Fatalf("push %s to %s: %s", branch, remote, out)
	}
	return git(t, w, "rev-parse", "HEAD")
}

// A pull request from a fork (issue 30 item 7), as GitHub documents it:
// POST /forks answers 202 with the caller's fork; a pull request into the
// parent takes head "owner:branch" (the owner in any case) and reports
// head.repo as the fork and head.label as owner:branch; the parent serves
// its head at refs/pull/N/head (fetchable, and refused to pushes: GitHub
// keeps it), following the fork's later pushes; head= filters by the
// head's owner; only the fork's owner pushes to the fork, and the parent's
// writers push to the pull request's head branch only when it allows
// maintainer edits.
func TestForkPullRequests(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	st, v := call(t, s, "mallory", "POST", "/repos/acme/api/forks", nil)
	if st != 202 || field(v, "full_name") != "mallory/api" || field(v, "fork") != true {
		t.Fatalf("fork: %d full_name %v fork %v, want 202 mallory/api true", st, field(v, "full_name"), field(v, "fork"))
	}
	fork := filepath.Join(t.TempDir(), "fork")
	git(t, filepath.Dir(fork), "clone", "--quiet", s.GitURLWithToken("mallory/api", s.Token("mallory")), fork)
	git(t, fork, "checkout", "--quiet", "-b", "gallivant/feature")
	head := commitAndPush(t, fork, "origin", "gallivant/feature", "f.txt")

	st, v = call(t, s, "mallory", "POST", "/repos/acme/api/pulls", map[string]any{"title": "From a fork", "head": "Mallory:gallivant/feature", "base": "main"})
	if st != 201 {
		t.Fatalf("pull request from the fork: %d %v", st, v)
	}
	h := field(v, "head")
	if got := []any{field(field(h, "repo"), "full_name"), field(h, "label"), field(field(h, "user"), "login"), field(h, "sha"), field(v, "maintainer_can_modify")}; got[0] != "mallory/api" ||
		got[1] != "mallory:gallivant/feature" || got[2] != "mallory" || got[3] != head {
		t.Errorf("head repo, label, user, sha = %v, want mallory/api, mallory:gallivant/feature, mallory, %s", got, head)
	}
	n := itoa(int(field(v, "number").(float64)))

	parent := clone(t, s, "acme/api")
	if refs := git(t, parent, "ls-remote", "origin", "refs/pull/*"); refs != head+"\trefs/pull/"+n+"/head" {
		t.Errorf("the parent advertises %q, want refs/pull/%s/head at %s", refs, n, head)
	}
	git(t, parent, "fetch", "--quiet", "origin", "refs/pull/"+n+"/head")
	if got := git(t, parent, "rev-parse", "FETCH_HEAD"); got != head {
		t.Errorf("fetching refs/pull/%s/head gave %s, want %s", n, got, head)
	}
	for _, tc := range []struct {
		head string
		want int
	}{{"mallory:gallivant/feature", 1}, {"MALLORY:gallivant/feature", 1}, {"acme:gallivant/feature", 0}} {
		_, list := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls?head="+tc.head, nil)
		if l, _ := list.([]any); len(l) != tc.want {
			t.Errorf("pulls?head=%s: %d, want %d", tc.head, len(l), tc.want)
		}
	}

	// The fork's owner pushes; the parent follows, refs/pull/N/head too.
	moved := commitAndPush(t, fork, "origin", "gallivant/feature", "g.txt")
	_, v = call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+n, nil)
	if got := field(field(v, "head"), "sha"); got != moved {
		t.Errorf("after the fork's push the head is %v, want %s", got, moved)
	}
	if refs := git(t, parent, "ls-remote", "origin", "refs/pull/"+n+"/head"); !strings.HasPrefix(refs, moved) {
		t.Errorf("refs/pull/%s/head is %q after the fork's push, want %s", n, refs, moved)
	}

	// The parent's admin may not push to the fork: the pull request does
	// not allow maintainer edits.
	asBot := s.GitURLWithToken("mallory/api", s.MainToken())
	if out, ok := gitTry(t, fork, "push", "--quiet", asBot, "HEAD:refs/heads/gallivant/feature-2"); ok || !strings.Contains(out, "Permission to mallory/api.git denied to "+ghstandin.DefaultLogin) {
		t.Errorf("the parent's admin pushed to the fork: %v %s", ok, out)
	}
	git(t, fork, "checkout", "--quiet", "-b", "editable")
	commitAndPush(t, fork, "origin", "editable", "e.txt")
	st, editable := call(t, s, "mallory", "POST", "/repos/acme/api/pulls", map[string]any{"title": "Editable", "head": "mallory:editable", "base": "main",
		"maintainer_can_modify": true})
	if st != 201 || field(editable, "maintainer_can_modify") != true {
		t.Fatalf("pull request allowing maintainer edits: %d %v", st, editable)
	}
	if err := os.WriteFile(filepath.Join(fork, "m.txt"), []byte("m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, fork, "add", "-A")
	git(t, fork, "commit", "--quiet", "-m", "a maintainer's edit")
	if out, ok := gitTry(t, fork, "push", "--quiet", asBot, "HEAD:refs/heads/editable"); !ok {
		t.Errorf("a maintainer's push to the head of a pull request allowing edits was refused: %s", out)
	}
	if out, ok := gitTry(t, fork, "push", "--quiet", asBot, "HEAD:refs/heads/other"); ok {
		t.Errorf("a maintainer pushed to a fork branch that heads no pull request: %s", out)
	}
	// The author withdraws the permission (PATCH maintainer_can_modify):
	// the maintainer's next push is refused.
	en := fmt.Sprint(field(editable, "number"))
	if st, v := call(t, s, "mallory", "PATCH", "/repos/acme/api/pulls/"+en, map[string]any{"maintainer_can_modify": false}); st != 200 || field(v, "maintainer_can_modify") != false {
		t.Fatalf("withdraw maintainer edits: %d %v", st, v)
	}
	git(t, fork, "commit", "--quiet", "--allow-empty", "-m", "after the withdrawal")
	if out, ok := gitTry(t, fork, "push", "--quiet", asBot, "HEAD:refs/heads/editable"); ok || !strings.Contains(out, "denied to "+ghstandin.DefaultLogin) {
		t.Errorf("a maintainer pushed after the author withdrew maintainer edits: %v %s", ok, out)
	}

	// refs/pull/* is GitHub's own.
	if out, ok := gitTry(t, parent, "push", "--quiet", "origin", "+HEAD:refs/pull/"+n+"/head"); ok || !strings.Contains(out, "deny updating a hidden ref") {
		t.Errorf("push to refs/pull/%s/head: %v %s", n, ok, out)
	}

	if st, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+n+"/merge", nil); st != 200 {
		t.Fatalf("merge the fork's pull request: %d %v", st, v)
	}
	git(t, parent, "fetch", "--quiet", "origin")
	if got := git(t, parent, "log", "-1", "--format=%s", "origin/main"); got != "Merge pull request #"+n+" from mallory/gallivant/feature" {
		t.Errorf("merge commit %q", got)
	}
	if got := git(t, parent, "rev-parse", "origin/main^2"); got != moved {
		t.Errorf("the merge's second parent is %s, want the fork's head %s", got, moved)
	}
}

// update-branch of a pull request from a fork merges the base into the
// fork's branch: the fork's owner may ask for it, the base's admin only
// when the pull request allows maintainer edits (403 otherwise).
func TestUpdateBranchOfAForkPullRequest(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.SetUpdateBranchDelay(0)
	if _, err := s.Fork("acme/api", "mallory"); err != nil {
		t.Fatal(err)
	}
	fork := filepath.Join(t.TempDir(), "fork")
	git(t, filepath.Dir(fork), "clone", "--quiet", s.GitURLWithToken("mallory/api", s.Token("mallory")), fork)
	git(t, fork, "checkout", "--quiet", "-b", "topic")
	old := commitAndPush(t, fork, "origin", "topic", "t.txt")
	n := itoa(openPull(t, s, "mallory:topic", nil))
	pushFile(t, clone(t, s, "acme/api"), "main", "m.txt", "m\n")
	path := "/repos/acme/api/pulls/" + n + "/update-branch"
	if st, v := call(t, s, ghstandin.DefaultLogin, "PUT", path, map[string]string{"expected_head_sha": old}); st != 403 {
		t.Errorf("the base's admin updating a fork's branch without maintainer edits: %d %v, want 403", st, v)
	}
	if st, v := call(t, s, "mallory", "PUT", path, map[string]string{"expected_head_sha": old}); st != 202 {
		t.Fatalf("the fork's owner: %d %v, want 202", st, v)
	}
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/pulls/"+n, nil)
	head, _ := field(field(v, "head"), "sha").(string)
	git(t, fork, "fetch", "--quiet", "origin")
	if got := git(t, fork, "rev-parse", "origin/topic"); head == old || got != head {
		t.Fatalf("the fork's branch is %s and the pull request's head %s, want the background merge (was %s)", got, head, old)
	}
	if subject := git(t, fork, "log", "-1", "--format=%s", head); subject != "Merge branch 'main' into topic" {
		t.Errorf("head %s is %q", head, subject)
	}
}
