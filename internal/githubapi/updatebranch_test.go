package githubapi

import (
	"errors"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-github/v66/github"
)

// UpdateBranch reads GitHub's answers: 202 is accepted (the merge runs
// later), and a 422 because the head is no longer the expected one — a
// background update-branch that landed after the head was read — is
// ErrHeadMoved, not a failed write.
func TestAdapterUpdateBranchHeadMoved(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	s.SetUpdateBranchDelay(1)
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	old := testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, _, err := s.Client(ghstandin.DefaultLogin).PullRequests.Create(ctx, "acme", "api",
		&github.NewPullRequest{Title: github.String("f"), Head: github.String("f"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	testserver.PushBranch(t, s, "acme/api", "main", "g.txt")
	if err := g.UpdateBranch(ctx, "acme/api", pr.GetNumber(), old); err != nil {
		t.Fatalf("first UpdateBranch: %v, want accepted", err)
	}
	if head, _, err := g.BranchHead(ctx, "acme/api", "f"); err != nil || head != old {
		t.Fatalf("head right after the 202: %s %v, want the old head %s", head, err, old)
	}
	err = g.UpdateBranch(ctx, "acme/api", pr.GetNumber(), old)
	if !errors.Is(err, ErrHeadMoved) || errors.Is(err, ErrMergeConflict) {
		t.Fatalf("UpdateBranch with the head the background job replaced: %v, want ErrHeadMoved", err)
	}
	if want := "merge the base into acme/api#1: the head branch moved since it was read"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
