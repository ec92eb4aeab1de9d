package reconcile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A person's merge commit that only looks like GitHub's update-branch
// merge — the subject GitHub writes, the recorded head as first parent,
// but a second parent that is not the base branch's head — is a push the
// loop did not make: it is followed (`loop: follow`), never recorded as
// gallivant's own base merge (gatekeep.IsBaseMerge).
func TestLookAlikeBaseMergeIsFollowed(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "") // CI is required and has not reported: the entry stays in review
	r.pass()
	recorded := r.ledger("plans/feature-ledger.md").Delivery.Head
	if recorded == "" {
		t.Fatal("the first pass recorded no head")
	}
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", work, r.gh.RepoDir("acme/api"), "w")
	w := filepath.Join(dir, "w")
	run(t, w, "git", "checkout", "--quiet", "-b", "side", "origin/main")
	if err := os.WriteFile(filepath.Join(w, "side.txt"), []byte("not the base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, w, "git", "add", "-A")
	run(t, w, "git", "commit", "--quiet", "-m", "A side commit")
	side := run(t, w, "git", "rev-parse", "HEAD")
	run(t, w, "git", "checkout", "--quiet", work)
	run(t, w, "git", "merge", "--quiet", "--no-ff", "-m", "Merge branch 'main' into "+work, "side")
	run(t, w, "git", "push", "--quiet", "origin", work)
	head := run(t, w, "git", "rev-parse", "HEAD")
	if parents := run(t, w, "git", "rev-list", "--parents", "-n", "1", "HEAD"); parents != head+" "+recorded+" "+side {
		t.Fatalf("the look-alike's parents are %q; want %s %s", parents, recorded, side)
	}

	got := subjectsOf(r.pass())
	if !slices.Contains(got, "loop: follow acme/api#1") || slices.Contains(got, "loop: merge base acme/api#1") {
		t.Fatalf("transitions %v; want the look-alike merge followed, not recorded as a base merge", got)
	}
	if h := r.ledger("plans/feature-ledger.md").Delivery.Head; h != head {
		t.Errorf("recorded head %s; want the look-alike %s", h, head)
	}
}
