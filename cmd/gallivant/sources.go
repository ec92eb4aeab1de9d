package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// diskSources is the reader of a spec's `sources:` files for the commands
// that read a control repository's working files (check, gatekeep
// --control DIR): a source need not lie under a scanned directory. It
// bounds a source as reconcile's store.SourceReader does — a file over
// parse.MaxSize bytes is refused — and, like every read of check, follows
// no symlink.
func diskSources(root string) specs.SourceReader {
	return func(rel string) ([]byte, bool, error) {
		if link := symlinkIn(root, rel); link != "" {
			return nil, false, fmt.Errorf("symlinks are not followed: %s is a symlink", link)
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		st, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, unwrapPathErr(err)
		}
		if !st.Mode().IsRegular() {
			return nil, false, errors.New("not a regular file")
		}
		if st.Size() > parse.MaxSize {
			return nil, false, fmt.Errorf("the file is over %d bytes, the limit of a control document", parse.MaxSize)
		}
		f, err := os.Open(full)
		if err != nil {
			return nil, false, unwrapPathErr(err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, parse.MaxSize+1))
		if err != nil {
			return nil, false, unwrapPathErr(err)
		}
		if len(data) > parse.MaxSize {
			return nil, false, fmt.Errorf("the file is over %d bytes, the limit of a control document", parse.MaxSize)
		}
		return data, true, nil
	}
}
