package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// templates holds, for one run of the package's tests, the directories
// newRig would otherwise build with git for every test: the control
// repository for one set of files and the stand-in's state and repositories
// for one list of repositories. A test gets a copy, made without git, so
// that each test still owns its repositories; only the building is shared.
var templates struct {
	mu   sync.Mutex
	root string // removed by TestMain
	m    map[string]*template
}

type template struct {
	once sync.Once
	dir  string
	err  error
}

// removeTemplates deletes the templates' directory once the tests are done.
func removeTemplates() {
	templates.mu.Lock()
	defer templates.mu.Unlock()
	if templates.root != "" {
		_ = os.RemoveAll(templates.root)
	}
}

// copyOfTemplate copies the template named by kind and key, building it
// with build on first use, into a new test temporary directory.
func copyOfTemplate(t testing.TB, kind, key string, build func(dir string) error) string {
	t.Helper()
	sum := sha256.Sum256([]byte(kind + "\x00" + key))
	name := kind + "-" + hex.EncodeToString(sum[:8])
	templates.mu.Lock()
	if templates.root == "" {
		root, err := os.MkdirTemp("", "reconcile-templates-")
		if err != nil {
			templates.mu.Unlock()
			t.Fatal(err)
		}
		templates.root, templates.m = root, map[string]*template{}
	}
	tp := templates.m[name]
	if tp == nil {
		tp = &template{dir: filepath.Join(templates.root, name)}
		templates.m[name] = tp
	}
	templates.mu.Unlock()
	tp.once.Do(func() {
		// Built beside its final place and renamed, so that a failed build
		// leaves no half template behind for another test to copy.
		tmp, err := os.MkdirTemp(filepath.Dir(tp.dir), name+".build-")
		if err == nil {
			err = build(tmp)
		}
		if err == nil {
			err = os.Rename(tmp, tp.dir)
		}
		if err != nil {
			tp.err = fmt.Errorf("template %s: %w", kind, err)
		}
	})
	if tp.err != nil {
		t.Fatal(tp.err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(tp.dir)); err != nil {
		t.Fatalf("copy template %s: %v", kind, err)
	}
	return dst
}

// controlTemplate returns a copy of a bare control repository whose main
// branch holds one commit, "Approve specs", with files.
func controlTemplate(t testing.TB, files map[string]string) string {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var key strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&key, "%d:%s%d:%s", len(p), p, len(files[p]), files[p])
	}
	return copyOfTemplate(t, "control", key.String(), func(dir string) error {
		src := filepath.Join(dir, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		if err := templateGit(src, "init", "--quiet", "--initial-branch=main"); err != nil {
			return err
		}
		for _, p := range paths {
			full := filepath.Join(src, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
				return err
			}
		}
		bare := filepath.Join(dir, "control.git")
		for _, args := range [][]string{{"add", "-A"}, {"commit", "--quiet", "-m", "Approve specs"},
			{"clone", "--quiet", "--bare", src, bare},
			// One pack instead of a file per object, in the template and
			// for every push a test makes: each file is an inode to
			// create and, on a busy ext4, that is most of a test's time.
			{"-C", bare, "repack", "-a", "-d", "-q"},
			{"-C", bare, "config", "receive.unpackLimit", "1"},
			// No git gc --auto after every push: it never has work in
			// a test's few pushes, and it is a process each time.
			{"-C", bare, "config", "receive.autogc", "false"}} {
			if err := templateGit(src, args...); err != nil {
				return err
			}
		}
		return os.RemoveAll(src)
	})
}

// standinTemplate returns a copy of a stand-in's directory (state and
// repositories) holding repos, created at now, for ghstandin.Options.Dir.
func standinTemplate(t testing.TB, now time.Time, repos []string) string {
	t.Helper()
	key := now.UTC().Format(time.RFC3339Nano) + "\x00" + strings.Join(repos, "\x00")
	return copyOfTemplate(t, "standin", key, func(dir string) error {
		s, err := ghstandin.New(ghstandin.Options{Dir: dir, Clock: func() time.Time { return now }})
		if err != nil {
			return err
		}
		for _, r := range repos {
			if err := s.CreateRepo(r, "main"); err != nil {
				return err
			}
			// Pushes arrive as one pack and start no gc, as for the
			// control repository.
			for _, kv := range [][2]string{{"receive.unpackLimit", "1"}, {"receive.autogc", "false"}} {
				if err := templateGit(dir, "-C", s.RepoDir(r), "config", kv[0], kv[1]); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// templateGit runs git in dir with the rig's environment, for code that reports
// an error instead of failing a test.
func templateGit(dir string, args ...string) error {
	out, err := rigCommand(dir, "git", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %v: %w\n%s", args, err, out)
	}
	return nil
}
