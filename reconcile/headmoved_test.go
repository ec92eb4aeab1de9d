package reconcile

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// beforeUpdateBranch is the GitHub client with land run once, right before
// the first update-branch request reaches GitHub.
type beforeUpdateBranch struct {
	GitHubClient
	once sync.Once
	land func()
}

func (b *beforeUpdateBranch) UpdateBranch(ctx context.Context, repo string, number int, expectedHead string) error {
	b.once.Do(b.land)
	return b.GitHubClient.UpdateBranch(ctx, repo, number, expectedHead)
}

// The background merge of an earlier update-branch lands between the pass
// reading the head and its own update-branch (issue 30 item 3): GitHub
// answers 422 "expected head sha didn't match current head ref". That is
// the head moving, not a failed write: the pass waits, with no `loop:
// write failed update-branch`, and the next pass records the merge that
// landed as gallivant's base merge, not as `loop: follow`.
func TestUpdateBranchHeadMovedIsAWait(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Strict: true})
	r.pass()
	old := r.head(work)
	r.personPush("main", "unrelated.txt")
	r.as("ci-bot").status(old, "ci", "success")
	landed := ""
	rep := r.pass(func(o *Options) {
		o.GitHub = &beforeUpdateBranch{GitHubClient: o.GitHub, land: func() { landed = r.githubMergesBase(work) }}
	})
	if landed == "" {
		t.Fatalf("the pass never asked GitHub to update the branch; transitions %v, notes %+v", subjectsOf(rep), rep.Notes)
	}
	if got := subjectsOf(rep); slices.Contains(got, "loop: write failed update-branch") {
		t.Fatalf("transitions %v: the moved head was recorded as a failed write", got)
	}
	var said []string
	for _, n := range rep.Notes {
		said = append(said, n.Message)
		if n.Problem {
			t.Errorf("note %q is marked a problem", n.Message)
		}
	}
	if !strings.Contains(strings.Join(said, "\n"), "moved since it was read") {
		t.Errorf("notes %q do not say the head moved", said)
	}
	next := subjectsOf(r.pass())
	if !slices.Contains(next, "loop: merge base acme/api#1") || slices.Contains(next, "loop: follow acme/api#1") {
		t.Fatalf("next pass %v, want the merge that landed recorded as loop: merge base, never loop: follow", next)
	}
}

// githubMergesBase does what GitHub's update-branch job does: a merge
// commit of main into branch, "Merge branch 'main' into <branch>", pushed
// to the target repository. It returns the merge.
func (r *rig) githubMergesBase(branch string) string {
	r.t.Helper()
	dir := r.t.TempDir()
	run(r.t, dir, "git", "clone", "--quiet", "--branch", branch, r.gh.RepoDir("acme/api"), "w")
	w := filepath.Join(dir, "w")
	run(r.t, w, "git", "merge", "--quiet", "--no-ff", "-m", "Merge branch 'main' into "+branch, "origin/main")
	run(r.t, w, "git", "push", "--quiet", "origin", branch)
	return run(r.t, w, "git", "rev-parse", "HEAD")
}
