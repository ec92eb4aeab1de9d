package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Checkout is a person's git work tree read in place for `gallivant
// check`: its history is walked by the same first-parent walk as the
// pass's tamper check (LoopVersions), and nothing is cloned, fetched or
// written.
type Checkout struct {
	repo *git.Repository
	top  string
	head plumbing.Hash
}

// OpenCheckout opens the git work tree that holds dir. ok is false when
// dir is in none, or its branch has no commit yet: there is no history to
// compare with.
func OpenCheckout(dir string) (c *Checkout, ok bool, err error) {
	repo, err := gitopen.PlainOpen(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("open the git repository of %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("open the work tree of %s: %w", dir, err)
	}
	head, err := repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	return &Checkout{repo: repo, top: wt.Filesystem.Root(), head: head.Hash()}, true, nil
}

// Top is the work tree's root directory.
func (c *Checkout) Top() string { return c.top }

// LoopVersions is Store.LoopVersions along HEAD's first-parent history,
// walked to the root (a checkout keeps no index between runs): paths are
// relative to Top, with slashes.
func (c *Checkout) LoopVersions(ctx context.Context, paths []string) (*LedgerVersions, error) {
	w := newVersionWalk(ctx, c.repo, paths)
	defer w.close()
	idx, err := w.fresh(c.head, w.wanted, math.MaxInt)
	if err != nil {
		return nil, err
	}
	return idx.versions(paths), nil
}

// Version reads file p at commit, and the commit's subject line; ok is
// false when the file is not there.
func (c *Checkout) Version(ctx context.Context, commit, p string) (data []byte, subject string, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, "", false, err
	}
	co, err := c.repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, "", false, fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	subject, _, _ = strings.Cut(co.Message, "\n")
	data, ok, err = readFileAt(c.repo, commit, p)
	return data, subject, ok, err
}
