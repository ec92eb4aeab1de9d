package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/gallivant/gallivant/ledger"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxTamperWalk bounds how far back a walk looks for the newest loop:
// version of a ledger. A ledger no loop: commit changed within it (one
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

// versionIndex is what LoopVersions found at head, kept between passes so
// that the next one walks only the commits since: on the Store for a
// daemon, and in the clone's directory (versionsFile) for one-shot runs
// that keep the cache.
type versionIndex struct {
	head plumbing.Hash
	// last and edited are LedgerVersions' Last and Edited.
	last   map[string]plumbing.Hash
	edited map[string]bool
	// open are the paths a walk from head did not see a loop: commit
	// change within maxTamperWalk commits.
	open map[string]bool
}

// answers reports whether idx is at tip and knows every one of paths:
// then there is nothing to walk (an idle pass).
func (idx *versionIndex) answers(tip plumbing.Hash, paths []string) bool {
	if idx == nil || idx.head != tip {
		return false
	}
	for _, p := range paths {
		if _, ok := idx.last[p]; !ok && !idx.open[p] {
			return false
		}
	}
	return true
}

// versionsFile holds the index in a cache clone's directory.
const versionsFile = "gallivant-loop-versions.json"

// LoopVersions finds, for each of paths, the newest loop: commit that
// changed it along the first-parent history from the tip, and whether a
// commit without a loop: subject changed it since. The answer at the last
// tip it was asked about is kept, so a pass walks only the commits since
// then: none while the control branch does not move. A tip whose history
// does not contain the kept one (a rewritten branch, a dropped unpushed
// commit) or lies more than maxTamperWalk commits past it is walked afresh.
// Trees are compared by the ids in their raw entries, descending only into
// directories that hold a wanted path and differ. ctx ending stops the
// walk with its error, and nothing of it is kept.
func (s *Store) LoopVersions(ctx context.Context, paths []string) (*LedgerVersions, error) {
	if err := s.flush(); err != nil { // the walk reads the pass's commits from disk
		return nil, err
	}
	idx := s.versions
	if idx == nil {
		idx = s.loadVersions()
	}
	next := idx
	if !idx.answers(s.tip, paths) {
		w := newVersionWalk(ctx, s.repo, paths)
		defer w.close()
		var err error
		next = nil
		if idx != nil {
			next, err = w.since(s.tip, idx)
		}
		if next == nil && err == nil {
			next, err = w.fresh(s.tip, w.wanted, maxTamperWalk)
		}
		if err != nil {
			return nil, err
		}
		s.saveVersions(next)
	}
	s.versions = next
	return next.versions(paths), nil
}

// versions is what idx says of paths.
func (idx *versionIndex) versions(paths []string) *LedgerVersions {
	v := &LedgerVersions{Last: make(map[string]string, len(paths)), Edited: map[string]bool{}}
	for _, p := range paths {
		if h, ok := idx.last[p]; ok {
			v.Last[p] = h.String()
			if idx.edited[p] {
				v.Edited[p] = true
			}
		}
	}
	return v
}

// versionWalk walks first-parent history reading raw objects.
type versionWalk struct {
	ctx    context.Context
	objs   *gitpack.Reader
	wanted map[string]bool
	dirs   map[string]bool // every directory holding a wanted path
	// a and b are scratch copies of the two trees being compared.
	a, b []byte
}

func newVersionWalk(ctx context.Context, repo *git.Repository, paths []string) *versionWalk {
	w := &versionWalk{ctx: ctx, objs: gitpack.NewReader(repo.Storer, 0), wanted: map[string]bool{}, dirs: map[string]bool{}}
	for _, p := range paths {
		w.wanted[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			w.dirs[d] = true
		}
	}
	return w
}

func (w *versionWalk) close() { w.objs.Close() }

// step is one commit of the walk: what it changed and whether it is a
// loop: commit.
type step struct {
	hash, parent plumbing.Hash // parent is zero for a root commit
	tree         plumbing.Hash
	loop         bool
	changed      []string // wanted paths whose entry differs from the parent's
}

// commit reads h and compares its tree with its first parent's.
func (w *versionWalk) commit(h plumbing.Hash) (step, error) {
	st, err := w.header(h)
	if err != nil {
		return st, err
	}
	var ptree plumbing.Hash
	if !st.parent.IsZero() {
		if ptree, err = w.treeOf(st.parent); err != nil {
			return st, err
		}
	}
	err = w.diff(ptree, st.tree, "", &st.changed)
	return st, err
}

// header reads commit h's tree, first parent and whether it is a loop:
// commit; every walk reads each commit through it, so it is where a walk
// notices ctx ending.
func (w *versionWalk) header(h plumbing.Hash) (step, error) {
	st := step{hash: h}
	if err := w.ctx.Err(); err != nil {
		return st, err
	}
	typ, raw, err := w.objs.Read(h)
	if err != nil {
		return st, fmt.Errorf("read commit %s: %w", short(h.String()), err)
	}
	if typ != plumbing.CommitObject {
		return st, fmt.Errorf("object %s is a %s, not a commit", short(h.String()), typ)
	}
	first := true
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) == 0 {
			st.loop = ledger.LoopAuthored(string(raw[:min(len(raw), 16)])) // the message starts here
			break
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			st.tree = plumbing.NewHash(string(val))
		case "parent":
			if first {
				st.parent = plumbing.NewHash(string(val))
				first = false
			}
		}
	}
	return st, nil
}

// treeOf reads a commit's tree id.
func (w *versionWalk) treeOf(h plumbing.Hash) (plumbing.Hash, error) {
	typ, raw, err := w.objs.Read(h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", short(h.String()), err)
	}
	if typ != plumbing.CommitObject || !bytes.HasPrefix(raw, []byte("tree ")) || len(raw) < 45 {
		return plumbing.ZeroHash, fmt.Errorf("object %s is not a commit", short(h.String()))
	}
	return plumbing.NewHash(string(raw[5:45])), nil
}

// rawTree reads tree h into buf (reused), or none for the zero id.
func (w *versionWalk) rawTree(h plumbing.Hash, buf []byte) ([]byte, error) {
	if h.IsZero() {
		return buf[:0], nil
	}
	typ, raw, err := w.objs.Read(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", short(h.String()), err)
	}
	if typ != plumbing.TreeObject {
		return buf[:0], nil // not a directory here: nothing under it
	}
	return append(buf[:0], raw...), nil
}

// treeItem is one entry of a raw tree ("<mode> <name>\0<20-byte id>").
type treeItem struct {
	dir  bool
	mode filemode.FileMode
	name string
	id   plumbing.Hash
}

// nextEntry splits the first entry off raw.
func nextEntry(raw []byte) (e treeItem, rest []byte, err error) {
	sp := bytes.IndexByte(raw, ' ')
	nul := bytes.IndexByte(raw, 0)
	if sp < 0 || nul < sp || len(raw) < nul+21 {
		return e, nil, errors.New("malformed tree")
	}
	e.dir = string(raw[:sp]) == "40000"
	e.mode = filemode.Dir
	if !e.dir {
		m, err := strconv.ParseUint(string(raw[:sp]), 8, 32)
		if err != nil {
			return e, nil, errors.New("malformed tree entry mode")
		}
		e.mode = filemode.FileMode(m)
	}
	e.name = string(raw[sp+1 : nul])
	copy(e.id[:], raw[nul+1:nul+21])
	return e, raw[nul+21:], nil
}

// key is git's sort key of a tree entry: a directory sorts as name/.
func (e treeItem) key() string {
	if e.dir {
		return e.name + "/"
	}
	return e.name
}

// rawTrees reads trees a and b raw into the walk's two scratch buffers,
// which stay theirs until the next call.
func (w *versionWalk) rawTrees(a, b plumbing.Hash) (ra, rb []byte, err error) {
	if ra, err = w.rawTree(a, w.a); err != nil {
		return nil, nil, err
	}
	w.a = ra
	if rb, err = w.rawTree(b, w.b); err != nil {
		return nil, nil, err
	}
	w.b = rb
	return ra, rb, nil
}

// diff appends to out the wanted files under dir whose entry differs
// between trees a and b, descending only into wanted directories whose ids
// differ.
func (w *versionWalk) diff(a, b plumbing.Hash, dir string, out *[]string) error {
	if a == b {
		return nil
	}
	ra, rb, err := w.rawTrees(a, b)
	if err != nil {
		return err
	}
	subs, err := w.diffLevel(a, b, ra, rb, dir, out)
	if err != nil {
		return err
	}
	// Subdirectories are compared after this level is done with the
	// scratch buffers.
	for _, s := range subs {
		if err := w.diff(s.a, s.b, s.name, out); err != nil {
			return err
		}
	}
	return nil
}

// treeSub is a wanted subdirectory whose ids differ between two trees
// (the zero hash where it is not a directory).
type treeSub struct {
	a, b plumbing.Hash
	name string
}

// diffLevel merges the raw entries ra and rb of trees a and b under dir,
// in git's order: it appends the differing wanted files to out and
// returns the differing wanted subdirectories.
func (w *versionWalk) diffLevel(a, b plumbing.Hash, ra, rb []byte, dir string, out *[]string) ([]treeSub, error) {
	var subs []treeSub
	var ea, eb treeItem
	var err error
	haveA, haveB := false, false
	for {
		if !haveA && len(ra) > 0 {
			if ea, ra, err = nextEntry(ra); err != nil {
				return nil, fmt.Errorf("tree %s: %w", short(a.String()), err)
			}
			haveA = true
		}
		if !haveB && len(rb) > 0 {
			if eb, rb, err = nextEntry(rb); err != nil {
				return nil, fmt.Errorf("tree %s: %w", short(b.String()), err)
			}
			haveB = true
		}
		switch {
		case !haveA && !haveB:
			return subs, nil
		case !haveB || haveA && ea.name != eb.name && ea.key() < eb.key():
			w.visit(dir, &ea, nil, &subs, out)
			haveA = false
		case !haveA || ea.name != eb.name:
			w.visit(dir, nil, &eb, &subs, out)
			haveB = false
		default:
			w.visit(dir, &ea, &eb, &subs, out)
			haveA, haveB = false, false
		}
	}
}

// visit compares one name under dir, with its entry ea in the first tree
// and eb in the second (nil where absent): a wanted file that differs goes
// to out, a wanted directory that differs to subs.
func (w *versionWalk) visit(dir string, ea, eb *treeItem, subs *[]treeSub, out *[]string) {
	var name string
	var ha, hb plumbing.Hash
	dirA, dirB := ea != nil && ea.dir, eb != nil && eb.dir
	if ea != nil {
		name, ha = ea.name, ea.id
	}
	if eb != nil {
		name, hb = eb.name, eb.id
	}
	if ea != nil && eb != nil && ha == hb && dirA == dirB {
		return
	}
	full := name
	if dir != "" {
		full = dir + "/" + name
	}
	if (dirA || dirB) && w.dirs[full] {
		if !dirA {
			ha = plumbing.ZeroHash
		}
		if !dirB {
			hb = plumbing.ZeroHash
		}
		*subs = append(*subs, treeSub{ha, hb, full})
	}
	if (!dirA || !dirB) && w.wanted[full] {
		*out = append(*out, full)
	}
}

// fresh walks back from tip for the paths of want, up to limit commits,
// and returns the index at tip.
func (w *versionWalk) fresh(tip plumbing.Hash, want map[string]bool, limit int) (*versionIndex, error) {
	idx := &versionIndex{head: tip, last: map[string]plumbing.Hash{}, edited: map[string]bool{}, open: map[string]bool{}}
	open := map[string]bool{}
	for p := range want {
		open[p] = true
	}
	h := tip
	for i := 0; i < limit && len(open) > 0 && !h.IsZero(); i++ {
		st, err := w.commit(h)
		if err != nil {
			return nil, err
		}
		for _, p := range st.changed {
			if !open[p] {
				continue
			}
			if st.loop {
				idx.last[p] = st.hash
				delete(open, p)
			} else {
				idx.edited[p] = true
			}
		}
		h = st.parent
	}
	for p := range open {
		// No loop: version to compare with.
		delete(idx.edited, p)
		idx.open[p] = true
	}
	return idx, nil
}

// since brings idx, the index at an older tip, up to tip by walking the
// commits between them. It returns nil (and no error) when idx's head is
// not within maxTamperWalk first-parent commits of tip.
func (w *versionWalk) since(tip plumbing.Hash, idx *versionIndex) (*versionIndex, error) {
	steps, ok, err := w.stepsSince(tip, idx.head)
	if err != nil || !ok {
		return nil, err
	}
	next := &versionIndex{head: tip, last: map[string]plumbing.Hash{}, edited: map[string]bool{}, open: map[string]bool{}}
	resolved, editedNew := resolveSteps(steps, next)
	unknown := w.carry(idx, next, resolved, editedNew)
	// Paths the kept index never looked for (a ledger a person added, or
	// one asked about for the first time) are walked from its head.
	if unknown != nil {
		old, err := w.fresh(idx.head, unknown, maxTamperWalk-len(steps))
		if err != nil {
			return nil, err
		}
		for p := range unknown {
			h, ok := old.last[p]
			if !ok {
				next.open[p] = true
				continue
			}
			next.last[p] = h
			if old.edited[p] || editedNew[p] {
				next.edited[p] = true
			}
		}
	}
	// Keep what idx knew of paths not asked about this time: a later
	// pass may ask again.
	for p, h := range idx.last {
		if !w.wanted[p] && !resolved[p] && len(steps) == 0 {
			next.last[p] = h
			if idx.edited[p] {
				next.edited[p] = true
			}
		}
	}
	return next, nil
}

// stepsSince is the first-parent commits from tip back to (not including)
// head, newest first; ok is false when head is not within maxTamperWalk
// of them.
func (w *versionWalk) stepsSince(tip, head plumbing.Hash) (steps []step, ok bool, err error) {
	for h := tip; h != head; {
		if h.IsZero() || len(steps) == maxTamperWalk {
			return nil, false, nil
		}
		st, err := w.commit(h)
		if err != nil {
			return nil, false, err
		}
		steps = append(steps, st)
		h = st.parent
	}
	return steps, true, nil
}

// resolveSteps records in next what the new commits say, newest first:
// the first loop: commit to change a path is its new version (resolved);
// a person's commit before it (in walk order: after it in time) is an
// edit (editedNew).
func resolveSteps(steps []step, next *versionIndex) (resolved, editedNew map[string]bool) {
	resolved, editedNew = map[string]bool{}, map[string]bool{}
	for _, st := range steps {
		for _, p := range st.changed {
			switch {
			case resolved[p]:
			case st.loop:
				next.last[p] = st.hash
				resolved[p] = true
			default:
				editedNew[p] = true
			}
		}
	}
	return resolved, editedNew
}

// carry records in next, for each wanted path the new commits did not
// resolve, what idx knew of it, and returns the wanted paths idx never
// looked for (nil when none).
func (w *versionWalk) carry(idx, next *versionIndex, resolved, editedNew map[string]bool) (unknown map[string]bool) {
	for p := range w.wanted {
		switch {
		case resolved[p]:
			if editedNew[p] {
				next.edited[p] = true
			}
		case !idx.last[p].IsZero():
			next.last[p] = idx.last[p]
			if idx.edited[p] || editedNew[p] {
				next.edited[p] = true
			}
		case idx.open[p]:
			next.open[p] = true
		default:
			if unknown == nil {
				unknown = map[string]bool{}
			}
			unknown[p] = true
		}
	}
	return unknown
}

// versionsJSON is versionIndex on disk.
type versionsJSON struct {
	Version int                     `json:"version"`
	Head    string                  `json:"head"`
	Last    map[string]versionEntry `json:"last"`
	Open    []string                `json:"open"`
}

type versionEntry struct {
	Commit string `json:"commit"`
	Edited bool   `json:"edited,omitempty"`
}

// maxVersionsFile bounds what loadVersions reads.
const maxVersionsFile = 64 << 20

// loadVersions reads the kept index of a cache clone; nil when there is
// none, it cannot be read, or its head is not in the clone. It is the
// store's own file, but a torn or stale one must only cost a fresh walk.
func (s *Store) loadVersions() *versionIndex {
	if s.inPlace || s.dir == "" {
		return nil
	}
	p := filepath.Join(s.dir, versionsFile)
	if st, err := os.Stat(p); err != nil || st.Size() > maxVersionsFile {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var f versionsJSON
	if json.Unmarshal(data, &f) != nil || f.Version != 1 || !isHex40(f.Head) {
		return nil
	}
	idx := &versionIndex{head: plumbing.NewHash(f.Head), last: map[string]plumbing.Hash{}, edited: map[string]bool{}, open: map[string]bool{}}
	if s.repo.Storer.HasEncodedObject(idx.head) != nil {
		return nil
	}
	for p, e := range f.Last {
		if !isHex40(e.Commit) {
			return nil
		}
		idx.last[p] = plumbing.NewHash(e.Commit)
		if e.Edited {
			idx.edited[p] = true
		}
	}
	for _, p := range f.Open {
		idx.open[p] = true
	}
	return idx
}

// saveVersions keeps idx in a cache clone's directory for the next
// process. Failing to is harmless: the next one walks afresh.
func (s *Store) saveVersions(idx *versionIndex) {
	if s.inPlace || s.dir == "" {
		return
	}
	f := versionsJSON{Version: 1, Head: idx.head.String(), Last: map[string]versionEntry{}, Open: []string{}}
	for p, h := range idx.last {
		f.Last[p] = versionEntry{Commit: h.String(), Edited: idx.edited[p]}
	}
	for p := range idx.open {
		f.Open = append(f.Open, p)
	}
	data, err := json.Marshal(f)
	if err != nil {
		return
	}
	p := filepath.Join(s.dir, versionsFile)
	tmp := p + ".tmp"
	if os.WriteFile(tmp, data, 0o644) != nil || os.Rename(tmp, p) != nil {
		os.Remove(tmp)
	}
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// treeKey is git's sort key of a decoded tree entry: a directory sorts as
// name/.
func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
