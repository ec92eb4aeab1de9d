package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// commandReaction is the reaction gallivant leaves on a command it
// answers (docs/requests.md): +1 when the command was performed (now, or
// by an earlier pass whose answer a crash interrupted), confused when it
// was refused. A command it does not answer gets none.
func commandReaction(step gatekeep.CommandStep) (githubapi.Reaction, bool) {
	switch step {
	case gatekeep.CommandApply, gatekeep.CommandAnswer:
		return githubapi.ReactionDone, true
	case gatekeep.CommandRefuse:
		return githubapi.ReactionRefused, true
	}
	return "", false
}

// reactToCommand leaves the command's reaction before its answer is
// posted, so that a pass that dies between the two reacts again (GitHub
// keeps one reaction per login and content) and then answers. GitHub has
// no reactions on a review's body: a command in a review gets the answer
// only. A failed reaction is a note; the answer is still posted.
func (p *passState) reactToCommand(ctx context.Context, e *entry, pr gatekeep.PR, c postedCommand, step gatekeep.CommandStep) {
	reaction, ok := commandReaction(step)
	if !ok || c.review {
		return
	}
	if _, err := p.GitHub.ReactToComment(ctx, pr.Repo, c.id, reaction); err != nil {
		p.note(e.specPath, true, "the %s reaction to comment %d on %s failed: %v", reaction, c.id, pr, err)
	}
}
