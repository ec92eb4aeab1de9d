package githubapi

import (
	"context"
	"errors"
	"fmt"
)

// RepoNotFoundError reports a repository GitHub answers 404 for: it does
// not exist, or the token cannot see it (GitHub hides private
// repositories from tokens without access the same way). A branch read
// returns it instead of "no such branch", so a misspelt repository is not
// reported as a missing base branch.
type RepoNotFoundError struct {
	// Repo is the repository as owner/name.
	Repo string
}

func (e *RepoNotFoundError) Error() string {
	return fmt.Sprintf("repository %s does not exist or the token cannot see it", e.Repo)
}

// Is makes every RepoNotFoundError also a NotFoundError for callers that
// only care that GitHub had nothing.
func (e *RepoNotFoundError) Is(target error) bool {
	_, ok := target.(*NotFoundError)
	return ok
}

// repoMissing tells, after a 404 for something inside repo, whether the
// repository itself is what GitHub does not have. A repository once seen
// is remembered for the adapter's life, so a missing branch of a known
// repository costs no further request.
func (g *Client) repoMissing(ctx context.Context, repo string) error {
	g.mu.Lock()
	seen := g.seenRepos[repo]
	g.mu.Unlock()
	if seen {
		return nil
	}
	o, n := splitRepo(repo)
	_, _, err := g.c.Repositories.Get(ctx, o, n)
	if err != nil {
		err = classify("read repository "+repo, err)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			return &RepoNotFoundError{Repo: repo}
		}
		return err
	}
	g.sawRepo(repo)
	return nil
}

// sawRepo remembers that repo exists and the token can see it.
func (g *Client) sawRepo(repo string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seenRepos == nil {
		g.seenRepos = map[string]bool{}
	}
	g.seenRepos[repo] = true
}
