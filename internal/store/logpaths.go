package store

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/gallivant/gallivant/internal/gitpack"
)

// HistoryReader reads the control history as it stood at one commit,
// through its own handles on the repository's pack files, so that a walk
// may run while passes go on writing the store (the daemon's dashboard
// reads every ledger's history outside its pass slot). Objects are
// immutable and a pass only adds packs, so what the reader opened stays
// whole; a cache deleted under it makes its walk fail, never a pass.
type HistoryReader struct {
	objs  *gitpack.Reader
	tip   plumbing.Hash
	close func()
}

// HistoryAt returns a reader of the history at the tip. It flushes the
// pass's objects, so it must be called where no pass writes the store
// (the daemon's pass slot); the reader itself may be used anywhere, by
// one goroutine at a time. Close releases its files.
func (s *Store) HistoryAt() (*HistoryReader, error) {
	if err := s.flush(); err != nil { // the walk starts at the tip, which may be in memory
		return nil, err
	}
	repo, done := s.historyRepo()
	if repo == s.repo {
		// Not a handle of its own: a walk would share the pass's storage.
		return nil, fmt.Errorf("open the control history at %s for reading: the repository in %s cannot be opened a second time", short(s.tip.String()), s.dir)
	}
	objs := gitpack.NewReader(repo.Storer, 0)
	return &HistoryReader{objs: objs, tip: s.tip, close: func() { objs.Close(); done() }}, nil
}

// Commit is the commit the reader reads the history of.
func (h *HistoryReader) Commit() string { return h.tip.String() }

// Close releases the reader's files.
func (h *HistoryReader) Close() {
	if h.close != nil {
		h.close()
		h.close = nil
	}
}

// Logs returns, for each of paths, the commits that changed it, newest
// first, at most limit of them (limit <= 0: all): Store.Log of every path
// in one walk of the history instead of one walk per path. Each path's
// list is what Log returns for it, with the same history simplification;
// only commits with equal committer times on different sides of a merge
// may be listed in another order. A path no commit touched has no key.
// A ctx that ends stops the walk with its error.
func (h *HistoryReader) Logs(ctx context.Context, paths []string, limit int) (map[string][]LogEntry, error) {
	return logs(ctx, h.objs, h.tip, paths, limit)
}

// logs walks the history of tip once for paths (HistoryReader.Logs).
func logs(ctx context.Context, objs *gitpack.Reader, tip plumbing.Hash, paths []string, limit int) (map[string][]LogEntry, error) {
	out := map[string][]LogEntry{}
	if len(paths) == 0 {
		return out, nil
	}
	w := &multiLog{objs: objs, limit: limit, out: out, root: &pathTrie{}, words: (len(paths) + 63) / 64,
		nodes: map[plumbing.Hash]*logNode{}, shown: map[plumbing.Hash]LogEntry{}}
	for i, p := range paths {
		w.root.add(strings.Split(strings.Trim(p, "/"), "/"), i)
		w.names = append(w.names, p)
	}
	w.count = make([]int, len(paths))
	w.active = len(paths)
	if err := w.walk(ctx, tip); err != nil {
		return nil, err
	}
	return out, nil
}

// multiLog is one walk of the history for many paths. Every path keeps
// its own history simplification, as `git log -- p` does for one: a commit is
// visited for the paths whose simplified history reaches it (pending),
// and each (commit, path) once (done), however many children lead there.
// Whether a path changed between a commit and a parent comes from one
// diff of their trees for all paths, which compares raw tree entries and
// descends only into differing directories that hold a tracked path, so
// a commit costs what it changed, not the number of paths.
type multiLog struct {
	objs  *gitpack.Reader
	names []string
	root  *pathTrie
	limit int
	count []int
	// active counts the paths still short of limit.
	active int
	out    map[string][]LogEntry
	nodes  map[plumbing.Hash]*logNode
	shown  map[plumbing.Hash]LogEntry
	q      nodeQueue
	words  int
	// bufs hold two raw trees per depth of a diff.
	bufs [][2][]byte
}

// pathTrie is the tracked paths by directory: leaves are the indexes of
// the paths that end here (the entry is this node's), children the
// names below it that lead to one.
type pathTrie struct {
	leaves   []int
	children map[string]*pathTrie
}

func (t *pathTrie) add(parts []string, i int) {
	for _, name := range parts {
		if t.children == nil {
			t.children = map[string]*pathTrie{}
		}
		c, ok := t.children[name]
		if !ok {
			c = &pathTrie{}
			t.children[name] = c
		}
		t = c
	}
	t.leaves = append(t.leaves, i)
}

// logNode is a commit in the walk with the paths it is pending and done
// for (bit sets over multiLog.names).
type logNode struct {
	c       *logCommit
	pending []uint64
	done    []uint64
	inQueue bool
}

func bitHas(set []uint64, i int) bool { return set[i/64]&(1<<(i%64)) != 0 }
func bitSet(set []uint64, i int)      { set[i/64] |= 1 << (i % 64) }

func (w *multiLog) node(h plumbing.Hash) (*logNode, error) {
	if n, ok := w.nodes[h]; ok {
		return n, nil
	}
	c, err := readLogCommit(w.objs, h)
	if err != nil {
		return nil, err
	}
	n := &logNode{c: c, pending: make([]uint64, w.words), done: make([]uint64, w.words)}
	w.nodes[h] = n
	return n, nil
}

// mark makes n pending for path i unless it was visited for it already.
func (w *multiLog) mark(n *logNode, i int) {
	if bitHas(n.done, i) || bitHas(n.pending, i) {
		return
	}
	bitSet(n.pending, i)
	if !n.inQueue {
		n.inQueue = true
		heap.Push(&w.q, n)
	}
}

// rawEntries reads tree h's raw entries into buf (the object cache
// recycles what it returns); a zero id or an object that is not a tree
// has none: nothing lives under it.
func (w *multiLog) rawEntries(h plumbing.Hash, buf []byte) ([]byte, error) {
	if h.IsZero() {
		return buf[:0], nil
	}
	typ, raw, err := w.objs.Read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.TreeObject {
		return buf[:0], nil
	}
	return append(buf[:0], raw...), nil
}

// treeLine is one entry of a raw tree ("<mode> <name>\0<20-byte id>").
type treeLine struct {
	whole []byte
	name  []byte
	dir   bool
	id    plumbing.Hash
}

func splitLine(raw []byte, tree plumbing.Hash) (e treeLine, rest []byte, err error) {
	sp := bytes.IndexByte(raw, ' ')
	nul := bytes.IndexByte(raw, 0)
	if sp < 0 || nul < sp || len(raw) < nul+21 {
		return e, nil, errors.New("malformed tree " + tree.String())
	}
	e.whole = raw[:nul+21]
	e.name = raw[sp+1 : nul]
	e.dir = string(raw[:sp]) == "40000"
	copy(e.id[:], raw[nul+1:nul+21])
	return e, raw[nul+21:], nil
}

// keyCmp orders entries as git sorts a tree: by name, a directory's name
// followed by a slash.
func keyCmp(a, b treeLine) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	at := func(e treeLine) int {
		switch {
		case n < len(e.name):
			return int(e.name[n])
		case e.dir:
			return '/'
		}
		return -1 // the key ends
	}
	ca, cb := at(a), at(b)
	switch {
	case ca != cb:
		return ca - cb
	case ca == -1:
		return 0
	case n == len(a.name): // a's key ends with its slash; b's goes on
		return -1
	case n == len(b.name):
		return 1
	}
	return 0
}

// diff sets in out the tracked paths under t whose entry differs between
// trees a and b (either may be zero: no tree); depth is t's, for the
// walk's buffers.
func (w *multiLog) diff(a, b plumbing.Hash, t *pathTrie, depth int, out []uint64) error {
	if a == b {
		return nil
	}
	for _, i := range t.leaves {
		bitSet(out, i)
	}
	if len(t.children) == 0 {
		return nil
	}
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, [2][]byte{})
	}
	ra, err := w.rawEntries(a, w.bufs[depth][0])
	if err != nil {
		return err
	}
	w.bufs[depth][0] = ra
	rb, err := w.rawEntries(b, w.bufs[depth][1])
	if err != nil {
		return err
	}
	w.bufs[depth][1] = rb
	// Both lists are sorted: walk them side by side, skip the entries
	// that are byte for byte the same, and note the tracked names of the
	// others with their id on each side.
	type ids struct{ a, b plumbing.Hash }
	var changed map[string]*ids
	note := func(e treeLine, side int) {
		if t.children[string(e.name)] == nil {
			return
		}
		if changed == nil {
			changed = map[string]*ids{}
		}
		c := changed[string(e.name)]
		if c == nil {
			c = &ids{}
			changed[string(e.name)] = c
		}
		if side == 0 {
			c.a = e.id
		} else {
			c.b = e.id
		}
	}
	var ea, eb treeLine
	haveA, haveB := false, false
	for {
		if !haveA && len(ra) > 0 {
			if ea, ra, err = splitLine(ra, a); err != nil {
				return err
			}
			haveA = true
		}
		if !haveB && len(rb) > 0 {
			if eb, rb, err = splitLine(rb, b); err != nil {
				return err
			}
			haveB = true
		}
		if !haveA && !haveB {
			break
		}
		c := 0
		switch {
		case !haveB:
			c = -1
		case !haveA:
			c = 1
		case bytes.Equal(ea.whole, eb.whole):
			haveA, haveB = false, false
			continue
		default:
			c = keyCmp(ea, eb)
		}
		if c <= 0 {
			note(ea, 0)
			haveA = false
		}
		if c >= 0 {
			note(eb, 1)
			haveB = false
		}
	}
	// The buffers of this depth are free again: the deeper diffs use
	// their own.
	for name, c := range changed {
		if c.a != c.b {
			if err := w.diff(c.a, c.b, t.children[name], depth+1, out); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *multiLog) walk(ctx context.Context, tip plumbing.Hash) error {
	n, err := w.node(tip)
	if err != nil {
		return err
	}
	for i := range w.names {
		w.mark(n, i)
	}
	for w.q.Len() > 0 && w.active > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := heap.Pop(&w.q).(*logNode)
		n.inQueue = false
		if err := w.visit(n); err != nil {
			return err
		}
	}
	return nil
}

// visit is the walk's step at n for every path n is pending for: a
// path's commit is shown when it changes the path against every parent;
// at a merge that took the path unchanged from one parent, only that
// parent is followed for it.
func (w *multiLog) visit(n *logNode) error {
	pending := n.pending
	n.pending = make([]uint64, w.words)
	parents := make([]*logNode, len(n.c.parents))
	diffs := make([][]uint64, max(len(n.c.parents), 1))
	for k, ph := range n.c.parents {
		pn, err := w.node(ph)
		if err != nil {
			return err
		}
		parents[k] = pn
		diffs[k] = make([]uint64, w.words)
		if err := w.diff(n.c.tree, pn.c.tree, w.root, 0, diffs[k]); err != nil {
			return err
		}
	}
	if len(parents) == 0 { // a root commit shows the paths it holds
		diffs[0] = make([]uint64, w.words)
		if err := w.diff(n.c.tree, plumbing.ZeroHash, w.root, 0, diffs[0]); err != nil {
			return err
		}
	}
	for wi, word := range pending {
		for word != 0 {
			i := wi*64 + bits.TrailingZeros64(word)
			word &= word - 1
			bitSet(n.done, i)
			if w.limit > 0 && w.count[i] >= w.limit {
				continue
			}
			changed := bitHas(diffs[0], i)
			var follow []*logNode
			for k, pn := range parents {
				if !bitHas(diffs[k], i) {
					changed, follow = false, []*logNode{pn}
					break
				}
				follow = append(follow, pn)
			}
			if changed {
				e, err := w.show(n.c.hash)
				if err != nil {
					return err
				}
				w.out[w.names[i]] = append(w.out[w.names[i]], e)
				w.count[i]++
				if w.limit > 0 && w.count[i] == w.limit {
					w.active--
					continue
				}
			}
			for _, pn := range follow {
				w.mark(pn, i)
			}
		}
	}
	return nil
}

// show decodes a shown commit once, however many paths it changed.
func (w *multiLog) show(h plumbing.Hash) (LogEntry, error) {
	if e, ok := w.shown[h]; ok {
		return e, nil
	}
	_, raw, err := w.objs.Read(h)
	if err != nil {
		return LogEntry{}, err
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	if _, err := obj.Write(raw); err != nil {
		return LogEntry{}, err
	}
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return LogEntry{}, errors.Join(fmt.Errorf("decode commit %s", h), err)
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	e := LogEntry{SHA: c.Hash.String(), When: c.Committer.When, Subject: subject, Message: c.Message}
	w.shown[h] = e
	return e, nil
}

// nodeQueue orders commits newest committer date first, as git log does.
type nodeQueue []*logNode

func (q nodeQueue) Len() int           { return len(q) }
func (q nodeQueue) Less(i, j int) bool { return q[i].c.when > q[j].c.when }
func (q nodeQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)        { *q = append(*q, x.(*logNode)) }
func (q *nodeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
