package reconcile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// ErrMergeConflict reports that GitHub could not merge the base into a
// pull request's head branch because they conflict.
var ErrMergeConflict = errors.New("the base and the head branch conflict")

// UpdateBranch asks GitHub to merge the base branch into a pull request's
// head branch (a merge commit, never a rebase), only if the head is still
// expectedHead. GitHub answers 202 and performs the merge; a conflict is
// ErrMergeConflict.
func (g *GitHub) UpdateBranch(ctx context.Context, repo string, number int, expectedHead string) error {
	o, n := splitRepo(repo)
	_, _, err := g.c.PullRequests.UpdateBranch(ctx, o, n, number, &github.PullRequestBranchUpdateOptions{ExpectedHeadSHA: &expectedHead})
	var accepted *github.AcceptedError
	if err == nil || errors.As(err, &accepted) {
		return nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(er.Message), "conflict") {
		return fmt.Errorf("merge the base into %s#%d: %w", repo, number, ErrMergeConflict)
	}
	return classify(fmt.Sprintf("merge the base into %s#%d", repo, number), err)
}

// ReopenPullRequest reopens a closed pull request. GitHub refuses (422)
// when the head branch was deleted or rewritten since it closed.
func (g *GitHub) ReopenPullRequest(ctx context.Context, repo string, number int) error {
	o, n := splitRepo(repo)
	state := "open"
	_, _, err := g.c.PullRequests.Edit(ctx, o, n, number, &github.PullRequest{State: &state})
	return classify(fmt.Sprintf("reopen %s#%d", repo, number), err)
}
