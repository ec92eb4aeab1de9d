package githubapi

import (
	"context"
	"fmt"
	"net/http"
)

// Reaction is the closed set of reactions gallivant leaves on a comment
// it acted on (docs/requests.md): GitHub's reaction contents that it uses.
type Reaction string

// Reactions gallivant leaves.
const (
	// ReactionDone (+1) marks a command performed.
	ReactionDone Reaction = "+1"
	// ReactionRefused (confused) marks a command refused: malformed or
	// not accepted in the entry's state.
	ReactionRefused Reaction = "confused"
)

// ReactToComment leaves reaction on the issue comment id of repo
// (POST /repos/{owner}/{repo}/issues/comments/{id}/reactions). GitHub
// answers 201 for a new reaction and 200 with the one already there when
// gallivant's login left it before, so repeating it is harmless; created
// reports the 201.
func (g *Client) ReactToComment(ctx context.Context, repo string, id int64, reaction Reaction) (created bool, err error) {
	o, n := splitRepo(repo)
	_, resp, err := g.c.Reactions.CreateIssueCommentReaction(ctx, o, n, id, string(reaction))
	if err != nil {
		return false, classify(fmt.Sprintf("react %s to comment %d on %s", reaction, id, repo), err)
	}
	return resp.StatusCode == http.StatusCreated, nil
}
