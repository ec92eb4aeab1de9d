package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/internal/wait"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// ErrPushRejected reports that the control branch moved under a push: some
// other reconciler (or a person) pushed first. The pass fetches, re-plans
// from the new head and tries again; it never force-pushes.
var ErrPushRejected = errors.New("control branch moved: push rejected")

// ErrDirtyCheckout reports a local control checkout with uncommitted changes
// on the control branch, which a pass would otherwise have to overwrite.
var ErrDirtyCheckout = errors.New("the control checkout has uncommitted changes on the control branch")

// Options say where the control repository is.
type Options struct {
	// Control is a local path or a URL. A URL, a bare repository, or a
	// checkout with an origin remote is cloned into CacheDir and pushed to;
	// a checkout without a remote is committed to in place.
	Control string
	// Branch is the control branch; when empty, gallivant.yaml at main (or
	// master) decides.
	Branch string
	// CacheDir holds clones of remote control repositories.
	CacheDir string
	// Token authenticates https remotes; it never appears in logs or errors.
	Token string
	// AuthorName and AuthorEmail sign the loop: commits.
	AuthorName, AuthorEmail string
	// Log receives the one warning a repaired cache earns; slog.Default
	// when nil.
	Log *slog.Logger
	// Wait waits d before a fetch is retried, or returns ctx's error; nil
	// waits on a timer. Tests pass one that records d and returns at once.
	Wait func(ctx context.Context, d time.Duration) error
	// MaxObject bounds the size of a file in the control repository's
	// history that a fetch accepts (ErrObjectTooLarge); DefaultMaxObject
	// when 0.
	MaxObject int64
}

// Store is the control repository: read the documents at the control branch
// head, commit transitions on top of it, push with compare-and-swap.
type Store struct {
	repo     *git.Repository
	dir      string
	inPlace  bool // a local checkout without a remote
	worktree bool // inPlace and non-bare: keep the work tree in step
	branch   string
	auth     transport.AuthMethod
	author   object.Signature
	head     plumbing.Hash // the commit the pass planned from
	tip      plumbing.Hash // head plus this pass's unpushed commits
	remote   string        // the clone's origin; empty in place
	log      *slog.Logger
	// written are the objects Commit made since head: exactly what a
	// push sends (see sendPack); nil when there are none.
	written *passObjects
	// packs are the clone's pack files as last indexed (refreshPacks).
	packs []plumbing.Hash
	// wait is Options.Wait, or a timer.
	wait func(ctx context.Context, d time.Duration) error
	// versions is LoopVersions' answer at the last tip it was asked
	// about; nil before the first.
	versions *versionIndex
	// maxObject is Options.MaxObject, or DefaultMaxObject.
	maxObject int64
}

// Open opens (cloning if needed) the control repository.
func Open(ctx context.Context, opts Options) (*Store, error) {
	s := &Store{author: object.Signature{Name: opts.AuthorName, Email: opts.AuthorEmail}, log: opts.Log, wait: opts.Wait, maxObject: opts.MaxObject}
	if s.maxObject <= 0 {
		s.maxObject = DefaultMaxObject
	}
	if s.wait == nil {
		s.wait = wait.For
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.author.Name == "" {
		s.author.Name = "gallivant"
	}
	if s.author.Email == "" {
		s.author.Email = "gallivant@users.noreply.github.com"
	}
	s.auth = gitpack.TokenAuth(opts.Token)
	remote := opts.Control
	if !isURL(opts.Control) {
		var err error
		if remote, err = s.openLocal(opts.Control); err != nil {
			return nil, err
		}
	}
	if remote != "" {
		if err := s.openCache(remote, opts.CacheDir); err != nil {
			return nil, err
		}
	}
	s.branch = opts.Branch
	if err := s.Sync(ctx); err != nil {
		return nil, err
	}
	if s.branch == "" {
		// gallivant.yaml at the default branch names the control branch.
		if data, ok, _ := s.ReadFile(ctx, s.head.String(), specs.ConfigFile); ok {
			if cfg, _ := specs.ParseConfig(specs.ConfigFile, data); cfg.Control.Branch != s.branch {
				s.branch = cfg.Control.Branch
				if err := s.Sync(ctx); err != nil {
					return nil, err
				}
			}
		}
	}
	return s, nil
}

// openLocal opens a control repository on disk. A bare repository, or a
// checkout with an origin, is used through a cache clone of that remote,
// which it returns; a checkout without one is used in place ("" remote).
func (s *Store) openLocal(p string) (remote string, err error) {
	if p == "" {
		p = "."
	}
	repo, err := git.PlainOpenWithOptions(p, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return "", fmt.Errorf("open control repository %s: %w", p, err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return "", fmt.Errorf("read control repository config: %w", err)
	}
	wt, wtErr := repo.Worktree()
	switch {
	case cfg.Core.IsBare:
		abs, _ := filepath.Abs(p)
		return "file://" + abs, nil
	case cfg.Remotes["origin"] != nil && len(cfg.Remotes["origin"].URLs) > 0:
		remote = cfg.Remotes["origin"].URLs[0]
		if !isURL(remote) && !filepath.IsAbs(remote) {
			remote = filepath.Join(wt.Filesystem.Root(), remote)
		}
		if !isURL(remote) {
			remote = "file://" + remote
		}
		return remote, nil
	}
	s.repo, s.inPlace, s.worktree = repo, true, wtErr == nil
	s.dir = p
	if wtErr == nil {
		s.dir = wt.Filesystem.Root()
	}
	return "", nil
}

// openCache opens (or creates) this process's cache clone of remote.
// Credentials in the URL are taken out of it: the clone's config holds the
// bare URL, and each fetch and push is handed the credentials (go-git's
// Auth), so no file ever holds them.
func (s *Store) openCache(remote, cacheDir string) error {
	remote, userAuth := splitCredentials(remote)
	if userAuth != nil {
		s.auth = userAuth
	}
	if cacheDir == "" {
		return errors.New("a remote control repository needs a cache directory")
	}
	sum := sha256.Sum256([]byte(redact.URLs(remote)))
	dir, err := lockSlot(filepath.Join(cacheDir, "control", hex.EncodeToString(sum[:8])))
	if err != nil {
		return fmt.Errorf("open the control cache: %w", err)
	}
	s.dir = dir
	if err := s.openClone(remote); err != nil {
		return scrub(err)
	}
	// A cache written before credentials were kept out of config gets the
	// bare URL.
	if err := bareOrigin(s.repo, remote); err != nil {
		return fmt.Errorf("open the control cache %s: %w", s.dir, scrub(err))
	}
	return nil
}

func isURL(s string) bool { return strings.Contains(s, "://") || strings.HasPrefix(s, "git@") }

// Sync fetches the control branch and plans from its head, dropping any
// commit a crashed pass left unpushed.
func (s *Store) Sync(ctx context.Context) error {
	s.refreshPacks()
	if s.inPlace {
		name := s.branch
		if name == "" {
			name = s.defaultBranch()
		}
		ref, err := s.repo.Reference(plumbing.NewBranchReferenceName(name), true)
		if err != nil {
			return fmt.Errorf("control branch %s: %w", name, err)
		}
		s.branch, s.head, s.tip, s.written = name, ref.Hash(), ref.Hash(), nil
		return nil
	}
	return s.syncClone(ctx)
}

// errNoBranch reports a control branch the remote does not have.
var errNoBranch = errors.New("the control branch does not exist on the remote")

// fetchHead fetches the clone and plans from the control branch head.
func (s *Store) fetchHead(ctx context.Context) error {
	var err error
	if !s.localRemoteCurrent() {
		// RemoteURL: the clone's config is not trusted for the URL the
		// credentials go to (a same-user agent could rewrite origin's url).
		err = s.fetchRepo().FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: s.remote, Auth: s.auth, Force: true, Prune: true,
			RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}})
		s.notePacks()
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		if tl := tooLarge(err); tl != nil {
			return fmt.Errorf("fetch the control repository: %w", tl)
		}
		if networkError(err) || transient(err) {
			return fmt.Errorf("fetch the control repository: %w", redact.Error(err))
		}
		return fmt.Errorf("fetch the control repository: %w", scrub(err))
	}
	if s.branch == "" {
		s.branch = s.defaultBranch()
	}
	ref, err := s.repo.Reference(plumbing.NewRemoteReferenceName("origin", s.branch), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return fmt.Errorf("control branch %s: %w", s.branch, errNoBranch)
	}
	if err != nil {
		return fmt.Errorf("control branch %s: %w", s.branch, err)
	}
	if _, err := s.repo.CommitObject(ref.Hash()); err != nil {
		return fmt.Errorf("control commit %s: %w", short(ref.Hash().String()), err)
	}
	s.head, s.tip, s.written = ref.Hash(), ref.Hash(), nil
	return s.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(s.branch), s.head))
}

// localRemoteCurrent reports whether the remote is a repository on this
// machine (file://) whose branches are exactly the ones the clone holds
// from its last fetch, each at the same commit: read from its references,
// as upload-pack's advertisement would be, so that a pass starting where
// the last one ended runs no git process for a fetch that would bring
// nothing. Anything it cannot read, or any difference, is a fetch.
func (s *Store) localRemoteCurrent() bool {
	p, ok := strings.CutPrefix(s.remote, "file://")
	if !ok || !filepath.IsAbs(p) {
		return false
	}
	remote, err := git.PlainOpen(p)
	if err != nil {
		return false
	}
	theirs, err := branchHeads(remote, "refs/heads/")
	if err != nil || len(theirs) == 0 {
		return false
	}
	ours, err := branchHeads(s.repo, "refs/remotes/origin/")
	if err != nil || !maps.Equal(theirs, ours) {
		return false
	}
	for _, h := range ours {
		if s.repo.Storer.HasEncodedObject(h) != nil {
			return false
		}
	}
	return true
}

// branchHeads maps the branch names of repo's references under prefix to
// their commits; a symbolic reference (origin/HEAD) is not a branch.
func branchHeads(repo *git.Repository, prefix string) (map[string]plumbing.Hash, error) {
	refs, err := repo.Storer.IterReferences()
	if err != nil {
		return nil, err
	}
	defer refs.Close()
	out := map[string]plumbing.Hash{}
	err = refs.ForEach(func(r *plumbing.Reference) error {
		name, ok := strings.CutPrefix(r.Name().String(), prefix)
		if ok && r.Type() == plumbing.HashReference && name != "HEAD" {
			out[name] = r.Hash()
		}
		return nil
	})
	return out, err
}

func (s *Store) defaultBranch() string {
	for _, b := range []string{"main", "master"} {
		name := plumbing.NewBranchReferenceName(b)
		if !s.inPlace {
			name = plumbing.NewRemoteReferenceName("origin", b)
		}
		if _, err := s.repo.Reference(name, true); err == nil {
			return b
		}
	}
	return "main"
}

// scrub keeps tokens out of errors: go-git errors can carry URLs.
func scrub(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(redact.URLs(err.Error()))
}

// Head returns the control commit the pass plans from.
func (s *Store) Head() string { return s.head.String() }

// Tip returns the newest local commit, head plus unpushed transitions.
func (s *Store) Tip() string { return s.tip.String() }

// Dir returns where the store's repository lives.
func (s *Store) Dir() string { return s.dir }

// UseGitAuth makes the store fetch and push with auth from now on, in
// place of Options.Token: a GitHub App's refreshed installation
// tokens (githubapi.AppTokens.GitAuth).
func (s *Store) UseGitAuth(auth transport.AuthMethod) { s.auth = auth }

// Files reads every document under dirs (and the configuration) at the
// tip. Unreadable entries become diagnostics naming the file; a document
// whose blob is missing from the repository is an error, and so is ctx
// ending during the walk (its error).
func (s *Store) Files(ctx context.Context, dirs []string) ([]specs.File, parse.Diagnostics, error) {
	return s.FilesWith(ctx, dirs, nil)
}

// BlobID is a git blob's id, as a tree names it; its String is the
// hexadecimal form specs.File.ID holds.
type BlobID [20]byte

// String is the id in hexadecimal.
func (id BlobID) String() string { return plumbing.Hash(id).String() }

// FilesWith is Files, taking the bytes of the blobs known knows (by their
// id, which the tree gives for free) instead of reading them: the daemon's
// parse cache holds the documents of its last pass. Each File carries its
// blob id. A nil known reads every blob.
func (s *Store) FilesWith(ctx context.Context, dirs []string, known func(BlobID) ([]byte, bool)) ([]specs.File, parse.Diagnostics, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := s.flush(); err != nil { // the tip may be one of the pass's own commits
		return nil, nil, err
	}
	c, err := s.repo.CommitObject(s.tip)
	if err != nil {
		return nil, nil, fmt.Errorf("read control commit %s: %w", short(s.tip.String()), err)
	}
	root, err := c.Tree()
	if err != nil {
		return nil, nil, err
	}
	fc := &fileCollector{ctx: ctx, s: s, known: known, seen: map[string]bool{}}
	if e, err := root.FindEntry(specs.ConfigFile); err == nil && e.Mode.IsFile() {
		_ = fc.add(specs.ConfigFile, *e) // unreadable, it is left out, as the pass's own read of it reports
	}
	for _, d := range dirs {
		t := root
		if d != "." {
			if t, err = root.Tree(d); err != nil {
				continue
			}
		}
		if err := fc.walk(t, d); err != nil {
			return nil, fc.diags, err
		}
	}
	sort.Slice(fc.files, func(i, j int) bool { return fc.files[i].Path < fc.files[j].Path })
	return fc.files, fc.diags, nil
}

// fileCollector gathers the documents FilesWith reads, each path once.
type fileCollector struct {
	ctx   context.Context
	s     *Store
	known func(BlobID) ([]byte, bool)
	seen  map[string]bool
	files []specs.File
	diags parse.Diagnostics
}

// walk adds the documents of tree t, the scanned directory d.
func (fc *fileCollector) walk(t *object.Tree, d string) error {
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !e.Mode.IsFile() {
			continue // a directory (walked into) or a submodule
		}
		if p, ok := documentPath(d, name); ok {
			if err := fc.add(p, e); err != nil {
				return err
			}
		}
	}
}

// documentPath is the path of the file name found under the scanned
// directory d, and whether it is a document: a .md file that is not a
// README, not hidden and not under a hidden directory.
func documentPath(d, name string) (string, bool) {
	p := path.Join(d, name)
	if d == "." {
		p = name
	}
	base := path.Base(p)
	return p, strings.HasSuffix(p, ".md") && !strings.EqualFold(base, "README.md") && !strings.HasPrefix(base, ".") && !hiddenDir(name)
}

// add reads the file p of entry e. It fails only when the blob is
// missing: a broken repository, which must stop the pass rather than look
// like a document that is not there.
func (fc *fileCollector) add(p string, e object.TreeEntry) error {
	if fc.seen[p] {
		return nil
	}
	fc.seen[p] = true
	if e.Mode == filemode.Symlink {
		fc.diags.Add(p, parse.Pos{Line: 1, Col: 1}, parse.SeverityInfo, "file/symlink", "symlinks are not followed")
		return nil
	}
	if fc.known != nil {
		if data, ok := fc.known(BlobID(e.Hash)); ok {
			fc.files = append(fc.files, specs.File{Path: p, Data: data, ID: e.Hash.String()})
			return nil
		}
	}
	b, err := fc.s.repo.BlobObject(e.Hash)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if b.Size > parse.MaxSize {
		fc.diags.Errorf(p, parse.Pos{Line: 1, Col: 1}, parse.RuleTooLarge, "file is %d bytes; documents are limited to %d bytes", b.Size, parse.MaxSize)
		return nil
	}
	r, err := b.Reader()
	if err != nil {
		fc.diags.Errorf(p, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", err)
		return nil
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, parse.MaxSize+1))
	if err != nil {
		fc.diags.Errorf(p, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", err)
		return nil
	}
	fc.files = append(fc.files, specs.File{Path: p, Data: data, ID: e.Hash.String()})
	return nil
}

// hiddenDir reports whether a path below a scanned directory passes
// through a hidden directory. The scanned directory itself may be one
// (formats.kiro: [.kiro/specs]), as `gallivant check` also allows.
func hiddenDir(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}

// ReadFile reads one file at a commit; ok is false when it does not exist.
func (s *Store) ReadFile(ctx context.Context, commit, p string) (data []byte, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if s.isPending(plumbing.NewHash(commit)) {
		if err := s.flush(); err != nil {
			return nil, false, err
		}
	}
	return readFileAt(s.repo, commit, p)
}

// readFileAt reads file p at commit of repo, up to parse.MaxSize+1 bytes.
func readFileAt(repo *git.Repository, commit, p string) (data []byte, ok bool, err error) {
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, false, fmt.Errorf("read control commit %s: %w", short(commit), err)
	}
	f, err := c.File(p)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r, err := f.Reader()
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	data, err = io.ReadAll(io.LimitReader(r, parse.MaxSize+1))
	return data, err == nil, err
}

// Commit writes content at path on top of the tip and returns the new
// commit. It changes exactly one file. The commit and its objects stay in
// memory until something needs them on disk (see storepack.go); a process
// that dies before then leaves nothing behind.
func (s *Store) Commit(ctx context.Context, p string, content []byte, message string, when time.Time) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	root := s.written.tipTreeOf(s.tip)
	if root.IsZero() {
		parent, err := s.repo.CommitObject(s.tip)
		if err != nil {
			return "", err
		}
		root = parent.TreeHash
	}
	bh := s.putContent(plumbing.BlobObject, append([]byte(nil), content...))
	tree, err := s.replace(root, strings.Split(p, "/"), bh)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	sig := s.author
	sig.When = when
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree, ParentHashes: []plumbing.Hash{s.tip}}
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return "", err
	}
	data, err := readAll(obj)
	if err != nil {
		return "", err
	}
	h := s.putContent(plumbing.CommitObject, data)
	s.tip = h
	s.written.tip, s.written.tipTree = h, tree
	return h.String(), nil
}

// replace returns a tree like tree with the file at parts set to blob,
// creating directories as needed.
func (s *Store) replace(tree plumbing.Hash, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	m, err := s.memTreeOf(tree)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	name := parts[0]
	if len(parts) == 1 {
		return s.setEntry(m, tree, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}), nil
	}
	sub := plumbing.ZeroHash
	if i, ok := m.find(name); ok {
		if m.entries[i].Mode != filemode.Dir {
			return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a directory", name)
		}
		sub = m.entries[i].Hash
	}
	h, err := s.replace(sub, parts[1:], blob)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.setEntry(m, tree, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}), nil
}

// Landed reports whether commit sha is on the control branch as last
// fetched or pushed: the head or one of its ancestors. The walk of the
// head's ancestors stops when ctx ends, and the answer is then false: not
// known to have landed.
func (s *Store) Landed(ctx context.Context, sha string) bool {
	if s.isPending(plumbing.NewHash(sha)) {
		return false // made since the head, so not on it
	}
	c, err := s.repo.CommitObject(plumbing.NewHash(sha))
	if err != nil {
		return false
	}
	head, err := s.repo.CommitObject(s.head)
	if err != nil {
		return false
	}
	if c.Hash == head.Hash {
		return true
	}
	found := false
	iter := object.NewCommitPreorderIter(head, nil, nil)
	defer iter.Close()
	err = iter.ForEach(func(a *object.Commit) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if a.Hash == c.Hash {
			found = true
			return storer.ErrStop
		}
		return nil
	})
	return err == nil && found
}

// Unpushed reports whether the tip holds commits the remote lacks.
func (s *Store) Unpushed() bool { return s.tip != s.head }

// Push publishes the tip with compare-and-swap on the head the pass planned
// from. A moved branch is ErrPushRejected; it never force-pushes.
func (s *Store) Push(ctx context.Context) error {
	if !s.Unpushed() {
		return nil
	}
	// The pass's objects reach the disk before any reference names them.
	if err := s.flush(); err != nil {
		return err
	}
	ref := plumbing.NewBranchReferenceName(s.branch)
	if s.inPlace {
		var paths []string
		onBranch := false
		if head, _ := s.repo.Head(); s.worktree && head != nil && head.Name() == ref {
			onBranch = true
			var err error
			if paths, err = s.changedPaths(s.head, s.tip); err != nil {
				return err
			}
			// A person's edit to a file this pass changed is never
			// overwritten: the pass is refused, naming the files.
			if err := s.checkInPlace(ctx, paths); err != nil {
				return err
			}
		}
		err := s.repo.Storer.CheckAndSetReference(plumbing.NewHashReference(ref, s.tip), plumbing.NewHashReference(ref, s.head))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrPushRejected, err)
		}
		old := s.head
		s.head = s.tip
		if onBranch {
			// Only the files the pass's commits changed are written; the
			// rest of the tree, staged work included, is the person's.
			s.head = old
			err := s.updateInPlace(ctx, paths)
			s.head = s.tip
			var dirty *DirtyFilesError
			if errors.As(err, &dirty) {
				// Edited between the check and the write: the person's
				// edit stays; the branch has the transition.
				s.log.Warn("kept a person's edit of a file the pass changed; it now differs from the control branch", "files", strings.Join(dirty.Paths, " "))
				err = nil
			}
			if err != nil {
				return fmt.Errorf("update the control work tree: %w", err)
			}
		}
		s.written = s.written.afterPush()
		return nil
	}
	if err := s.repo.Storer.SetReference(plumbing.NewHashReference(ref, s.tip)); err != nil {
		return err
	}
	if s.written != nil && len(s.written.all) > 0 {
		if err := s.sendPack(ctx, ref); err != nil {
			return err
		}
		s.head, s.written = s.tip, s.written.afterPush()
		return nil
	}
	spec := config.RefSpec(ref.String() + ":" + ref.String())
	msgs := &remoteMessages{}
	err := s.repo.PushContext(ctx, &git.PushOptions{RemoteName: "origin", RemoteURL: s.remote, Auth: s.auth, RefSpecs: []config.RefSpec{spec},
		RequireRemoteRefs: []config.RefSpec{config.RefSpec(s.head.String() + ":" + ref.String())}, Progress: msgs})
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
		s.head = s.tip
		return nil
	case rejected(err):
		return fmt.Errorf("%w: %v", ErrPushRejected, scrub(err))
	}
	if perr := refusedByProtection(s.branch, msgs); perr != nil {
		return perr
	}
	return fmt.Errorf("push the control branch: %w", scrub(err))
}

// rejected recognizes go-git's push rejections: the client-side
// fast-forward check, the RequireRemoteRefs lease, and receive-pack's
// locked compare-and-swap. go-git returns them as plain errors.
func rejected(err error) bool {
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "failed to update ref", "remote ref", "stale", "cannot lock ref", "fetch first"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// LogEntry is one commit touching a path.
type LogEntry struct {
	SHA     string
	When    time.Time
	Subject string
	Message string
}

// Log returns the commits that changed p, newest first, from the tip, as
// `git log -- p` lists them, at most limit of them (limit <= 0: all); ctx
// ending stops the walk with its error. It is HistoryReader.Logs' walk for
// one path.
func (s *Store) Log(ctx context.Context, p string, limit int) ([]LogEntry, error) {
	if err := s.flush(); err != nil { // the walk starts at the tip, which may be in memory
		return nil, err
	}
	objs := gitpack.NewReader(s.repo.Storer, 0)
	defer objs.Close()
	out, err := logs(ctx, objs, s.tip, []string{p}, limit)
	if err != nil {
		return nil, err
	}
	return out[p], nil
}

// short is a commit's 7-character abbreviation, as people read it.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
