package ghstandin

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The stand-in answers the API's reads of objects (a commit, a tree, a
// blob, ancestry between commits) in process, from the bare repository's
// files through go-git, instead of forking git for each: the reads were
// half of the git processes of gallivant's tests. Writes (pushes through
// smart HTTP, update-ref, commit-tree, merge-tree) stay the real git's.
//
// Objects never change, so what is read is kept; a push only adds objects,
// as loose files or a new pack, so an object not found is looked for again
// after the packs are indexed anew before it counts as absent. Refs are
// read from the files on every request (refs.go), never kept. Anything the
// in-process reader does not model (a commit graph whose order git decides
// by dates, an odd revision expression) goes to git as before.

// errObjectModel says the in-process reader does not answer this query;
// the caller asks git.
var errObjectModel = errors.New("ghstandin: not modelled in process")

// objectStore reads one bare repository's objects.
type objectStore struct {
	mu    sync.Mutex
	st    *filesystem.ObjectStorage
	nodes map[plumbing.Hash]*commitNode
}

// commitNode is what a walk needs of one commit: its parents and its
// generation (1 for a root, else one more than its highest parent's),
// which orders any walk so that a commit comes after all its children.
type commitNode struct {
	parents []plumbing.Hash
	gen     int
	info    commitInfo
}

// maxNodes bounds the commit memo of a long-running sandbox; it is
// emptied when full.
const maxNodes = 1 << 16

func openObjects(dir string) *objectStore {
	st := gitopen.Storage(osfs.New(dir), cache.NewObjectLRU(4*cache.MiByte), filesystem.Options{})
	return &objectStore{st: &st.ObjectStorage, nodes: map[plumbing.Hash]*commitNode{}}
}

// lock takes o.mu, emptying the commit memo first when it is full.
func (o *objectStore) lock() {
	o.mu.Lock()
	if len(o.nodes) >= maxNodes {
		clear(o.nodes)
	}
}

// object reads an object, indexing the packs anew once when it is not
// found (a push may have brought it in a new pack). The caller holds o.mu.
func (o *objectStore) object(h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := o.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		o.st.Reindex()
		obj, err = o.st.EncodedObject(plumbing.AnyObject, h)
	}
	return obj, err
}

// parseID reads a full object id; ok is false for anything else.
func parseID(s string) (plumbing.Hash, bool) {
	if !hexID.MatchString(s) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(s), true
}

// peel follows annotated tags from h to the object they name.
func (o *objectStore) peel(h plumbing.Hash) (plumbing.EncodedObject, error) {
	for range 16 {
		obj, err := o.object(h)
		if err != nil {
			return nil, err
		}
		if obj.Type() != plumbing.TagObject {
			return obj, nil
		}
		var t object.Tag
		if err := t.Decode(obj); err != nil {
			return nil, err
		}
		h = t.Target
	}
	return nil, errObjectModel
}

// node reads a commit (peeling tags) and its generation. The caller
// holds o.mu.
func (o *objectStore) node(h plumbing.Hash) (plumbing.Hash, *commitNode, error) {
	if n, ok := o.nodes[h]; ok {
		return h, n, nil
	}
	obj, err := o.peel(h)
	if err != nil {
		return h, nil, err
	}
	if obj.Type() != plumbing.CommitObject {
		return h, nil, plumbing.ErrObjectNotFound
	}
	h = obj.Hash()
	if n, ok := o.nodes[h]; ok {
		return h, n, nil
	}
	// Generations are computed depth first without recursion: a commit's
	// is known once its parents' are.
	pending := map[plumbing.Hash]*commitNode{}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		n := pending[top]
		if n == nil {
			var err error
			if n, err = o.decode(top); err != nil {
				return h, nil, err
			}
			pending[top] = n
		}
		ready := true
		gen := 1
		for _, p := range n.parents {
			pn, ok := o.nodes[p]
			if !ok {
				if _, seen := pending[p]; seen {
					// An ancestor of itself cannot be: the object is
					// damaged.
					return h, nil, fmt.Errorf("ghstandin: commit %s is its own ancestor", p)
				}
				stack = append(stack, p)
				ready = false
				break
			}
			gen = max(gen, pn.gen+1)
		}
		if !ready {
			continue
		}
		n.gen = gen
		o.nodes[top] = n
		delete(pending, top)
		stack = stack[:len(stack)-1]
	}
	return h, o.nodes[h], nil
}

// decode reads one commit object as the API shows it.
func (o *objectStore) decode(h plumbing.Hash) (*commitNode, error) {
	obj, err := o.object(h)
	if err != nil {
		return nil, err
	}
	if obj.Type() != plumbing.CommitObject {
		return nil, plumbing.ErrObjectNotFound
	}
	var c object.Commit
	if err := c.Decode(obj); err != nil {
		return nil, err
	}
	if c.Encoding != "" && !strings.EqualFold(string(c.Encoding), "utf-8") {
		// git log re-encodes such a message; the reader does not.
		return nil, errObjectModel
	}
	n := &commitNode{parents: c.ParentHashes, info: commitInfo{
		SHA: h.String(), Tree: c.TreeHash.String(), Parents: []string{},
		AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, AuthorDate: gitISOTime(c.Author.When),
		CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email, CommitterDate: gitISOTime(c.Committer.When),
		Message: strings.TrimRight(c.Message, "\n"),
	}}
	for _, p := range c.ParentHashes {
		n.info.Parents = append(n.info.Parents, p.String())
	}
	return n, nil
}

// gitISOTime is t as the log format's %aI prints it and parseLog reads it
// back, so that both paths give the same value.
func gitISOTime(t time.Time) time.Time {
	p, _ := time.Parse(time.RFC3339, t.Format("2006-01-02T15:04:05-07:00"))
	return p
}

// Walk flags: reachable from the first side, from the second, and (for
// merge bases) below a common ancestor already found.
const (
	sideA uint8 = 1 << iota
	sideB
	stale
)

// genHeap orders commits by generation, highest first; equal generations
// by id, so that every walk is deterministic.
type genHeap struct {
	ids []plumbing.Hash
	gen func(plumbing.Hash) int
}

func (q *genHeap) Len() int { return len(q.ids) }
func (q *genHeap) Less(i, j int) bool {
	gi, gj := q.gen(q.ids[i]), q.gen(q.ids[j])
	if gi != gj {
		return gi > gj
	}
	return q.ids[i].String() < q.ids[j].String()
}
func (q *genHeap) Swap(i, j int) { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *genHeap) Push(x any)    { q.ids = append(q.ids, x.(plumbing.Hash)) }
func (q *genHeap) Pop() any {
	x := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return x
}

// paint walks down from a and b in generation order, so that every commit
// is visited after all its children and carries its final flags, and
// calls visit with each. It stops early when every commit still queued
// has all the flags in done. The caller holds o.mu.
func (o *objectStore) paint(a, b plumbing.Hash, done uint8, visit func(h plumbing.Hash, n *commitNode, f uint8) uint8) error {
	flags := map[plumbing.Hash]uint8{}
	q := &genHeap{gen: func(h plumbing.Hash) int { return o.nodes[h].gen }}
	add := func(h plumbing.Hash, f uint8) error {
		h, _, err := o.node(h)
		if err != nil {
			return err
		}
		old, queued := flags[h]
		flags[h] = old | f
		if !queued {
			heap.Push(q, h)
		}
		return nil
	}
	if err := add(a, sideA); err != nil {
		return err
	}
	if err := add(b, sideB); err != nil {
		return err
	}
	visited := map[plumbing.Hash]bool{}
	for q.Len() > 0 {
		all := true
		for _, h := range q.ids {
			if flags[h]&done != done {
				all = false
				break
			}
		}
		if all {
			return nil
		}
		h := heap.Pop(q).(plumbing.Hash)
		if visited[h] {
			continue
		}
		visited[h] = true
		n := o.nodes[h]
		f := visit(h, n, flags[h])
		for _, p := range n.parents {
			if err := add(p, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// only returns the commits reachable from head and not from base (git's
// base..head), highest generation first.
func (o *objectStore) only(base, head string) ([]*commitNode, error) {
	bh, ok1 := parseID(base)
	hh, ok2 := parseID(head)
	if !ok1 || !ok2 {
		return nil, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	var out []*commitNode
	err := o.paint(bh, hh, sideA, func(h plumbing.Hash, n *commitNode, f uint8) uint8 {
		if f&sideA == 0 {
			out = append(out, n)
		}
		return f
	})
	return out, err
}

// mergeBases returns the best common ancestors of a and b: common
// ancestors that are no ancestor of another.
func (o *objectStore) mergeBases(a, b string) ([]string, error) {
	ah, ok1 := parseID(a)
	bh, ok2 := parseID(b)
	if !ok1 || !ok2 {
		return nil, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	var out []string
	err := o.paint(ah, bh, stale, func(h plumbing.Hash, n *commitNode, f uint8) uint8 {
		if f&(sideA|sideB) == sideA|sideB && f&stale == 0 {
			out = append(out, h.String())
			f |= stale
		}
		return f
	})
	return out, err
}

// ancestor reports whether a is b or an ancestor of b.
func (o *objectStore) ancestor(a, b string) (bool, error) {
	ah, ok1 := parseID(a)
	bh, ok2 := parseID(b)
	if !ok1 || !ok2 {
		return false, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	ah, an, err := o.node(ah)
	if err != nil {
		return false, err
	}
	bh, _, err = o.node(bh)
	if err != nil {
		return false, err
	}
	seen := map[plumbing.Hash]bool{bh: true}
	stack := []plumbing.Hash{bh}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == ah {
			return true, nil
		}
		_, n, err := o.node(h)
		if err != nil {
			return false, err
		}
		for _, p := range n.parents {
			pn := o.nodes[p]
			if pn == nil {
				if _, pn, err = o.node(p); err != nil {
					return false, err
				}
			}
			// Nothing below a's generation can be a.
			if !seen[p] && pn.gen >= an.gen {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false, nil
}

// commit returns what the API shows of the commit sha names.
func (o *objectStore) commit(sha string) (commitInfo, error) {
	h, ok := parseID(sha)
	if !ok {
		return commitInfo{}, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	_, n, err := o.node(h)
	if err != nil {
		return commitInfo{}, err
	}
	return n.info, nil
}

// resolveID returns the commit a full object id names, peeling tags.
func (o *objectStore) resolveID(sha string) (string, error) {
	h, ok := parseID(sha)
	if !ok {
		return "", errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	h, _, err := o.node(h)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// typeOf returns an object's type as git cat-file -t names it.
func (o *objectStore) typeOf(sha string) (string, error) {
	h, ok := parseID(sha)
	if !ok {
		return "", errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	obj, err := o.object(h)
	if err != nil {
		return "", err
	}
	return obj.Type().String(), nil
}

// tree reads the tree at dir ("" for the root) of a commit, given by full
// id. The caller holds o.mu.
func (o *objectStore) tree(commit, dir string) (*object.Tree, error) {
	h, ok := parseID(commit)
	if !ok {
		return nil, errObjectModel
	}
	_, n, err := o.node(h)
	if err != nil {
		return nil, err
	}
	obj, err := o.object(plumbing.NewHash(n.info.Tree))
	if err != nil {
		return nil, err
	}
	t := &object.Tree{}
	if err := t.Decode(obj); err != nil {
		return nil, err
	}
	for _, name := range strings.Split(dir, "/") {
		if dir == "" {
			break
		}
		e := findEntry(t, name)
		if e == nil || e.Mode != filemode.Dir {
			return nil, plumbing.ErrObjectNotFound
		}
		if obj, err = o.object(e.Hash); err != nil {
			return nil, err
		}
		t = &object.Tree{}
		if err := t.Decode(obj); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// plainPath reports whether p is a path the tree walk reads as git does:
// names separated by single slashes, none of them . or .., no leading or
// trailing slash.
func plainPath(p string) bool {
	for _, name := range strings.Split(p, "/") {
		if name == "" || name == "." || name == ".." {
			return false
		}
	}
	return true
}

// findEntry is the entry called name in t, or nil.
func findEntry(t *object.Tree, name string) *object.TreeEntry {
	for i := range t.Entries {
		if t.Entries[i].Name == name {
			return &t.Entries[i]
		}
	}
	return nil
}

// entryOf is a tree entry as ls-tree -l shows it: blobs carry their size.
// The caller holds o.mu.
func (o *objectStore) entryOf(e object.TreeEntry, path string) (treeEntry, error) {
	out := treeEntry{Path: path, SHA: e.Hash.String()}
	switch e.Mode {
	case filemode.Dir:
		out.Type = "tree"
	case filemode.Submodule:
		out.Type = "commit"
	default:
		out.Type = "blob"
		size, err := o.st.EncodedObjectSize(e.Hash)
		if err != nil {
			o.st.Reindex()
			if size, err = o.st.EncodedObjectSize(e.Hash); err != nil {
				return out, err
			}
		}
		out.Size = int(size)
	}
	return out, nil
}

// entry returns the entry at path (not empty) in a commit's tree.
func (o *objectStore) entry(commit, path string) (treeEntry, bool, error) {
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	if !plainPath(path) {
		return treeEntry{}, false, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	t, err := o.tree(commit, dir)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return treeEntry{}, false, nil
	}
	if err != nil {
		return treeEntry{}, false, err
	}
	e := findEntry(t, name)
	if e == nil {
		return treeEntry{}, false, nil
	}
	te, err := o.entryOf(*e, path)
	return te, err == nil, err
}

// list returns a directory's entries in a commit's tree.
func (o *objectStore) list(commit, dir string) ([]treeEntry, error) {
	if dir != "" && !plainPath(dir) {
		return nil, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	t, err := o.tree(commit, dir)
	if err != nil {
		return nil, err
	}
	var out []treeEntry
	for _, e := range t.Entries {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		te, err := o.entryOf(e, p)
		if err != nil {
			return nil, err
		}
		out = append(out, te)
	}
	return out, nil
}

// blob returns a blob's bytes, named by full id or as commit:path with a
// full commit id.
func (o *objectStore) blob(name string) ([]byte, error) {
	o.lock()
	defer o.mu.Unlock()
	h, ok := parseID(name)
	if !ok {
		commit, path, found := strings.Cut(name, ":")
		dir, file := "", path
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			dir, file = path[:i], path[i+1:]
		}
		if !found || !plainPath(path) || !hexID.MatchString(commit) {
			return nil, errObjectModel
		}
		t, err := o.tree(commit, dir)
		if err != nil {
			return nil, err
		}
		e := findEntry(t, file)
		if e == nil {
			return nil, plumbing.ErrObjectNotFound
		}
		h = e.Hash
	}
	obj, err := o.object(h)
	if err != nil {
		return nil, err
	}
	if obj.Type() != plumbing.BlobObject {
		return nil, errObjectModel
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
