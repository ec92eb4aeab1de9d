package agent

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/internal/wait"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// pushTries bounds the attempts of the push of an agent's commits to its
// work branch, and of a plan task's applied commit (ApplyCommit).
const pushTries = 3

// workPush is one push of a commit to a work branch from one of
// gallivant's own repositories (an entry's mirror, a plan task's scratch
// clone), in process: no git client runs (issue 33: git's push started
// four processes a run).
type workPush struct {
	repo   *git.Repository
	url    string
	auth   transport.AuthMethod
	branch string
	head   plumbing.Hash
	// wait waits between tries: wait.For when nil (tests wait nothing).
	wait func(ctx context.Context, d time.Duration) error
}

// run pushes p.head to p.branch as `git push` without --force does: a
// remote branch already there is success, one at a commit head does not
// descend from is refused (gitpack.ErrStale) and not tried again. A
// failure of the network or of GitHub's side (gitpack.RemoteFailure, an
// answer cut short) is tried again, pushTries times in all, 250 ms and
// 1 s apart: one that landed although its answer was lost finds the
// branch at head the next time. Left to the next pass, a commit this run
// could have pushed would be seen by no reconciler on another cache: past
// executor.timeout and the grace period, such a reconciler settles the
// dispatch as a run that never answered and runs it again (the endurance
// soak's duplicate run). Errors say what the remote said, with every
// URL's credentials redacted.
func (p workPush) run(ctx context.Context) error {
	pause := p.wait
	if pause == nil {
		pause = wait.For
	}
	d := 250 * time.Millisecond
	for try := 1; ; try++ {
		err := p.once(ctx)
		if err != nil && try > 1 {
			err = fmt.Errorf("%w (try %d of %d)", err, try, pushTries)
		}
		if err == nil || try == pushTries || ctx.Err() != nil || !(gitpack.RemoteFailure(err) || gitpack.CutShort(err)) {
			return err
		}
		if werr := pause(ctx, d); werr != nil {
			return err
		}
		d *= 4
	}
}

// once is one push exchange.
func (p workPush) once(ctx context.Context) error {
	msgs := &remoteText{max: 4 << 10}
	err := gitpack.PushAhead(ctx, p.url, p.auth, gitpack.Ahead{
		Ref: plumbing.NewBranchReferenceName(p.branch), New: p.head,
		Descends: p.descends,
		Pack: func(remote plumbing.Hash, heads map[plumbing.ReferenceName]plumbing.Hash) (func(io.Writer) error, error) {
			// Only what the remote advertises is known to be there: the
			// commit the work started from may be gone (a branch deleted
			// and collected, a repository made anew).
			tips := []plumbing.Hash{remote}
			for _, h := range heads {
				tips = append(tips, h)
			}
			objs, err := sendable(p.repo, p.head, tips)
			if err != nil {
				return nil, err
			}
			return func(w io.Writer) error {
				return gitpack.StreamPack(w, len(objs), func(i int) (plumbing.ObjectType, int64, io.ReadCloser, error) {
					o, err := p.repo.Storer.EncodedObject(plumbing.AnyObject, objs[i])
					if err != nil {
						return 0, 0, nil, err
					}
					r, err := o.Reader()
					return o.Type(), o.Size(), r, err
				})
			}, nil
		},
	}, msgs)
	if err == nil {
		return nil
	}
	if c := gitpack.HTTPStatus(err); c != 0 {
		// go-git's own words are about its client; the status is what
		// a person reads.
		err = fmt.Errorf("the remote answered HTTP %d %s: %w", c, http.StatusText(c), err)
	}
	if said := strings.TrimSpace(msgs.String()); said != "" {
		err = fmt.Errorf("%w (the remote said: %s)", err, oneLine(said, 500))
	}
	return redact.Error(err)
}

// descends reports whether p.head descends from remote in p.repo; a
// commit the repository lacks is someone else's, so no.
func (p workPush) descends(remote plumbing.Hash) (bool, error) {
	rc, err := p.repo.CommitObject(remote)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	hc, err := p.repo.CommitObject(p.head)
	if err != nil {
		return false, err
	}
	return rc.IsAncestor(hc)
}

// remoteText keeps the first max bytes of what the remote wrote on its
// side band (its reasons for a refusal).
type remoteText struct {
	strings.Builder
	max int
}

func (r *remoteText) Write(b []byte) (int, error) {
	if room := r.max - r.Len(); room > 0 {
		r.Builder.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// sendable lists the objects head has that a remote holding tips (and
// all they reach) lacks, in an order a pack may carry them: the commits
// reachable from head and from none of tips (newCommits), and what their
// trees hold that no parent's tree holds at the same path. The commits'
// trees are read parents first, so that a tree taken as listed (a later
// commit put an earlier tree back, as a revert does) was listed whole:
// each of its entries is in the pack or in a parent the remote has. Tips
// the repository lacks are ignored, and an object may be listed that the
// remote has (a file put back as an older commit had it): receive-pack
// takes it again; it never misses one the remote lacks (FuzzSendable
// checks both against git rev-list --objects).
func sendable(repo *git.Repository, head plumbing.Hash, tips []plumbing.Hash) ([]plumbing.Hash, error) {
	commits, err := newCommits(repo, head, tips)
	if err != nil {
		return nil, err
	}
	l := objectList{repo: repo, seen: map[plumbing.Hash]bool{}}
	for _, c := range parentsFirst(commits) {
		l.add(c.Hash)
		var bases []plumbing.Hash
		for _, ph := range c.ParentHashes {
			pc, err := repo.CommitObject(ph)
			if err != nil {
				return nil, fmt.Errorf("parent %s of %s: %w", short(ph.String()), short(c.Hash.String()), err)
			}
			bases = append(bases, pc.TreeHash)
		}
		if err := l.tree(c.TreeHash, bases); err != nil {
			return nil, err
		}
	}
	return l.order, nil
}

// parentsFirst orders commits so that each comes after those of its
// parents that are among them (a depth-first walk, without recursion).
func parentsFirst(commits []*object.Commit) []*object.Commit {
	byHash := make(map[plumbing.Hash]*object.Commit, len(commits))
	for _, c := range commits {
		byHash[c.Hash] = c
	}
	done := make(map[plumbing.Hash]bool, len(commits))
	out := make([]*object.Commit, 0, len(commits))
	type frame struct {
		c    *object.Commit
		next int // the next parent to look at
	}
	for _, root := range commits {
		if done[root.Hash] {
			continue
		}
		done[root.Hash] = true
		stack := []frame{{c: root}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(f.c.ParentHashes) {
				ph := f.c.ParentHashes[f.next]
				f.next++
				if pc, ok := byHash[ph]; ok && !done[ph] {
					done[ph] = true
					stack = append(stack, frame{c: pc})
				}
				continue
			}
			out = append(out, f.c)
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// objectList gathers a pack's objects, each once.
type objectList struct {
	repo  *git.Repository
	seen  map[plumbing.Hash]bool
	order []plumbing.Hash
}

func (l *objectList) add(h plumbing.Hash) {
	l.seen[h] = true
	l.order = append(l.order, h)
}

// tree adds tree h and what it holds that the trees bases (the same path
// in the commit's parents) do not: an entry equal to a parent's is the
// parent's, which the remote has or this pack carries.
func (l *objectList) tree(h plumbing.Hash, bases []plumbing.Hash) error {
	if l.seen[h] {
		return nil
	}
	for _, b := range bases {
		if b == h {
			return nil
		}
	}
	t, err := l.repo.TreeObject(h)
	if err != nil {
		return fmt.Errorf("tree %s: %w", short(h.String()), err)
	}
	l.add(h)
	var baseTrees []*object.Tree
	for _, b := range bases {
		bt, err := l.repo.TreeObject(b)
		if err != nil {
			return fmt.Errorf("tree %s: %w", short(b.String()), err)
		}
		baseTrees = append(baseTrees, bt)
	}
entries:
	for _, e := range t.Entries {
		if e.Mode == filemode.Submodule || l.seen[e.Hash] {
			continue
		}
		var sub []plumbing.Hash
		for _, bt := range baseTrees {
			be, err := bt.FindEntry(e.Name)
			if err != nil {
				continue
			}
			if be.Hash == e.Hash {
				continue entries
			}
			if be.Mode == filemode.Dir {
				sub = append(sub, be.Hash)
			}
		}
		if e.Mode == filemode.Dir {
			if err := l.tree(e.Hash, sub); err != nil {
				return err
			}
			continue
		}
		l.add(e.Hash)
	}
	return nil
}

// newCommits returns the commits reachable from head and from none of
// tips, as `git rev-list head --not tips` does, walking newest committer
// date first and stopping once every commit left to look at is reachable
// from a tip: a work branch's few commits cost a few reads whatever the
// history's size. A commit found reachable from a tip after it was taken
// (dated out of order) passes that on to every commit already seen below
// it, as git's walk does, so a clock skew costs a few commits more, not
// the history; and one that no tip reaches is never left out. Tips the
// repository lacks are ignored.
func newCommits(repo *git.Repository, head plumbing.Hash, tips []plumbing.Hash) ([]*object.Commit, error) {
	const uninteresting, queued = 1, 2
	flags := map[plumbing.Hash]uint8{}
	parents := map[plumbing.Hash][]plumbing.Hash{} // of the commits taken
	q := &commitQueue{}
	interesting := 0 // queued commits not marked uninteresting
	push := func(c *object.Commit, f uint8) {
		flags[c.Hash] = f | queued
		if f&uninteresting == 0 {
			interesting++
		}
		heap.Push(q, c)
	}
	// mark makes h and every commit seen below it uninteresting.
	mark := func(h plumbing.Hash) {
		stack := []plumbing.Hash{h}
		for len(stack) > 0 {
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			f, known := flags[h]
			if !known || f&uninteresting != 0 {
				continue
			}
			flags[h] = f | uninteresting
			if f&queued != 0 {
				interesting--
				continue // its parents are marked when it is taken
			}
			stack = append(stack, parents[h]...)
		}
	}
	for _, t := range tips {
		if t.IsZero() || flags[t] != 0 {
			continue
		}
		c, err := repo.CommitObject(t)
		if err != nil {
			continue // not ours: the remote's alone
		}
		push(c, uninteresting)
	}
	if flags[head] != 0 {
		return nil, nil // a tip is head
	}
	hc, err := repo.CommitObject(head)
	if err != nil {
		return nil, err
	}
	push(hc, 0)
	var out []*object.Commit
	for q.Len() > 0 && interesting > 0 {
		c := heap.Pop(q).(*object.Commit)
		f := flags[c.Hash]
		flags[c.Hash] = f &^ queued
		parents[c.Hash] = c.ParentHashes
		if f&uninteresting == 0 {
			interesting--
			out = append(out, c)
		}
		for _, ph := range c.ParentHashes {
			if _, known := flags[ph]; known {
				if f&uninteresting != 0 {
					mark(ph)
				}
				continue
			}
			pc, err := repo.CommitObject(ph)
			if err != nil {
				if f&uninteresting != 0 {
					continue // below a tip: the remote's
				}
				return nil, fmt.Errorf("parent %s of %s: %w", short(ph.String()), short(c.Hash.String()), err)
			}
			push(pc, f&uninteresting)
		}
	}
	kept := out[:0]
	for _, c := range out {
		if flags[c.Hash]&uninteresting == 0 {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// commitQueue is a max-heap of commits by committer date.
type commitQueue []*object.Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	return q[i].Committer.When.After(q[j].Committer.When)
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}
