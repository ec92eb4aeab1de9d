package githubapi

import (
	"context"
	"errors"
	"strings"

	"github.com/google/go-github/v66/github"
)

// MatchingBranches returns every branch whose name starts with prefix and
// its head, from GitHub's matching-refs endpoint: one conditional request
// per 100 branches, free of rate limit when nothing moved.
func (g *Client) MatchingBranches(ctx context.Context, repo, prefix string) (map[string]string, error) {
	o, n := splitRepo(repo)
	refs, err := readPages("list branches "+prefix+"* of "+repo, func(page int) ([]*github.Reference, *github.Response, error) {
		return g.c.Git.ListMatchingRefs(ctx, o, n, &github.ReferenceListOptions{Ref: "heads/" + prefix, ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	}, nil)
	if err != nil {
		var nf *NotFoundError
		if errors.As(err, &nf) {
			// Matching no branch is an empty list, not a 404: the
			// repository is what is missing, unless it answers now.
			if merr := g.repoMissing(ctx, repo); merr != nil {
				return nil, merr
			}
		}
		return nil, err
	}
	g.sawRepo(repo)
	out := make(map[string]string, len(refs))
	for _, r := range refs {
		// GitHub matches a prefix of the full name; keep exactly the
		// branches under it.
		if b, ok := strings.CutPrefix(r.GetRef(), "refs/heads/"); ok && strings.HasPrefix(b, prefix) {
			out[b] = r.GetObject().GetSHA()
		}
	}
	return out, nil
}
