package store

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// A transition used to rewrite and compress the whole plans/ tree as a
// loose object, so its cost grew with the number of specs (issue 15). Now a
// pass's commits are built in memory and written once, as one packfile,
// when something needs them on disk: a push, or a read of one of them.
// The trees along an edited path stay decoded and encoded between commits
// (and between passes), so a commit patches one entry in place; a tree
// that changed again in the same pack is stored as a delta against its
// previous version, which costs the size of one entry, not of the tree.
// What remains proportional to a tree's size is copying its encoding and
// its SHA-1.

// maxDeltaDepth bounds a chain of tree deltas in a pass's pack (git's own
// default depth): reading the newest tree applies at most this many.
const maxDeltaDepth = 50

// passObjects are the objects a store created since its head that are not
// on disk yet, in the order they were made, and the trees it keeps decoded.
type passObjects struct {
	objs  []gitpack.Object
	index map[plumbing.Hash]int
	// tip is the newest commit made and tipTree its tree.
	tip, tipTree plumbing.Hash
	// trees are the newest versions of the directories commits edited,
	// by hash; a tree made in this pack has depth > 0.
	trees map[plumbing.Hash]*memTree
	// all are every object made since head, flushed or not: what a push
	// sends (see sendPack). flushes counts the packs written since head
	// and pack is the newest.
	all     []gitpack.Object
	seen    map[plumbing.Hash]bool
	flushes int
	pack    []byte
	// arena holds the whole trees of the objects above and packBuf the
	// pack being written; both are reused after a push, so a pass that
	// pushes after every dispatch does not allocate a tree's size per
	// push.
	arena, packBuf []byte
}

// memTree is one directory: its entries in git's order and their encoding.
type memTree struct {
	entries []object.TreeEntry
	enc     []byte
	// depth is the length of the delta chain that stores this version in
	// the pending pack; 0 when it is on disk.
	depth int
}

// maxMemTrees bounds the decoded trees a store keeps: only the newest
// version of each edited directory is kept, so more means many
// directories; they are dropped and decoded again when needed.
const maxMemTrees = 256

func (s *Store) pending() *passObjects {
	if s.written == nil {
		s.written = &passObjects{index: map[plumbing.Hash]int{}, seen: map[plumbing.Hash]bool{}, trees: map[plumbing.Hash]*memTree{}}
	}
	return s.written
}

// tipTreeOf returns the tree of commit tip when the store made it, else
// the zero hash.
func (p *passObjects) tipTreeOf(tip plumbing.Hash) plumbing.Hash {
	if p == nil || p.tip != tip {
		return plumbing.ZeroHash
	}
	return p.tipTree
}

// isPending reports whether h is an object of this pass not on disk yet.
func (s *Store) isPending(h plumbing.Hash) bool {
	if s.written == nil {
		return false
	}
	_, ok := s.written.index[h]
	return ok
}

// add records a new object of the pass, unless it was already made.
func (p *passObjects) add(o gitpack.Object) {
	if _, ok := p.index[o.Hash]; ok {
		return
	}
	p.index[o.Hash] = len(p.objs)
	p.objs = append(p.objs, o)
	if !p.seen[o.Hash] {
		p.seen[o.Hash] = true
		p.all = append(p.all, o)
	}
}

// putContent records a whole object of the pass and returns its hash.
func (s *Store) putContent(t plumbing.ObjectType, content []byte) plumbing.Hash {
	h := gitpack.HashObject(t, content)
	s.pending().add(gitpack.Object{Hash: h, Type: t, Data: content})
	return h
}

// memTreeOf returns the directory tree h decoded, from the kept trees or
// from disk; the zero hash is a new, empty directory.
func (s *Store) memTreeOf(h plumbing.Hash) (*memTree, error) {
	if h.IsZero() {
		return &memTree{}, nil
	}
	p := s.pending()
	if t, ok := p.trees[h]; ok {
		delete(p.trees, h)
		return t, nil
	}
	if s.isPending(h) {
		// Made in this pass but no longer kept (two directories with the
		// same content): read it back from disk.
		if err := s.flush(); err != nil {
			return nil, err
		}
	}
	t, err := s.repo.TreeObject(h)
	if err != nil {
		return nil, err
	}
	m := &memTree{entries: append([]object.TreeEntry(nil), t.Entries...)}
	sortEntries(m.entries)
	m.enc = encodeEntries(nil, m.entries)
	if gitpack.HashObject(plumbing.TreeObject, m.enc) != h {
		// Not in git's canonical form (another tool wrote it): build
		// the new version in full, as a fresh tree.
		m.depth = -1
	}
	return m, nil
}

// entryKey is treeKey for a name not yet in a tree.
func entryKey(name string, dir bool) string {
	if dir {
		return name + "/"
	}
	return name
}

func sortEntries(es []object.TreeEntry) {
	sort.SliceStable(es, func(i, j int) bool { return treeKey(es[i]) < treeKey(es[j]) })
}

func (m *memTree) search(name string, dir bool) (int, bool) {
	key := entryKey(name, dir)
	i := sort.Search(len(m.entries), func(i int) bool { return treeKey(m.entries[i]) >= key })
	return i, i < len(m.entries) && m.entries[i].Name == name && (m.entries[i].Mode == filemode.Dir) == dir
}

// find returns the entry named name, file or directory.
func (m *memTree) find(name string) (int, bool) {
	if i, ok := m.search(name, false); ok {
		return i, true
	}
	return m.search(name, true)
}

func appendEntry(b []byte, e object.TreeEntry) []byte {
	b = strconv.AppendUint(b, uint64(e.Mode), 8)
	b = append(b, ' ')
	b = append(b, e.Name...)
	b = append(b, 0)
	return append(b, e.Hash[:]...)
}

func entrySize(e object.TreeEntry) int {
	digits := 1
	for m := uint32(e.Mode) >> 3; m > 0; m >>= 3 {
		digits++
	}
	return digits + 1 + len(e.Name) + 1 + len(e.Hash)
}

func encodeEntries(b []byte, es []object.TreeEntry) []byte {
	for _, e := range es {
		b = appendEntry(b, e)
	}
	return b
}

// set puts e into the tree, replacing the entry of the same name, and
// records the new version as an object of the pass; old is the version's
// hash before (zero for a new directory).
func (s *Store) setEntry(m *memTree, old plumbing.Hash, e object.TreeEntry) plumbing.Hash {
	oldLen := len(m.enc)
	var off, cut int
	simple := m.depth >= 0
	if i, ok := m.find(e.Name); ok && (m.entries[i].Mode == filemode.Dir) == (e.Mode == filemode.Dir) {
		for _, x := range m.entries[:i] {
			off += entrySize(x)
		}
		cut = entrySize(m.entries[i])
		m.entries[i] = e
	} else {
		if ok {
			// A file becomes a directory or the other way round: its
			// place changes.
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			simple = false
		}
		i, _ = m.search(e.Name, e.Mode == filemode.Dir)
		m.entries = append(m.entries, object.TreeEntry{})
		copy(m.entries[i+1:], m.entries[i:])
		m.entries[i] = e
		for _, x := range m.entries[:i] {
			off += entrySize(x)
		}
	}
	var ins []byte
	if simple {
		ins = appendEntry(nil, e)
		tail := len(m.enc) - off - cut
		need := off + len(ins) + tail
		if cap(m.enc) < need {
			grown := make([]byte, len(m.enc), need+need/4)
			copy(grown, m.enc)
			m.enc = grown
		}
		old := m.enc
		m.enc = m.enc[:need]
		copy(m.enc[off+len(ins):], old[off+cut:off+cut+tail])
		copy(m.enc[off:], ins)
	} else {
		m.enc = encodeEntries(m.enc[:0], m.entries)
	}
	h := gitpack.HashObject(plumbing.TreeObject, m.enc)
	p := s.pending()
	switch {
	case simple && m.depth > 0 && m.depth < maxDeltaDepth && s.isPending(old):
		d := gitpack.Delta(oldLen, len(m.enc), off, cut, ins)
		p.add(gitpack.Object{Hash: h, Type: plumbing.TreeObject, Data: d, Base: old})
		m.depth++
	default:
		start := len(p.arena)
		p.arena = append(p.arena, m.enc...)
		p.add(gitpack.Object{Hash: h, Type: plumbing.TreeObject, Data: p.arena[start:len(p.arena):len(p.arena)]})
		m.depth = 1
	}
	if len(p.trees) >= maxMemTrees {
		clear(p.trees)
	}
	p.trees[h] = m
	return h
}

// flush writes the pending objects to the repository as one packfile
// (gitpack.WritePack says how a crash leaves either no pack or a whole
// one).
func (s *Store) flush() error {
	p := s.written
	if p == nil || len(p.objs) == 0 {
		return nil
	}
	fsys, ok := s.repo.Storer.(*filesystem.Storage)
	if !ok {
		return fmt.Errorf("write the pass's objects: unsupported storage %T", s.repo.Storer)
	}
	pack, idx, sum, err := gitpack.Encode(p.packBuf, p.objs)
	if err != nil {
		return fmt.Errorf("write the pass's objects: %w", err)
	}
	if err := gitpack.WritePack(fsys.Filesystem(), pack, idx, sum); err != nil {
		return fmt.Errorf("write the pass's objects: %w", err)
	}
	s.reindex(fsys)
	p.flushes++
	p.pack, p.packBuf = pack, pack
	p.objs, p.index = nil, map[plumbing.Hash]int{}
	for _, t := range p.trees {
		t.depth = 0
	}
	return nil
}

// afterPush keeps only the decoded trees, which are on the remote now.
func (p *passObjects) afterPush() *passObjects {
	if p == nil {
		return nil
	}
	return &passObjects{index: map[plumbing.Hash]int{}, seen: map[plumbing.Hash]bool{}, trees: p.trees, tip: p.tip, tipTree: p.tipTree,
		arena: p.arena[:0], packBuf: p.packBuf[:0]}
}

// refreshPacks makes the store see packs another writer added since it
// last read the pack directory: go-git reads the pack indexes once and
// then only learns of the packs its own fetches write, and a second Store
// on the same clone (a daemon's notifier, a test's next reconciler), or a
// person's git in an in-place checkout, writes packs too.
func (s *Store) refreshPacks() {
	fsys, ok := s.repo.Storer.(*filesystem.Storage)
	if !ok {
		return
	}
	packs, err := fsys.ObjectPacks()
	if err != nil || slices.Equal(packs, s.packs) {
		return
	}
	s.reindex(fsys)
}

// reindex drops go-git's pack indexes, to be read again on the next
// lookup, and remembers the pack directory as it is now.
func (s *Store) reindex(fsys *filesystem.Storage) {
	fsys.Reindex()
	s.packs, _ = fsys.ObjectPacks()
}

// notePacks remembers the pack directory after go-git itself added a pack
// it already indexed (a fetch).
func (s *Store) notePacks() {
	if fsys, ok := s.repo.Storer.(*filesystem.Storage); ok {
		s.packs, _ = fsys.ObjectPacks()
	}
}

// sendable returns one pack of every object made since head: the pack
// flush wrote when there is exactly one, else a new one.
func (p *passObjects) sendable() ([]byte, error) {
	if len(p.objs) == 0 && p.flushes == 1 {
		return p.pack, nil
	}
	pack, _, _, err := gitpack.Encode(nil, p.all)
	return pack, err
}

// readAll reads an encoded object's content.
func readAll(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
