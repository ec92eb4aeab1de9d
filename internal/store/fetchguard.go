package store

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// DefaultMaxObject bounds, when Options.MaxObject is 0, the size of any
// file in the control repository's history that a fetch accepts: far above
// any document (parse.MaxSize) so that a picture or a generated file in
// the repository is no problem, and far below what would exhaust a
// runner's memory.
const DefaultMaxObject = 64 << 20

// ErrObjectTooLarge matches a fetch refused because the control
// repository holds a file over the limit (a *gitpack.TooLargeError says
// which, its size and the limit).
var ErrObjectTooLarge = errors.New("the control repository holds a file over the size limit")

// guardedStorage is the clone's storage with incoming packs scanned
// before they are kept: go-git's fetch has no size filter, and its pack
// parser holds each object whole, so a 1 GB file took a fetch to 3.1 GB
// (issue 33).
type guardedStorage struct {
	*filesystem.Storage
	dir   string
	limit int64
}

// PackfileWriter is the storage's own, behind gitpack.Guard.
func (g *guardedStorage) PackfileWriter() (io.WriteCloser, error) {
	dir := filepath.Join(g.dir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return gitpack.Guard(dir, g.limit, g.Storage.PackfileWriter)
}

// fetchRepo is the clone as a fetch should write into it: through
// guardedStorage when the clone is on disk.
func (s *Store) fetchRepo() *git.Repository {
	fsys, ok := s.repo.Storer.(*filesystem.Storage)
	if !ok {
		return s.repo
	}
	repo, err := git.Open(&guardedStorage{Storage: fsys, dir: s.dir, limit: s.maxObject}, nil)
	if err != nil {
		return s.repo
	}
	return repo
}

// tooLarge wraps a refusal so that ErrObjectTooLarge matches it.
func tooLarge(err error) error {
	var tl *gitpack.TooLargeError
	if !errors.As(err, &tl) {
		return nil
	}
	return &tooLargeError{tl}
}

type tooLargeError struct{ *gitpack.TooLargeError }

func (e *tooLargeError) Is(target error) bool { return target == ErrObjectTooLarge }
func (e *tooLargeError) Unwrap() error        { return e.TooLargeError }
