package githubapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// ErrMergeConflict reports that GitHub could not merge the base into a
// pull request's head branch because they conflict.
var ErrMergeConflict = errors.New("the base and the head branch conflict")

// ErrHeadMoved reports that GitHub refused an update-branch because the
// pull request's head is no longer the expected head (422 "expected head
// sha didn't match current head ref"): a push, or a background
// update-branch GitHub had accepted earlier, landed after the head was
// read.
var ErrHeadMoved = errors.New("the head branch moved since it was read")

// UpdateBranch asks GitHub to merge the base branch into a pull request's
// head branch (a merge commit, never a rebase), only if the head is still
// expectedHead. GitHub answers 202 and performs the merge; a conflict is
// ErrMergeConflict, a head other than expectedHead ErrHeadMoved.
func (g *Client) UpdateBranch(ctx context.Context, repo string, number int, expectedHead string) error {
	o, n := splitRepo(repo)
	_, _, err := g.c.PullRequests.UpdateBranch(ctx, o, n, number, &github.PullRequestBranchUpdateOptions{ExpectedHeadSHA: &expectedHead})
	var accepted *github.AcceptedError
	if err == nil || errors.As(err, &accepted) {
		return nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity {
		switch msg := strings.ToLower(er.Message); {
		case strings.Contains(msg, "conflict"):
			return fmt.Errorf("merge the base into %s#%d: %w", repo, number, ErrMergeConflict)
		case strings.Contains(msg, "expected head sha"):
			return fmt.Errorf("merge the base into %s#%d: %w", repo, number, ErrHeadMoved)
		}
	}
	return classify(fmt.Sprintf("merge the base into %s#%d", repo, number), err)
}

// ReopenPullRequest reopens a closed pull request. GitHub refuses (422)
// when the head branch was deleted or rewritten since it closed.
func (g *Client) ReopenPullRequest(ctx context.Context, repo string, number int) error {
	o, n := splitRepo(repo)
	state := "open"
	_, _, err := g.c.PullRequests.Edit(ctx, o, n, number, &github.PullRequest{State: &state})
	return classify(fmt.Sprintf("reopen %s#%d", repo, number), err)
}

// MarkReadyForReview converts a draft pull request into one ready for
// review. GitHub offers this only through GraphQL (the
// markPullRequestReadyForReview mutation): POST /graphql on github.com,
// /api/graphql on GitHub Enterprise, beside the REST base URL.
func (g *Client) MarkReadyForReview(ctx context.Context, repo string, number int, nodeID string) error {
	op := fmt.Sprintf("mark %s#%d ready for review", repo, number)
	if nodeID == "" {
		return fmt.Errorf("%s: the pull request's node id is unknown", op)
	}
	body, _ := json.Marshal(map[string]any{
		"query":     "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
		"variables": map[string]string{"id": nodeID},
	})
	req, err := g.c.NewRequest(http.MethodPost, graphQLURL(g.c.BaseURL.String()), json.RawMessage(body))
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var out struct {
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	var buf bytes.Buffer
	if _, err := g.c.Do(ctx, req, &buf); err != nil {
		return classify(op, err)
	}
	if err := json.NewDecoder(io.LimitReader(&buf, 1<<20)).Decode(&out); err != nil {
		return fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(out.Errors) > 0 {
		return fmt.Errorf("%s: %s", op, out.Errors[0].Message)
	}
	return nil
}

// graphQLURL is the GraphQL endpoint beside a REST base URL.
func graphQLURL(rest string) string {
	if strings.HasSuffix(rest, "/api/v3/") {
		return strings.TrimSuffix(rest, "v3/") + "graphql"
	}
	return rest + "graphql"
}
