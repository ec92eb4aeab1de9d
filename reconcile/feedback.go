package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/ledger"
)

// feedbackReader is what collecting a delivered pull request's feedback
// reads from GitHub.
type feedbackReader interface {
	Reviews(ctx context.Context, repo string, number int) ([]githubapi.Review, error)
	IssueComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
	ReviewComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
}

// merged is the `loop: done` commit of a merged pull request, with the
// feedback its pushed rounds answered (docs/learning.md "Feedback of
// delivered work"): the rounds are read from the entry's own control
// history, their reviews' and comments' words from GitHub. A pull request
// merged without a round reads nothing more. When the history or GitHub
// cannot be read the merge is recorded all the same, and the commit says
// the feedback could not be read.
func (p *passState) merged(ctx context.Context, e *entry, pr gatekeep.PR, live githubapi.PullRequest) (*ledger.Ledger, ledger.Commit) {
	n, c := gatekeep.Merged(e.l, pr, live.MergeCommitSHA, live.BaseRef)
	if e.l.Delivery.Round == 0 {
		return n, c
	}
	entries, err := p.Store.Log(ctx, e.ledgerPath, 0)
	if err != nil {
		return n, gatekeep.WithFeedback(c, nil, "the control history: "+redact.URLs(err.Error()))
	}
	msgs := make([]string, 0, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		msgs = append(msgs, entries[i].Message)
	}
	rounds := gatekeep.RoundsOf(msgs, pr.Ref())
	if len(rounds) == 0 {
		return n, c
	}
	reviews, comments, err := readFeedback(ctx, p.GitHub, pr)
	if err != nil {
		return n, gatekeep.WithFeedback(c, nil, redact.URLs(err.Error()))
	}
	return n, gatekeep.WithFeedback(c, gatekeep.Candidates(rounds, pr, reviews, comments, githubapi.WebURL(p.cfg.GitHub.APIURL)), "")
}

// readFeedback reads every review, conversation comment and inline comment
// of pr.
func readFeedback(ctx context.Context, c feedbackReader, pr gatekeep.PR) ([]gatekeep.Review, []gatekeep.Comment, error) {
	rs, err := c.Reviews(ctx, pr.Repo, pr.Number)
	if err != nil {
		return nil, nil, fmt.Errorf("read the reviews of %s: %w", pr, err)
	}
	var reviews []gatekeep.Review
	for _, r := range rs {
		reviews = append(reviews, gatekeep.Review{ID: r.ID, User: r.User, State: r.State, Body: r.Body, CommitID: r.CommitID, SubmittedAt: r.SubmittedAt})
	}
	var comments []gatekeep.Comment
	for _, inline := range []bool{false, true} {
		list := c.IssueComments
		if inline {
			list = c.ReviewComments
		}
		cs, err := list(ctx, pr.Repo, pr.Number, time.Time{})
		if err != nil {
			return nil, nil, fmt.Errorf("read the comments of %s: %w", pr, err)
		}
		for _, cm := range cs {
			comments = append(comments, gatekeep.Comment{ID: cm.ID, User: cm.User, Body: cm.Body, Inline: inline, Path: cm.Path, Line: cm.Line, ReviewID: cm.ReviewID, UpdatedAt: cm.UpdatedAt})
		}
	}
	return reviews, comments, nil
}
