package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// This file is the cheap part of a run's git flow: what gallivant reads in
// its own mirror is read in process with go-git (the mirror is gallivant's
// alone, and reading runs no configuration of anyone's), and a fresh
// checkout is made with a copy of what `git init` wrote the first time
// (gitInit) and of the mirror's object files rather than a `git clone`
// (three processes). The checkout it makes
// is the one `git clone --no-hardlinks --no-checkout` made
// (TestFreshCheckoutIsWhatCloneMade): its own copy of every object file, no
// hard link, symlink or alternates into the mirror, so an agent, of
// gallivant's user or executor.run_as, can neither edit the mirror's
// objects through it nor reach the mirror (0700) from it.

// mirrorCommit resolves rev in the mirror to a commit id, peeling
// annotated tags, as `git rev-parse --verify --quiet rev^{commit}` does for
// a full ref name or a full object id; ok is false when rev names no
// commit there. decided is false when rev is neither (an abbreviated id, a
// short name), which only git resolves the way git does.
func mirrorCommit(repo *git.Repository, rev string) (id string, ok, decided bool) {
	var h plumbing.Hash
	switch {
	case strings.HasPrefix(rev, "refs/"):
		ref, err := repo.Reference(plumbing.ReferenceName(rev), true)
		if err != nil {
			// Missing or unreadable: git's --verify --quiet finds nothing
			// either (a torn ref is the fetch's to report).
			return "", false, true
		}
		h = ref.Hash()
	case len(rev) == 40 && plumbing.IsHash(rev):
		h = plumbing.NewHash(rev)
	default:
		return "", false, false
	}
	for range 10 {
		o, err := repo.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return "", false, true
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return h.String(), true, true
		case plumbing.TagObject:
			tag, err := object.DecodeTag(repo.Storer, o)
			if err != nil {
				return "", false, true
			}
			h = tag.Target
		default:
			return "", false, true
		}
	}
	return "", false, true
}

// resolveInMirror is mirrorCommit on the mirror at path, falling back to
// `git rev-parse` for a revision mirrorCommit does not decide.
func resolveInMirror(ctx context.Context, m execGit, repo *git.Repository, rev string) (string, error) {
	if repo != nil {
		if id, ok, decided := mirrorCommit(repo, rev); decided {
			if !ok {
				return "", fmt.Errorf("%s names no commit in the mirror", rev)
			}
			return id, nil
		}
	}
	return m.out(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
}

// freshCheckout makes dir a new checkout of the mirror with no work tree
// yet: what `git clone --quiet --no-hardlinks --no-checkout -- mirror dir`
// made (same configuration, same HEAD, a copy of every object file), with
// no git process but the first run of git init. A mirror path git would quote in its configuration
// falls back to the clone itself.
func freshCheckout(ctx context.Context, m execGit, mirror, dir string) error {
	abs, err := filepath.Abs(mirror)
	if err != nil || strings.ContainsAny(abs, "\"\\\n\t;#") || strings.TrimSpace(abs) != abs {
		_, err := m.in(filepath.Dir(dir)).out(ctx, "clone", "--quiet", "--no-hardlinks", "--no-checkout", "--", mirror, dir)
		return err
	}
	if err := gitInit(ctx, m, dir); err != nil {
		return err
	}
	dotgit := filepath.Join(dir, ".git")
	if err := copyObjects(filepath.Join(mirror, "objects"), filepath.Join(dotgit, "objects")); err != nil {
		return fmt.Errorf("copy the mirror's objects: %w", err)
	}
	// What clone adds to init's configuration: the origin it cloned and,
	// for a repository with no branch (a mirror keeps only
	// refs/remotes/origin/*), the unborn default branch tracking it.
	head, err := os.ReadFile(filepath.Join(dotgit, "HEAD"))
	if err != nil {
		return err
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if !ok || strings.ContainsAny(branch, "\"\\\n") {
		return fmt.Errorf("git init left HEAD %q", strings.TrimSpace(string(head)))
	}
	f, err := os.OpenFile(filepath.Join(dotgit, "config"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "[remote \"origin\"]\n\turl = %s\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"%s\"]\n\tremote = origin\n\tmerge = refs/heads/%s\n", abs, branch, branch)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// initTemplate is what `git init --quiet` wrote in a new directory's .git
// the first time this process ran it: gallivant's git runs with no system
// or global configuration (execGit), so what it writes there depends on
// the git binary alone (gitPath, resolved once per process), and every
// later checkout gets a copy of git's own files without a process.
var initTemplate struct {
	sync.Mutex
	files []initFile // nil until captured
}

// initFile is one directory or file of git init's .git, its path
// relative to .git, in the order the walk found them (parents first).
type initFile struct {
	rel  string
	mode fs.FileMode
	data []byte
}

// gitInit makes dir a new repository as `git init --quiet -- dir` does:
// by running it the first time, and by writing the files it wrote then
// every time after (TestGitInitFromTemplateIsGitInit).
func gitInit(ctx context.Context, m execGit, dir string) error {
	initTemplate.Lock()
	files := initTemplate.files
	initTemplate.Unlock()
	if files == nil {
		if _, err := m.in(filepath.Dir(dir)).out(ctx, "init", "--quiet", "--", dir); err != nil {
			return err
		}
		files, err := readInit(filepath.Join(dir, ".git"))
		if err == nil {
			initTemplate.Lock()
			initTemplate.files = files
			initTemplate.Unlock()
		}
		return nil
	}
	dotgit := filepath.Join(dir, ".git")
	if err := os.MkdirAll(dotgit, 0o777); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dotgit, f.rel)
		if f.mode.IsDir() {
			if err := os.Mkdir(p, f.mode.Perm()); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(p, f.data, f.mode.Perm()); err != nil {
			return err
		}
	}
	return nil
}

// readInit reads what git init wrote in dotgit: only directories and
// regular files of at most 1 MiB each (git's own templates), else an
// error, and the template is not kept.
func readInit(dotgit string) ([]initFile, error) {
	var files []initFile
	err := filepath.WalkDir(dotgit, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dotgit {
			return err
		}
		rel, err := filepath.Rel(dotgit, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			files = append(files, initFile{rel: rel, mode: fi.Mode()})
		case fi.Mode().IsRegular() && fi.Size() <= 1<<20:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, initFile{rel: rel, mode: fi.Mode(), data: data})
		default:
			return fmt.Errorf("git init wrote %s, not a plain file", rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// errSymlinkInMirror is git clone's own refusal (CVE-2022-39253): a
// symlink among the mirror's objects would make the checkout read, or
// the copy write, files outside it.
var errSymlinkInMirror = errors.New("a symlink among the mirror's objects: refused")

// copyObjects copies the object directory src into dst as git clone
// --local --no-hardlinks does: every directory and file, each file a new
// inode of its own (mode 0666 less the umask, the source's times kept),
// a symlink refused, and info/alternates left out (a mirror has none;
// the checkout must not gain one).
func copyObjects(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o777); err != nil {
		return err
	}
	for _, e := range entries {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			return fmt.Errorf("%s: %w", s, errSymlinkInMirror)
		case e.IsDir():
			if err := copyObjects(s, d); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if filepath.Base(src) == "info" && e.Name() == "alternates" {
				continue
			}
			if err := copyObjectFile(s, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyObjectFile copies one file into a new file at d (never through an
// existing one), keeping its modification time.
func copyObjectFile(s, d string) error {
	in, err := os.Open(s)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.Remove(d); err != nil && !os.IsNotExist(err) {
		return err
	}
	out, err := os.OpenFile(d, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(d, fi.ModTime(), fi.ModTime())
}

// mayNeedMaintenance reports whether `git maintenance run --auto` could
// find work in the mirror at gitDir: gc's own tests, with margin, on a
// configuration that is git's defaults (sealMirror keeps it so): more than
// 27 loose objects in objects/17 (gc.auto 6700) or more than 50 packs
// (gc.autoPackLimit). Where it says no, the fetch's automatic maintenance
// would have done nothing, so the fetch runs without it and no process is
// spent; where it says yes, git decides as before.
func mayNeedMaintenance(gitDir string) bool {
	loose, err := os.ReadDir(filepath.Join(gitDir, "objects", "17"))
	if err != nil && !os.IsNotExist(err) {
		return true
	}
	if len(loose) > 20 {
		return true
	}
	packs, err := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	if err != nil && !os.IsNotExist(err) {
		return true
	}
	n := 0
	for _, p := range packs {
		if strings.HasSuffix(p.Name(), ".pack") {
			n++
		}
	}
	return n > 40
}
