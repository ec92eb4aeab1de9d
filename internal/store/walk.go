package store

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The one history walk: versionWalk reads commits and trees raw, through
// gitpack.Reader, for the tamper check (LoopVersions, the wanted paths
// only), for `check` (Checkout.LoopVersions) and for `verify` (History,
// every path, with diffAll below). `log` and the dashboard (multiLog,
// logpaths.go: Store.Log for one path, HistoryReader.Logs for many) read
// through the same reader, but follow merges as `git log -- path` does.

// treeChange is one non-directory entry that differs between two trees:
// its path, and its entries before and after (nil where absent).
type treeChange struct {
	path     string
	from, to *treeItem
}

// diffAll appends to out every non-directory entry under dir that differs
// between trees a and b (in id or mode), descending into every directory
// whose ids differ: the changes go-git's DiffTree lists, without decoding
// the trees.
func (w *versionWalk) diffAll(a, b plumbing.Hash, dir string, out *[]treeChange) error {
	if a == b {
		return nil
	}
	ra, rb, err := w.rawTrees(a, b)
	if err != nil {
		return err
	}
	var subs []treeSub
	var ea, eb treeItem
	haveA, haveB := false, false
	for {
		if !haveA && len(ra) > 0 {
			if ea, ra, err = nextEntry(ra); err != nil {
				return fmt.Errorf("tree %s: %w", short(a.String()), err)
			}
			haveA = true
		}
		if !haveB && len(rb) > 0 {
			if eb, rb, err = nextEntry(rb); err != nil {
				return fmt.Errorf("tree %s: %w", short(b.String()), err)
			}
			haveB = true
		}
		switch {
		case !haveA && !haveB:
			// Subdirectories are compared after this level is done
			// with the scratch buffers.
			for _, s := range subs {
				if err := w.diffAll(s.a, s.b, s.name, out); err != nil {
					return err
				}
			}
			return nil
		case !haveB || haveA && ea.name != eb.name && ea.key() < eb.key():
			changeAll(dir, &ea, nil, &subs, out)
			haveA = false
		case !haveA || ea.name != eb.name:
			changeAll(dir, nil, &eb, &subs, out)
			haveB = false
		default:
			changeAll(dir, &ea, &eb, &subs, out)
			haveA, haveB = false, false
		}
	}
}

// changeAll compares one name under dir, its entry ea in the first tree
// and eb in the second (nil where absent): a file that differs goes to
// out, a directory that differs to subs; a name that is a file on one side
// and a directory on the other is both. It keeps copies of the entries.
func changeAll(dir string, ea, eb *treeItem, subs *[]treeSub, out *[]treeChange) {
	if ea != nil && eb != nil && ea.id == eb.id && ea.mode == eb.mode {
		return
	}
	name := ""
	if ea != nil {
		name = ea.name
	} else {
		name = eb.name
	}
	full := name
	if dir != "" {
		full = dir + "/" + name
	}
	var sub treeSub
	var ch treeChange
	if ea != nil {
		if ea.dir {
			sub.a = ea.id
		} else {
			e := *ea
			ch.from = &e
		}
	}
	if eb != nil {
		if eb.dir {
			sub.b = eb.id
		} else {
			e := *eb
			ch.to = &e
		}
	}
	if !sub.a.IsZero() || !sub.b.IsZero() {
		sub.name = full
		*subs = append(*subs, sub)
	}
	if ch.from != nil || ch.to != nil {
		ch.path = full
		*out = append(*out, ch)
	}
}

// sortChanges orders changes as go-git's DiffTree does: by path, compared
// one component at a time (so a/b comes before a.md), except that where a
// name changes between file and directory, what was there is listed
// before what is there now.
func sortChanges(cs []treeChange) {
	slices.SortStableFunc(cs, func(x, y treeChange) int {
		px, py := strings.Split(x.path, "/"), strings.Split(y.path, "/")
		n := min(len(px), len(py))
		if c := slices.Compare(px[:n], py[:n]); c != 0 || len(px) == len(py) {
			return c
		}
		// One is under the other: a name that changed kind.
		switch {
		case x.to == nil && y.to != nil:
			return -1
		case y.to == nil && x.to != nil:
			return 1
		}
		return len(px) - len(py)
	})
}

// fullCommit decodes commit h in full: a commit History hands on.
func (w *versionWalk) fullCommit(h plumbing.Hash) (*object.Commit, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	typ, raw, err := w.objs.Read(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(h.String()), err)
	}
	if typ != plumbing.CommitObject {
		return nil, fmt.Errorf("object %s is a %s, not a commit", short(h.String()), typ)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	if _, err := obj.Write(raw); err != nil {
		return nil, err
	}
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return nil, fmt.Errorf("decode commit %s: %w", short(h.String()), err)
	}
	c.Hash = h
	return c, nil
}
