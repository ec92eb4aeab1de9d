package reconcile

import (
	"context"
	"errors"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// PullRequestReader reads one pull request: what RepollMergeable asks
// again. GitHubClient has it.
type PullRequestReader interface {
	GetPullRequest(ctx context.Context, repo string, number int) (githubapi.PullRequest, error)
}

// DigestReader is what FetchDigest reads from GitHub to build a pull
// request's digest: the pass's GitHubClient and `gallivant gatekeep`'s
// adapter both have it.
type DigestReader interface {
	PullRequestReader
	PullRequestFiles(ctx context.Context, repo string, number int) ([]string, error)
	Reviews(ctx context.Context, repo string, number int) ([]githubapi.Review, error)
	IssueComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
	ReviewComments(ctx context.Context, repo string, number int, since time.Time) ([]githubapi.Comment, error)
	GetChecks(ctx context.Context, repo, sha, base string) (githubapi.Checks, error)
	GetCommit(ctx context.Context, repo, sha string) (githubapi.CommitInfo, error)
}

// FetchDigest gathers what gatekeep judges about one pull request: the pull
// request, its files, the checks and statuses on its exact head with their
// required flags, its reviews, and comments updated since `since` (all when
// zero). A part GitHub refuses is recorded as unreadable in the digest
// rather than failing the whole digest; only the pull request itself, a
// rate limit or a cancelled context fail it.
func FetchDigest(ctx context.Context, c DigestReader, pr gatekeep.PR, since time.Time) (gatekeep.Digest, error) {
	p, err := c.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err != nil {
		return gatekeep.Digest{}, err
	}
	d := digestOf(p)
	fatal := func(err error) bool {
		var rl *githubapi.RateLimitedError
		return errors.As(err, &rl) || ctx.Err() != nil
	}
	if files, err := c.PullRequestFiles(ctx, pr.Repo, pr.Number); err == nil {
		d.Files, d.FilesKnown = files, true
	} else if fatal(err) {
		return d, err
	}
	if p.HeadSHA != "" {
		if ch, err := c.GetChecks(ctx, pr.Repo, p.HeadSHA, p.BaseRef); err == nil {
			d.Checks, d.ChecksKnown, d.Required, d.RequiredApprovals = checksOf(ch), true, ch.Required, ch.RequiredApprovals
		} else if fatal(err) {
			return d, err
		}
		if ci, err := c.GetCommit(ctx, pr.Repo, p.HeadSHA); err == nil {
			d.HeadCommittedAt = ci.CommittedAt
		} else if fatal(err) {
			return d, err
		}
	}
	if rs, err := c.Reviews(ctx, pr.Repo, pr.Number); err == nil {
		d.ReviewsKnown = true
		for _, r := range rs {
			d.Reviews = append(d.Reviews, gatekeep.Review{ID: r.ID, User: r.User, State: r.State, Body: r.Body, CommitID: r.CommitID, SubmittedAt: r.SubmittedAt})
		}
	} else if fatal(err) {
		return d, err
	}
	for _, inline := range []bool{false, true} {
		list := c.IssueComments
		if inline {
			list = c.ReviewComments
		}
		cs, err := list(ctx, pr.Repo, pr.Number, since)
		if err != nil {
			if fatal(err) {
				return d, err
			}
			d.ReviewsKnown = false
			continue
		}
		for _, cm := range cs {
			d.Comments = append(d.Comments, gatekeep.Comment{ID: cm.ID, User: cm.User, Body: cm.Body, Inline: inline, Path: cm.Path, Line: cm.Line,
				ReviewID: cm.ReviewID, UpdatedAt: cm.UpdatedAt})
		}
	}
	return d, nil
}

// digestOf converts the pull request itself.
func digestOf(p githubapi.PullRequest) gatekeep.Digest {
	return gatekeep.Digest{Repo: p.Repo, Number: p.Number, State: p.State, Merged: p.Merged, MergeCommit: p.MergeCommitSHA,
		Draft: p.Draft, Title: p.Title, Body: p.Body, Author: p.Author, HeadRef: p.HeadRef, HeadRepo: p.HeadRepo, MaintainerCanModify: p.MaintainerCanModify, HeadSHA: p.HeadSHA,
		BaseRef: p.BaseRef, BaseSHA: p.BaseSHA, Mergeable: p.Mergeable, MergeState: p.MergeableState, Labels: p.Labels}
}

// checksOf flattens check runs and commit statuses, marking the ones the
// base branch requires.
func checksOf(ch githubapi.Checks) []gatekeep.Check {
	required := map[string]bool{}
	for _, r := range ch.Required {
		required[r] = true
	}
	var out []gatekeep.Check
	for _, r := range ch.Runs {
		out = append(out, gatekeep.Check{Name: r.Name, Kind: gatekeep.KindCheckRun, Status: r.Status, Conclusion: r.Conclusion, Required: required[r.Name], URL: r.URL})
	}
	for _, s := range ch.Statuses {
		out = append(out, gatekeep.StatusCheck(s.Context, s.State, s.URL, required[s.Context]))
	}
	return out
}
