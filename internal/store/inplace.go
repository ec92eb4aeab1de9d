package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A control repository used in place (a checkout without a remote) is a
// person's working copy too. gallivant plans from its committed tree only,
// reports edits that are not committed, and after a pass updates exactly the
// files its commits changed — never one a person has modified, and never by
// resetting the whole tree — so nothing of a person's is lost.

// DirtyFilesError refuses to update a checkout whose files the pass changed
// and a person modified too; Paths names them.
type DirtyFilesError struct{ Paths []string }

func (e *DirtyFilesError) Error() string {
	return fmt.Sprintf("the control checkout has uncommitted changes to %s, which this pass also changed; commit or stash them, and the next pass records its transitions again",
		strings.Join(e.Paths, ", "))
}

// Is makes errors.Is(err, ErrDirtyCheckout) true.
func (e *DirtyFilesError) Is(target error) bool { return target == ErrDirtyCheckout }

// Uncommitted lists the files of an in-place control checkout that differ
// from its committed tree (staged or not; untracked files are not listed):
// a pass does not see them. It is empty for a cache clone.
func (s *Store) Uncommitted() []string {
	if !s.inPlace || !s.worktree {
		return nil
	}
	wt, err := s.repo.Worktree()
	if err != nil {
		return nil
	}
	st, err := wt.Status()
	if err != nil {
		return nil
	}
	var out []string
	for p, fs := range st {
		if fs.Worktree == git.Untracked && fs.Staging == git.Untracked {
			continue
		}
		if fs.Worktree != git.Unmodified || fs.Staging != git.Unmodified {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// changedPaths lists the files that differ between two commits.
func (s *Store) changedPaths(from, to plumbing.Hash) ([]string, error) {
	a, err := s.repo.CommitObject(from)
	if err != nil {
		return nil, err
	}
	b, err := s.repo.CommitObject(to)
	if err != nil {
		return nil, err
	}
	ta, err := a.Tree()
	if err != nil {
		return nil, err
	}
	tb, err := b.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range changes {
		name := c.To.Name
		if name == "" {
			name = c.From.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// personChanged reports whether the work tree's copy of p differs from its
// content at the head the pass planned from: a person's edit.
func (s *Store) personChanged(ctx context.Context, p string) (bool, error) {
	was, existed, err := s.ReadFile(ctx, s.head.String(), p)
	if err != nil {
		return false, err
	}
	now, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(p)))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return existed, nil
	case err != nil:
		return false, err
	}
	return !existed || !bytes.Equal(now, was), nil
}

// checkInPlace refuses when a file the pass changed was also modified by a
// person in the work tree.
func (s *Store) checkInPlace(ctx context.Context, paths []string) error {
	var dirty []string
	for _, p := range paths {
		changed, err := s.personChanged(ctx, p)
		if err != nil {
			return err
		}
		if changed {
			dirty = append(dirty, p)
		}
	}
	if len(dirty) > 0 {
		return &DirtyFilesError{Paths: dirty}
	}
	return nil
}

// updateInPlace writes the tip's version of each path into the work tree
// (written aside and renamed, so a reader never sees half a file) and
// stages it, touching no other file. A file a person modified since the
// check is left alone and named.
func (s *Store) updateInPlace(ctx context.Context, paths []string) error {
	wt, err := s.repo.Worktree()
	if err != nil {
		return err
	}
	var skipped []string
	for _, p := range paths {
		changed, err := s.personChanged(ctx, p)
		if err != nil {
			return err
		}
		if changed {
			skipped = append(skipped, p)
			continue
		}
		full := filepath.Join(s.dir, filepath.FromSlash(p))
		data, ok, err := s.ReadFile(ctx, s.tip.String(), p)
		if err != nil {
			return err
		}
		if !ok {
			if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			tmp := full + ".gallivant-tmp"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			if err := os.Rename(tmp, full); err != nil {
				return err
			}
		}
		if _, err := wt.Add(p); err != nil {
			return fmt.Errorf("stage %s: %w", p, err)
		}
	}
	if len(skipped) > 0 {
		return &DirtyFilesError{Paths: skipped}
	}
	return nil
}
