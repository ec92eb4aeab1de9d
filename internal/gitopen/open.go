// Package gitopen opens go-git repositories whose pack indexes are read
// through a buffer (Storage): what go-git does on its own costs a read call
// per four bytes of an index. The store, the executor and the GitHub
// stand-in open their repositories through it.
package gitopen

import (
	"bufio"
	"io/fs"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// idxBufferSize is the read buffer of a pack index: an index of a pack of
// a few hundred objects is read with one read call.
const idxBufferSize = 32 << 10

// Storage is filesystem.NewStorageWithOptions over dotgit, except that
// each pack index (objects/pack/*.idx) is read through a buffer.
//
// go-git decodes an index straight from the file: four bytes per read call
// for each of the 256 entries of its fan-out table, then one call per
// fan-out bucket for each of the names, the CRCs and the offsets. It reads
// every index of a repository on its first object lookup and again after
// each Reindex; the tests of the reconcile package spent 8% of their own
// CPU time in those calls. Buffered, an index costs an open, a stat and a
// read or two.
func Storage(dotgit billy.Filesystem, c cache.Object, o filesystem.Options) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(idxBuffered{dotgit}, c, o)
}

// PlainOpen is git.PlainOpenWithOptions with the object storage of
// Storage: the same repository, work tree and configuration, with
// buffered pack index reads.
func PlainOpen(path string, o *git.PlainOpenOptions) (*git.Repository, error) {
	if o == nil {
		o = &git.PlainOpenOptions{}
	}
	repo, err := git.PlainOpenWithOptions(path, o)
	if err != nil {
		return nil, err
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return repo, nil
	}
	var wt billy.Filesystem
	if w, err := repo.Worktree(); err == nil {
		wt = w.Filesystem
	}
	// What PlainOpenWithOptions builds, over the same file systems.
	return git.Open(Storage(st.Filesystem(), cache.NewObjectLRUDefault(), filesystem.Options{}), wt)
}

// idxBuffered is a billy.Filesystem whose pack index files read through a
// buffer; everything else is the wrapped file system's.
type idxBuffered struct {
	billy.Filesystem
}

// Open opens name; a pack index is read through a buffer. go-git only
// decodes an index front to back, the one use Read serves.
func (f idxBuffered) Open(name string) (billy.File, error) {
	file, err := f.Filesystem.Open(name)
	if err != nil || !strings.HasSuffix(name, ".idx") {
		return file, err
	}
	b := &bufferedFile{File: file, r: bufio.NewReaderSize(file, idxBufferSize)}
	if s, ok := file.(statter); ok {
		// go-git's index decoder checks the file's size against its
		// fan-out table before it allocates the table's entries.
		return statBufferedFile{b, s}, nil
	}
	return b, nil
}

// statter is a file that says its size, as an *os.File does.
type statter interface {
	Stat() (fs.FileInfo, error)
}

// bufferedFile is a billy.File whose Read goes through a buffer. Its Seek
// and ReadAt would disagree with Read's position, so it is only handed to
// a reader that reads sequentially (Open's pack indexes).
type bufferedFile struct {
	billy.File
	r *bufio.Reader
}

func (b *bufferedFile) Read(p []byte) (int, error) { return b.r.Read(p) }

// statBufferedFile is a bufferedFile that keeps its file's Stat.
type statBufferedFile struct {
	*bufferedFile
	statter
}
