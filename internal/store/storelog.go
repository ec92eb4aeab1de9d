package store

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5/plumbing"
)

// The log walk (multiLog, logpaths.go) follows history like `git log --
// p`: a commit is shown when the entry at p differs from that of each of
// its parents (a merge that took p unchanged from one parent is not
// shown). Store.Log is that walk for one path, HistoryReader.Logs for
// many. Commits are read for their tree, parents and date only, and
// decoded in full only when shown; objects come through gitpack.Reader,
// not go-git's object storage (which made up most of the walk's cost).

// logCommit is what the walk needs of a commit: its tree, parents and
// committer date.
type logCommit struct {
	hash    plumbing.Hash
	tree    plumbing.Hash
	parents []plumbing.Hash
	when    int64 // committer date, Unix seconds
}

// readLogCommit reads h's header lines up to the committer.
func readLogCommit(objs *gitpack.Reader, h plumbing.Hash) (*logCommit, error) {
	typ, raw, err := objs.Read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.CommitObject {
		return nil, fmt.Errorf("object %s is a %s, not a commit", h, typ)
	}
	c := &logCommit{hash: h}
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			c.tree = plumbing.NewHash(string(val))
		case "parent":
			c.parents = append(c.parents, plumbing.NewHash(string(val)))
		case "committer":
			// "Name <email> 1700000000 +0000": the date follows the last '>'.
			if i := bytes.LastIndexByte(val, '>'); i >= 0 {
				f := strings.Fields(string(val[i+1:]))
				if len(f) > 0 {
					c.when, _ = strconv.ParseInt(f[0], 10, 64)
				}
			}
			return c, nil
		case "":
			return c, nil // the message starts
		}
	}
	return c, nil
}
