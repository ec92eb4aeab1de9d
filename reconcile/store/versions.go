package store

import (
	"path"

	"github.com/gallivant/gallivant/ledger"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxTamperWalk bounds how far back a pass looks for the newest loop:
// version of its ledgers. A ledger no loop: commit changed within it (one
// written by another tool, or untouched for that long) is not compared.
const maxTamperWalk = 5000

// LedgerVersions says, per ledger path, which loop: commit last changed it
// and whether a commit without a loop: subject changed it after that.
type LedgerVersions struct {
	// Last maps a path to the newest loop: commit that changed it.
	Last map[string]string
	// Edited holds the paths a person's commit changed after Last.
	Edited map[string]bool
}

// LoopVersions walks the first-parent history back from the tip once, for
// all of paths together, until each has met its newest loop: commit (or
// after maxTamperWalk commits). It compares trees by hash, descending only
// into directories that changed, and decodes each tree once.
func (s *Store) LoopVersions(paths []string) (*LedgerVersions, error) {
	v := &LedgerVersions{Last: map[string]string{}, Edited: map[string]bool{}}
	open := map[string]bool{}
	dirs := map[string]bool{} // every directory holding a wanted path
	for _, p := range paths {
		open[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	tw := &treeWalk{repo: s.repo, dirs: dirs, cur: map[plumbing.Hash]*object.Tree{}}
	if err := s.flush(); err != nil { // the walk reads the pass's commits from disk
		return nil, err
	}
	c, err := s.repo.CommitObject(s.tip)
	if err != nil {
		return nil, err
	}
	for i := 0; i < maxTamperWalk && len(open) > 0; i++ {
		var parent *object.Commit
		ph := plumbing.ZeroHash
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				return nil, err
			}
			ph = parent.TreeHash
		}
		var changed []string
		if err := tw.diff(ph, c.TreeHash, "", &changed); err != nil {
			return nil, err
		}
		tw.step()
		loop := ledger.LoopAuthored(c.Message)
		for _, name := range changed {
			if !open[name] {
				continue
			}
			if loop {
				v.Last[name] = c.Hash.String()
				delete(open, name)
			} else {
				v.Edited[name] = true
			}
		}
		if parent == nil {
			break
		}
		c = parent
	}
	for p := range open {
		// No loop: version to compare with.
		delete(v.Edited, p)
	}
	return v, nil
}

// treeWalk compares trees of consecutive commits. A commit's tree is its
// child's parent tree, so the trees decoded for one step are kept for the
// next (prev) and then dropped.
type treeWalk struct {
	repo      *git.Repository
	dirs      map[string]bool
	prev, cur map[plumbing.Hash]*object.Tree
}

func (w *treeWalk) step() { w.prev, w.cur = w.cur, map[plumbing.Hash]*object.Tree{} }

func (w *treeWalk) tree(h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return &object.Tree{}, nil
	}
	if t, ok := w.cur[h]; ok {
		return t, nil
	}
	if t, ok := w.prev[h]; ok {
		w.cur[h] = t
		return t, nil
	}
	t, err := w.repo.TreeObject(h)
	if err != nil {
		return nil, err
	}
	w.cur[h] = t
	return t, nil
}

// diff appends to out the files under dir (wanted directories only) whose
// blob differs between trees a and b.
func (w *treeWalk) diff(a, b plumbing.Hash, dir string, out *[]string) error {
	if a == b {
		return nil
	}
	ta, err := w.tree(a)
	if err != nil {
		return err
	}
	tb, err := w.tree(b)
	if err != nil {
		return err
	}
	visit := func(ea, eb object.TreeEntry) error {
		if ea.Hash == eb.Hash && ea.Mode == eb.Mode {
			return nil
		}
		name := ea.Name
		if name == "" {
			name = eb.Name
		}
		full := path.Join(dir, name)
		if ea.Mode == filemode.Dir || eb.Mode == filemode.Dir {
			if !w.dirs[full] {
				return nil
			}
			ha, hb := ea.Hash, eb.Hash
			if ea.Mode != filemode.Dir {
				ha = plumbing.ZeroHash
			}
			if eb.Mode != filemode.Dir {
				hb = plumbing.ZeroHash
			}
			return w.diff(ha, hb, full, out)
		}
		*out = append(*out, full)
		return nil
	}
	// Both lists are in git's tree order, so one merge pass pairs them.
	i, j := 0, 0
	for i < len(ta.Entries) || j < len(tb.Entries) {
		var ea, eb object.TreeEntry
		switch {
		case j == len(tb.Entries):
			ea = ta.Entries[i]
			i++
		case i == len(ta.Entries):
			eb = tb.Entries[j]
			j++
		case ta.Entries[i].Name == tb.Entries[j].Name:
			ea, eb = ta.Entries[i], tb.Entries[j]
			i, j = i+1, j+1
		case treeKey(ta.Entries[i]) < treeKey(tb.Entries[j]):
			ea = ta.Entries[i]
			i++
		default:
			eb = tb.Entries[j]
			j++
		}
		if err := visit(ea, eb); err != nil {
			return err
		}
	}
	return nil
}

// treeKey is git's sort key of a tree entry: a directory sorts as name/.
func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
