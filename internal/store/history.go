package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// ErrUnknownRevision reports a --since revision the control repository
// does not hold, or one that is not on the control branch's first-parent
// line.
var ErrUnknownRevision = errors.New("unknown revision")

// History walks the control branch's first-parent history from the tip,
// oldest first, and hands each commit to fn with its ledger changes. since
// (a commit SHA, a prefix of one, or a branch or tag name; "" for the whole
// history) is excluded: the walk starts at the commit after it. Only
// ledgers whose path is in only are included when only is non-empty. ctx
// ending stops the walk, in either of its halves, with ctx's error; fn is
// not called after it ended.
func (s *Store) History(ctx context.Context, since string, only map[string]bool, fn func(audit.Commit) error) error {
	if err := s.flush(); err != nil { // the walk starts at the tip, which may be in memory
		return err
	}
	stop := plumbing.ZeroHash
	if since != "" {
		h, err := s.resolve(since)
		if err != nil {
			return err
		}
		stop = h
	}
	repo, done := s.historyRepo()
	defer done()
	w := &walker{ctx: ctx, s: s, repo: repo, only: only, walk: newVersionWalk(ctx, s.repo, nil)}
	defer w.walk.close()
	var line []plumbing.Hash
	for h := s.tip; ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if h == stop {
			break
		}
		line = append(line, h)
		st, err := w.walk.header(h)
		if err != nil {
			return err
		}
		if st.parent.IsZero() {
			if !stop.IsZero() {
				return fmt.Errorf("%w: %s is not on the first-parent history of %s", ErrUnknownRevision, since, s.branch)
			}
			break
		}
		h = st.parent
	}
	for i := len(line) - 1; i >= 0; i-- {
		ac, err := w.auditCommit(line[i])
		if err == nil {
			err = ctx.Err() // a spec read after ctx ended is not a missing spec
		}
		if err != nil {
			return err
		}
		if err := fn(ac); err != nil {
			return err
		}
	}
	return nil
}

// resolve reads a revision: a full or abbreviated SHA, a branch or a tag.
func (s *Store) resolve(rev string) (plumbing.Hash, error) {
	if h, err := s.repo.ResolveRevision(plumbing.Revision(rev)); err == nil {
		return *h, nil
	}
	if len(rev) >= 4 && len(rev) < 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		// An abbreviated SHA: go-git resolves only full ones in some
		// repositories, so look along the first-parent line.
		for c, err := s.repo.CommitObject(s.tip); err == nil; c, err = c.Parent(0) {
			if strings.HasPrefix(c.Hash.String(), rev) {
				return c.Hash, nil
			}
			if c.NumParents() == 0 {
				break
			}
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: %s", ErrUnknownRevision, rev)
}

// historyRepo opens the control repository's object store a second time
// keeping pack files open between reads: a walk reads every commit, and
// go-git otherwise reopens the pack for each object. It falls back to the
// store's own handle.
func (s *Store) historyRepo() (*git.Repository, func()) {
	gitDir := s.dir
	if fi, err := os.Stat(filepath.Join(s.dir, ".git")); err == nil && fi.IsDir() {
		gitDir = filepath.Join(s.dir, ".git")
	}
	st := gitopen.Storage(osfs.New(gitDir), cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(st, nil)
	if err != nil {
		return s.repo, func() {}
	}
	if _, err := repo.CommitObject(s.tip); err != nil {
		st.Close()
		return s.repo, func() {}
	}
	return repo, func() { st.Close() }
}

// walker reads one walk's commits: their headers and trees through the
// store's raw walk (versionWalk, the tamper check's), the ledgers' blobs
// through repo.
type walker struct {
	ctx  context.Context
	s    *Store
	repo *git.Repository
	only map[string]bool
	walk *versionWalk
}

// auditCommit lists one commit's changes against its first parent: the
// ledgers (files that are ledgers before or after, by their first line)
// with both versions, and the other paths.
func (w *walker) auditCommit(h plumbing.Hash) (audit.Commit, error) {
	s, only := w.s, w.only
	out := audit.Commit{SHA: h.String()}
	c, err := w.walk.fullCommit(h)
	if err != nil {
		return out, err
	}
	out.Author, out.Message = c.Author.Name+" <"+c.Author.Email+">", c.Message
	var ptree plumbing.Hash
	if len(c.ParentHashes) > 0 {
		if ptree, err = w.walk.treeOf(c.ParentHashes[0]); err != nil {
			return out, err
		}
	}
	var changes []treeChange
	if err := w.walk.diffAll(ptree, c.TreeHash, "", &changes); err != nil {
		return out, fmt.Errorf("diff %s: %w", short(out.SHA), err)
	}
	sortChanges(changes)
	for _, ch := range changes {
		before, err := w.ledgerBlob(ch.path, ch.from)
		if err != nil {
			return out, err
		}
		after, err := w.ledgerBlob(ch.path, ch.to)
		if err != nil {
			return out, err
		}
		if before == nil && after == nil {
			out.Others = append(out.Others, ch.path)
			continue
		}
		if len(only) > 0 && !only[ch.path] {
			out.Filtered++
			continue
		}
		lc := audit.Change{Path: ch.path, Before: before, After: after}
		s.auditSpecs(w.ctx, c, &lc)
		out.Ledgers = append(out.Ledgers, lc)
	}
	return out, nil
}

// ledgerBlob returns a changed file's content when it is a ledger, nil
// otherwise (or when absent: e is nil).
func (w *walker) ledgerBlob(name string, e *treeItem) ([]byte, error) {
	if e == nil || path.Ext(name) != ".md" || !e.mode.IsFile() {
		return nil, nil
	}
	b, err := w.repo.BlobObject(e.id)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, parse.MaxSize+1))
	if err != nil {
		return nil, err
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if string(bytes.TrimRight(first, "\r")) != ledger.Discriminant {
		return nil, nil
	}
	return data, nil
}

// auditSpecs reads the specs a seed or an amendment is replayed with: the
// ledger's spec at this commit and at the parent ledger's spec-commit. A
// spec that cannot be read or parsed is left nil; the checker says so.
func (s *Store) auditSpecs(ctx context.Context, c *object.Commit, lc *audit.Change) {
	subject, _, _ := strings.Cut(c.Message, "\n")
	if lc.After == nil {
		return
	}
	after, ds := ledger.Parse(lc.Path, lc.After)
	if ledger.Fatal(ds) {
		return
	}
	// A coordinated entry's per-leg transitions are replayed on the leg's
	// view, which the spec defines; other transitions need no spec.
	ts, err := ledger.ParseSubject(subject)
	if err != nil {
		return
	}
	if k := ts.Kind; k != ledger.KindSeedLedger && k != ledger.KindAmend && k != ledger.KindCutRow && len(after.Members) == 0 {
		return
	}
	lc.Spec = s.specAt(ctx, c.Hash.String(), after.Spec)
	if lc.Before != nil {
		if before, ds := ledger.Parse(lc.Path, lc.Before); !ledger.Fatal(ds) {
			if sc := before.Delivery.SpecCommit; sc != "" {
				lc.Approved = s.specAt(ctx, sc, after.Spec)
			}
		}
	}
}

func (s *Store) specAt(ctx context.Context, commit, p string) *specs.Spec {
	def := specs.Defaults{}
	if data, ok, _ := s.ReadFile(ctx, commit, specs.ConfigFile); ok {
		if cfg, _ := specs.ParseConfig(specs.ConfigFile, data); cfg != nil {
			// The configuration also says which grammar reads p
			// (formats: spec-kit, Kiro).
			def = cfg.SpecDefaults(p)
			def.ConfigUnreadable = false
		}
	}
	data, ok, err := s.ReadFile(ctx, commit, p)
	if !ok || err != nil {
		return nil
	}
	sp, _, ds := specs.ParseSpecFile(specs.File{Path: p, Data: data}, def)
	if ds.HasErrors() {
		return nil
	}
	// The contract holds the sources' bytes at the same commit.
	sp, err = sp.WithSources(s.SourceReader(ctx, commit))
	if err != nil {
		return nil
	}
	return sp
}
