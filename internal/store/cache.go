package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// cacheSlots bounds how many processes can share one cache directory for
// one control repository: each holds its own clone.
const cacheSlots = 16

// heldSlots are the clone directories this process has locked. A lock is
// held until the process exits; stores of the same process share a slot,
// because they run one after the other (or, in tests, nested on purpose).
var heldSlots = struct {
	sync.Mutex
	dirs map[string]bool
}{dirs: map[string]bool{}}

// lockSlot picks the clone directory for base: base itself when no other
// process uses it, else base.2, base.3, … Each is guarded by an exclusive
// flock on <dir>.lock that the kernel releases when the process dies, so a
// crashed reconciler never leaves a stale lock behind.
func lockSlot(base string) (string, error) {
	heldSlots.Lock()
	defer heldSlots.Unlock()
	for i := 1; i <= cacheSlots; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s.%d", base, i)
		}
		if heldSlots.dirs[dir] {
			return dir, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= cacheSlots; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return "", err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue
			}
			return "", fmt.Errorf("lock %s: %w", dir, err)
		}
		// The file stays open (and locked) for the life of the process.
		heldSlots.dirs[dir] = true
		return dir, nil
	}
	return "", fmt.Errorf("%d gallivant processes already use the control clones in %s; give this one its own GALLIVANT_CACHE", cacheSlots, filepath.Dir(base))
}

// openClone opens the control clone in s.dir, creating it when absent and
// re-creating it when it cannot even be opened (a torn config file).
func (s *Store) openClone(remote string) error {
	repo, err := gitopen.PlainOpen(s.dir, nil)
	switch {
	case errors.Is(err, git.ErrRepositoryNotExists):
		return s.initClone(remote)
	case err != nil:
		s.log.Warn("the control cache is damaged; re-cloning", "dir", s.dir, "damage", err.Error())
		return s.initClone(remote)
	}
	s.repo, s.remote = repo, remote
	return nil
}

// initClone makes s.dir an empty bare repository with origin at remote.
func (s *Store) initClone(remote string) error {
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove the damaged control cache %s: %w", s.dir, err)
	}
	repo, err := git.PlainInit(s.dir, true)
	if err == nil {
		_, err = repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{remote}})
	}
	if err == nil {
		repo, err = gitopen.PlainOpen(s.dir, nil)
	}
	if err != nil {
		return fmt.Errorf("create the control cache %s: %w", s.dir, err)
	}
	s.repo, s.remote = repo, remote
	return nil
}

// damage reports what is wrong with the clone, or nil: a reference that
// cannot be read (a torn or empty ref file, a broken packed-refs) or that
// names an object the clone does not have. A crash during a fetch or a
// commit leaves exactly these.
func (s *Store) damage() error {
	if _, err := s.repo.Config(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	iter, err := s.repo.Storer.IterReferences()
	if err != nil {
		return fmt.Errorf("references: %w", err)
	}
	defer iter.Close()
	return iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference {
			return nil
		}
		if ref.Hash().IsZero() {
			return fmt.Errorf("%s is empty", ref.Name())
		}
		if err := s.repo.Storer.HasEncodedObject(ref.Hash()); err != nil {
			return fmt.Errorf("%s names %s: %w", ref.Name(), short(ref.Hash().String()), err)
		}
		return nil
	})
}

// staleLocks lists the git lock files under dir, relative to it.
func staleLocks(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// networkError reports whether a fetch failed on the way to the remote
// rather than in the clone: those are reported, never repaired by
// re-cloning.
func networkError(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, transport.ErrRepositoryNotFound) || errors.Is(err, transport.ErrAuthenticationRequired) ||
		errors.Is(err, transport.ErrAuthorizationFailed) || errors.Is(err, transport.ErrEmptyRemoteRepository)
}

// syncClone fetches the control branch into the clone and reads its head,
// repairing a damaged clone once by re-cloning: a cache is disposable, so
// damage costs a fetch, never a person.
func (s *Store) syncClone(ctx context.Context) error {
	if locks := staleLocks(s.dir); len(locks) > 0 {
		// This process holds the clone's flock, so no gallivant uses it
		// and no git ever does: every lock file is a crash's leftover.
		s.log.Warn("removing stale lock files from the control cache", "dir", s.dir, "locks", strings.Join(locks, " "))
		for _, l := range locks {
			os.Remove(filepath.Join(s.dir, l))
		}
	}
	if err := s.damage(); err != nil {
		s.log.Warn("the control cache is damaged; re-cloning", "dir", s.dir, "damage", err.Error())
		if err := s.initClone(s.remote); err != nil {
			return err
		}
	}
	err := s.fetchRetrying(ctx)
	if err == nil || networkError(err) || gitpack.RemoteFailure(err) || errors.Is(err, errNoBranch) || errors.Is(err, ErrObjectTooLarge) {
		return err
	}
	s.log.Warn("the control cache is damaged; re-cloning", "dir", s.dir, "damage", err.Error())
	if err := s.initClone(s.remote); err != nil {
		return err
	}
	return s.fetchRetrying(ctx)
}

// fetchBackoff are the waits before the second, third and fourth attempt
// of a fetch that failed transiently: a connection reset, a timeout, a
// 5xx or 429 from the remote, a pack cut short. About 8 s in all, so a
// remote that restarts or sheds load costs a pass seconds, not its run.
var fetchBackoff = []time.Duration{500 * time.Millisecond, 2 * time.Second, 5 * time.Second}

// fetchRetrying is fetchHead, retried with backoff while it fails
// transiently. A failed transfer leaves the clone as it was (go-git keeps
// an incoming pack aside until it is complete), so a retry starts clean.
func (s *Store) fetchRetrying(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		err := s.fetchHead(ctx)
		if err == nil || !transient(err) || attempt == len(fetchBackoff) || ctx.Err() != nil {
			if err != nil && attempt > 0 {
				return fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return err
		}
		s.log.Warn("fetching the control repository failed; retrying", "attempt", attempt+1, "wait", fetchBackoff[attempt].String(), "err", scrub(err).Error())
		if err := s.wait(ctx, fetchBackoff[attempt]); err != nil {
			return fmt.Errorf("fetch the control repository: %w", err)
		}
	}
}

// transient reports whether a fetch failed in a way that trying again can
// mend (gitpack.RemoteFailure or gitpack.CutShort). Rejected credentials
// and a missing repository are not transient; a cancelled context is the
// caller's.
func transient(err error) bool { return gitpack.RemoteFailure(err) || gitpack.CutShort(err) }
