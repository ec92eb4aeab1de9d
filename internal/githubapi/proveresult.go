package githubapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/gatekeep"
)

// ProveReturn is what the member repository holds for a prove dispatch of
// head (gatekeep.ProveBranch): nothing, the branch gallivant created at
// head (the dispatch is out), or the workflow's result commit on it.
type ProveReturn struct {
	// Dispatched reports that the result branch exists.
	Dispatched bool
	// Tip is the result branch's head: head itself until the workflow
	// pushed its result.
	Tip string
	// Data is gatekeep.ProveFile at Tip, when Tip is not head and the file
	// is there and at most gatekeep.MaxProveResult bytes.
	Data []byte
	// Size is the file's size in bytes; -1 when Tip holds no such file.
	Size int
}

// Returned reports that the workflow pushed onto the result branch.
func (r ProveReturn) Returned(head string) bool { return r.Dispatched && r.Tip != head }

// ProveResult reads the result branch of the prove dispatch of head in
// repo, and the result file at its tip. The file is the workflow's,
// untrusted: the caller admits it strictly (gatekeep.AdmitProveResult).
func (g *Client) ProveResult(ctx context.Context, repo, head string) (ProveReturn, error) {
	branch := gatekeep.ProveBranch(head)
	tip, ok, err := g.BranchHead(ctx, repo, branch)
	if err != nil || !ok {
		return ProveReturn{}, err
	}
	out := ProveReturn{Dispatched: true, Tip: tip, Size: -1}
	if tip == head {
		return out, nil
	}
	o, n := splitRepo(repo)
	op := "read " + gatekeep.ProveFile + " of " + repo + " at " + branch
	fc, _, _, err := g.c.Repositories.GetContents(ctx, o, n, gatekeep.ProveFile, &github.RepositoryContentGetOptions{Ref: tip})
	if err != nil {
		err = classify(op, err)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			return out, nil
		}
		return ProveReturn{}, err
	}
	if fc == nil {
		return out, nil // a directory of that name: no result file
	}
	out.Size = fc.GetSize()
	if out.Size > gatekeep.MaxProveResult {
		return out, nil
	}
	content, err := fc.GetContent()
	if err != nil {
		return ProveReturn{}, fmt.Errorf("%s: %w", op, err)
	}
	out.Data = []byte(content)
	return out, nil
}

// DeleteBranch deletes a branch; one that is already gone is not an
// error.
func (g *Client) DeleteBranch(ctx context.Context, repo, branch string) error {
	o, n := splitRepo(repo)
	_, err := g.c.Git.DeleteRef(ctx, o, n, "heads/"+branch)
	if err == nil {
		return nil
	}
	err = classify("delete branch "+branch+" of "+repo, err)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	return err
}

// FileAt reads the file p of repo at ref; ok is false when there is no
// such file, and a file larger than limit bytes is an error. A learn
// task's return is read this way from the lessons branch of the control
// repository (docs/learning.md).
func (g *Client) FileAt(ctx context.Context, repo, p, ref string, limit int) (data []byte, ok bool, err error) {
	o, n := splitRepo(repo)
	op := "read " + p + " of " + repo + " at " + ref
	fc, _, _, err := g.c.Repositories.GetContents(ctx, o, n, p, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		err = classify(op, err)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if fc == nil {
		return nil, false, nil // a directory of that name
	}
	if fc.GetSize() > limit {
		return nil, true, fmt.Errorf("%s: %d bytes, over the %d read", op, fc.GetSize(), limit)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	return []byte(content), true, nil
}
