package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// SourceReader is the one reader of a spec's `sources:` files from the
// control repository at commit (specs.SourceReader): the pass, status and
// why, notify, the approved spec and the audit's seeds all read a source
// through it, so each sees the same bytes and records the same contract. A
// source is read as `gallivant check` reads a working file: a symlink is
// not followed and a file over parse.MaxSize bytes is refused, not cut.
func (s *Store) SourceReader(ctx context.Context, commit string) specs.SourceReader {
	return func(p string) ([]byte, bool, error) {
		h := plumbing.NewHash(commit)
		if s.isPending(h) {
			if err := s.flush(); err != nil {
				return nil, false, err
			}
		}
		c, err := s.repo.CommitObject(h)
		if err != nil {
			return nil, false, fmt.Errorf("read control commit %s: %w", short(commit), err)
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, false, fmt.Errorf("read control commit %s: %w", short(commit), err)
		}
		e, err := tree.FindEntry(p)
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		switch e.Mode {
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
		case filemode.Symlink:
			return nil, false, fmt.Errorf("symlinks are not followed: %s is a symlink", p)
		default:
			return nil, false, errors.New("not a regular file")
		}
		b, err := s.repo.BlobObject(e.Hash)
		if err != nil {
			return nil, false, fmt.Errorf("read %s: %w", p, err)
		}
		if b.Size > parse.MaxSize {
			return nil, false, fmt.Errorf("the file is over %d bytes, the limit of a control document", parse.MaxSize)
		}
		r, err := b.Reader()
		if err != nil {
			return nil, false, err
		}
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, parse.MaxSize+1))
		if err != nil {
			return nil, false, err
		}
		return data, true, nil
	}
}
