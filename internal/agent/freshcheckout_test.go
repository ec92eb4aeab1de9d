package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
)

// mirrorOf is a mirror as prepare leaves it: a bare repository holding the
// remote's branches under refs/remotes/origin/, with packed and loose
// objects and a recovery ref (it fetches no tags and has no branch of its
// own).
func mirrorOf(t *testing.T) (mirror, main string) {
	t.Helper()
	remote, _ := remoteRepo(t)
	mirror = filepath.Join(t.TempDir(), "mirrors", "api.git")
	if err := os.MkdirAll(filepath.Dir(mirror), 0o700); err != nil {
		t.Fatal(err)
	}
	gitIn(t, filepath.Dir(mirror), "init", "--quiet", "--bare", "--", mirror)
	gitIn(t, mirror, "fetch", "--quiet", "--", remote, "+refs/heads/*:refs/remotes/origin/*")
	gitIn(t, mirror, "repack", "--quiet", "-a", "-d")
	// A loose commit on top (what copyCommits writes) and a recovery ref.
	tree := gitIn(t, mirror, "rev-parse", "refs/remotes/origin/main^{tree}")
	main = gitIn(t, mirror, "rev-parse", "refs/remotes/origin/main")
	loose := gitIn(t, mirror, "commit-tree", "-p", main, "-m", "loose", tree)
	gitIn(t, mirror, "update-ref", "refs/gallivant/recovery/gallivant/feature/x", loose)
	return mirror, main
}

// A checkout made by freshCheckout is, file for file, what `git clone
// --no-hardlinks --no-checkout` made of the same mirror (configuration,
// HEAD, every object file's content), and shares no inode with the mirror.
func TestFreshCheckoutIsWhatCloneMade(t *testing.T) {
	t.Parallel()
	mirror, main := mirrorOf(t)
	root := t.TempDir()
	cloned, fresh := filepath.Join(root, "cloned"), filepath.Join(root, "fresh")
	gitIn(t, root, "clone", "--quiet", "--no-hardlinks", "--no-checkout", "--", mirror, cloned)
	m := CommandExecutor{}.git(mirror, nil)
	// The second is made from the first's git init (gitInit's template)
	// where no other test made one first.
	for _, dir := range []string{fresh, fresh + "2"} {
		if err := freshCheckout(context.Background(), m, mirror, dir); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(treeFiles(t, filepath.Join(cloned, ".git")), treeFiles(t, filepath.Join(dir, ".git"))); diff != "" {
			t.Errorf("fresh checkout %s differs from git clone's (-clone +fresh):\n%s", filepath.Base(dir), diff)
		}
	}
	mirrorInodes := map[uint64]bool{}
	walkFiles(t, mirror, func(_ string, fi fs.FileInfo) { mirrorInodes[fi.Sys().(*syscall.Stat_t).Ino] = true })
	walkFiles(t, fresh, func(p string, fi fs.FileInfo) {
		if st := fi.Sys().(*syscall.Stat_t); mirrorInodes[st.Ino] || st.Nlink != 1 {
			t.Errorf("%s shares its inode with the mirror (links %d)", p, st.Nlink)
		}
	})
	// The checkout git works in: the branch checked out from the mirror's
	// main, as prepare does next.
	gitIn(t, fresh, "checkout", "--quiet", "-B", "gallivant/feature", main, "--")
	if got := gitIn(t, fresh, "rev-parse", "HEAD"); got != main {
		t.Errorf("HEAD %s, want %s", got, main)
	}
	gitIn(t, fresh, "fsck", "--no-progress")
}

// treeFiles maps each file under dir to its mode and content.
func treeFiles(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	walkFiles(t, dir, func(p string, fi fs.FileInfo) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fi.Mode().String() + " " + string(data)
	})
	return out
}

func walkFiles(t *testing.T, dir string, f func(string, fs.FileInfo)) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, fi fs.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		f(p, fi)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A symlink among the mirror's objects is refused, as git clone --local
// refuses it, and a mirror's alternates never reach the checkout.
func TestFreshCheckoutRefusesSymlinksAndAlternates(t *testing.T) {
	t.Parallel()
	m := CommandExecutor{}.git("", nil)
	t.Run("symlink", func(t *testing.T) {
		mirror, _ := mirrorOf(t)
		if err := os.Symlink("/etc/passwd", filepath.Join(mirror, "objects", "info", "planted")); err != nil {
			t.Fatal(err)
		}
		err := freshCheckout(context.Background(), m, mirror, filepath.Join(t.TempDir(), "c"))
		if !errors.Is(err, errSymlinkInMirror) {
			t.Errorf("err %v, want a refused symlink", err)
		}
	})
	t.Run("alternates", func(t *testing.T) {
		mirror, _ := mirrorOf(t)
		if err := os.WriteFile(filepath.Join(mirror, "objects", "info", "alternates"), []byte(t.TempDir()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "c")
		if err := freshCheckout(context.Background(), m, mirror, dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git", "objects", "info", "alternates")); err == nil {
			t.Errorf("the mirror's alternates reached the checkout")
		}
	})
}

// mirrorCommit answers what `git rev-parse --verify --quiet rev^{commit}`
// answers, for every revision it decides, and leaves the rest to git.
func TestMirrorCommitAnswersAsGitDoes(t *testing.T) {
	t.Parallel()
	mirror, main := mirrorOf(t)
	repo, err := git.PlainOpen(mirror)
	if err != nil {
		t.Fatal(err)
	}
	tree := gitIn(t, mirror, "rev-parse", main+"^{tree}")
	gitIn(t, mirror, "tag", "-a", "-m", "v1", "v1", main)
	tag := gitIn(t, mirror, "rev-parse", "refs/tags/v1")
	// A torn ref, as a crash leaves one.
	if err := os.WriteFile(filepath.Join(mirror, "refs", "remotes", "origin", "torn"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rev     string
		decided bool
	}{
		{"refs/remotes/origin/main", true},
		{"refs/remotes/origin/absent", true},
		{"refs/remotes/origin/torn", true},
		{"refs/tags/v1", true},
		{"refs/gallivant/recovery/gallivant/feature/x", true},
		{main, true},
		{tag, true},
		{tree, true},
		{strings.Repeat("0", 40), true},
		{main[:12], false},
		{"main", false},
	} {
		id, ok, decided := mirrorCommit(repo, tc.rev)
		if decided != tc.decided {
			t.Errorf("%s: decided %v, want %v", tc.rev, decided, tc.decided)
		}
		if !decided {
			continue
		}
		want := gitOut(mirror, "rev-parse", "--verify", "--quiet", "--end-of-options", tc.rev+"^{commit}")
		if !ok {
			id = ""
		}
		if id != want {
			t.Errorf("%s: %q, git says %q", tc.rev, id, want)
		}
	}
}

// mayNeedMaintenance says yes wherever git's automatic gc would find work.
func TestMayNeedMaintenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if mayNeedMaintenance(dir) {
		t.Errorf("an empty repository needs maintenance")
	}
	loose := filepath.Join(dir, "objects", "17")
	if err := os.MkdirAll(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 28 {
		if err := os.WriteFile(filepath.Join(loose, strings.Repeat("a", 36)+string(rune('a'+i%26))+string(rune('a'+i/26))), nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if !mayNeedMaintenance(dir) {
		t.Errorf("28 loose objects in objects/17 (git's gc --auto threshold is 27) need no maintenance")
	}
	packs := filepath.Join(t.TempDir(), "objects", "pack")
	if err := os.MkdirAll(packs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 51 {
		if err := os.WriteFile(filepath.Join(packs, "pack-"+strings.Repeat("b", 38)+string(rune('a'+i%26))+string(rune('a'+i/26))+".pack"), nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if !mayNeedMaintenance(filepath.Dir(filepath.Dir(packs))) {
		t.Errorf("51 packs (gc.autoPackLimit 50) need no maintenance")
	}
}

// A repository gitInit makes from its template is, file for file and mode
// for mode, what git init makes.
func TestGitInitFromTemplateIsGitInit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m := CommandExecutor{}.git(root, nil)
	if err := gitInit(context.Background(), m, filepath.Join(root, "first")); err != nil {
		t.Fatal(err)
	}
	initTemplate.Lock()
	captured := initTemplate.files != nil
	initTemplate.Unlock()
	if !captured {
		t.Fatal("the first git init left no template")
	}
	if err := gitInit(context.Background(), m, filepath.Join(root, "templated")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "init", "--quiet", "--", filepath.Join(root, "git"))
	want := treeFiles(t, filepath.Join(root, "git", ".git"))
	for _, dir := range []string{"first", "templated"} {
		if diff := cmp.Diff(want, treeFiles(t, filepath.Join(root, dir, ".git"))); diff != "" {
			t.Errorf("%s differs from git init's (-git +%s):\n%s", dir, dir, diff)
		}
	}
	dirsOf := func(dir string) []string {
		var out []string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				fi, _ := d.Info()
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel+" "+fi.Mode().String())
			}
			return err
		})
		return out
	}
	if diff := cmp.Diff(dirsOf(filepath.Join(root, "git", ".git")), dirsOf(filepath.Join(root, "templated", ".git"))); diff != "" {
		t.Errorf("the templated repository's directories differ from git init's (-git +templated):\n%s", diff)
	}
	gitIn(t, filepath.Join(root, "templated"), "status", "--porcelain")
}
