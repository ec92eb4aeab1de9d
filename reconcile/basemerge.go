package reconcile

import (
	"context"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// observeMove reads what the first look needs about a live head that is
// not the recorded head old (gatekeep.HeadMove): GitHub's comparison from
// old, the new head commit's parents and subject, and — when the new head
// is a merge commit — the base branch's head, so that gatekeep.IsBaseMerge
// can tell gallivant's own update-branch merge from a look-alike. GitHub
// runs update-branch in the background, so the merge gallivant asked for
// usually lands after its answer and is first seen on a later pass.
func (p *passState) observeMove(ctx context.Context, pr gatekeep.PR, old string, live githubapi.PullRequest) (gatekeep.HeadMove, error) {
	// The head's commits are in the head repository: an adopted fork's
	// (adoptfork.go), else the pull request's own.
	headRepo := pr.Repo
	if live.HeadRepo != "" {
		headRepo = live.HeadRepo
	}
	cmp, err := p.GitHub.Compare(ctx, headRepo, old, live.HeadSHA)
	if err != nil {
		return gatekeep.HeadMove{}, err
	}
	// A force-push of unrelated history is a rewrite too: GitHub cannot
	// compare it at all (CompareUnrelated).
	m := gatekeep.HeadMove{Contains: cmp.Status == githubapi.CompareAhead}
	if !m.Contains || len(cmp.Commits) == 0 {
		return m, nil
	}
	last := cmp.Commits[len(cmp.Commits)-1]
	if last.SHA != live.HeadSHA {
		return m, nil
	}
	m.Parents, m.Subject = last.Parents, last.Subject
	if len(m.Parents) == 2 {
		base, ok, err := p.GitHub.BranchHead(ctx, pr.Repo, live.BaseRef)
		if err != nil {
			return gatekeep.HeadMove{}, err
		}
		if ok {
			m.BaseHead = base
		}
	}
	return m, nil
}
