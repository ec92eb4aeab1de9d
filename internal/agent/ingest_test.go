package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// bombAgent is issue 29's zlib-bomb finding as a script: the agent
// commits a file of zeros just over the object limit, a few hundred
// kilobytes on disk once compressed.
const bombAgent = `#!/bin/sh
set -e
head -c SIZE /dev/zero > bomb.bin
git add bomb.bin
git -c user.name=Mallory -c user.email=m@example.com commit --quiet -m "loop: row 1 done"
`

// Issue 29, finding 3: an oversized object in the agent's return is
// refused by its header, before it is inflated, as a failed run naming
// the object and its size; nothing is pushed, and Run returns normally.
func TestOversizedReturnIsRefusedBeforeInflation(t *testing.T) {
	remote, base := remoteRepo(t)
	size := defaultIngestLimits.Object + 1
	script := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(bombAgent, "SIZE", strconv.FormatInt(size, 10))), 0o755); err != nil {
		t.Fatal(err)
	}
	e := CommandExecutor{Argv: []string{"sh", script}, Timeout: time.Minute, WorkDir: t.TempDir()}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "row 1"}
	out, err := e.Run(context.Background(), task)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var big *ReturnTooLargeError
	if !errors.As(out.Err, &big) {
		t.Fatalf("outcome error %v, want a *ReturnTooLargeError", out.Err)
	}
	blob := gitIn(t, e.checkoutDir(task), "rev-parse", "HEAD:bomb.bin")
	want := &ReturnTooLargeError{Object: blob, Type: "blob", Size: size, Limit: defaultIngestLimits.Object}
	if diff := cmp.Diff(want, big); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.Err.Error(), blob) || !strings.Contains(out.Err.Error(), strconv.FormatInt(size, 10)) {
		t.Errorf("the error %q does not name the object and its size", out.Err)
	}
	if _, err := os.Stat(filepath.Join(e.mirrorDir(task), "objects", blob[:2], blob[2:])); err == nil {
		t.Errorf("the oversized blob reached the mirror")
	}
	if got := gitOut(remote, "rev-parse", "--verify", "--quiet", "refs/heads/gallivant/feature"); got != "" {
		t.Errorf("the work branch was pushed (%s)", got)
	}
}

func gitOut(dir string, args ...string) string {
	cmd := gitCommand(dir, args...)
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// checkoutWithCommit is a mirror and a checkout of it holding one new
// commit of files (name → content); pack repacks the checkout first.
func checkoutWithCommit(t *testing.T, files map[string]string, pack bool) (dir, mirror string) {
	remote, _ := remoteRepo(t)
	mirror = filepath.Join(t.TempDir(), "mirror.git")
	gitIn(t, filepath.Dir(mirror), "clone", "--quiet", "--bare", remote, mirror)
	dir = filepath.Join(t.TempDir(), "checkout")
	gitIn(t, filepath.Dir(dir), "clone", "--quiet", "--no-hardlinks", mirror, dir)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "--quiet", "-m", "work")
	if pack {
		gitIn(t, dir, "repack", "--quiet", "-a", "-d", "-f", "--depth=10")
	}
	return dir, mirror
}

// The sizes read from headers alone are git's own, for loose objects and
// for packed ones, deltas included.
func TestObjectSizerAgreesWithGit(t *testing.T) {
	a := strings.Repeat("line of text\n", 4000)
	for _, pack := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", pack), func(t *testing.T) {
			t.Parallel()
			dir, _ := checkoutWithCommit(t, map[string]string{"a.txt": a, "b.txt": a + "one more line\n", "c.txt": "short\n"}, pack)
			sizer, err := newObjectSizer(osfs.New(filepath.Join(dir, ".git"), osfs.WithBoundOS()), 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			defer sizer.close()
			for _, line := range strings.Split(gitIn(t, dir, "rev-list", "--objects", "--all"), "\n") {
				h, _, _ := strings.Cut(line, " ")
				want, _ := strconv.ParseInt(gitIn(t, dir, "cat-file", "-s", h), 10, 64)
				wantType := gitIn(t, dir, "cat-file", "-t", h)
				typ, got, err := sizer.size(h)
				if err != nil || got != want || typ != wantType {
					t.Errorf("size of %s: %s %d %v, want %s %d", h, typ, got, err, wantType, want)
				}
			}
		})
	}
}

// A return whose objects are each under the limit but together over the
// return's limit is refused, packed or loose, and nothing reaches the
// mirror; so is one packed object over the object limit.
func TestReturnLimits(t *testing.T) {
	big := strings.Repeat("x", 3000)
	for _, pack := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", pack), func(t *testing.T) {
			t.Parallel()
			dir, mirror := checkoutWithCommit(t, map[string]string{"a": big + "a", "b": big + "b", "c": big + "c"}, pack)
			_, _, err := copyCommitsWithin(dir, mirror, "", ingestLimits{Object: 1 << 20, Return: 5000, Objects: 100})
			var tooLarge *ReturnTooLargeError
			if !errors.As(err, &tooLarge) || !tooLarge.Whole {
				t.Fatalf("copy: %v, want the return refused as a whole", err)
			}
			_, _, err = copyCommitsWithin(dir, mirror, "", ingestLimits{Object: 2000, Return: 1 << 20, Objects: 100})
			if !errors.As(err, &tooLarge) || tooLarge.Whole || tooLarge.Size != 3001 {
				t.Fatalf("copy: %v, want a 3001-byte object refused", err)
			}
			head := gitIn(t, dir, "rev-parse", "HEAD")
			if got := gitOut(mirror, "cat-file", "-t", head); got != "" {
				t.Errorf("the refused commit reached the mirror (%s)", got)
			}
			got, n, err := copyCommitsWithin(dir, mirror, "", defaultIngestLimits)
			if err != nil || got != head || n != 1 {
				t.Fatalf("copy within the limits: %s %d %v, want %s 1", got, n, err, head)
			}
			if gitIn(t, mirror, "cat-file", "-t", head) != "commit" {
				t.Errorf("the commit did not reach the mirror")
			}
		})
	}
}

// A pack index whose fan-out claims more objects than the file holds is
// refused before go-git allocates for them.
func TestObjectSizerRefusesLyingPackIndex(t *testing.T) {
	dir, _ := checkoutWithCommit(t, map[string]string{"a": "a"}, true)
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("pack indexes %v", idx)
	}
	data, err := os.ReadFile(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(idx[0], 0o644)
	copy(data[8+255*4:], []byte{0x7f, 0xff, 0xff, 0xff})
	if err := os.WriteFile(idx[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = newObjectSizer(osfs.New(filepath.Join(dir, ".git"), osfs.WithBoundOS()), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "claims 2147483647 objects") {
		t.Errorf("newObjectSizer: %v, want the index refused", err)
	}
}

// gitCommand is git in dir with no configuration of this machine's.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

// Two agents that write byte-identical commits on the same base (the same
// return in the same second) each made one commit: the second copy finds
// the commit already in the mirror and still counts it as its run's.
func TestIdenticalCommitOfAnotherRunCounts(t *testing.T) {
	t.Parallel()
	dir, mirror := checkoutWithCommit(t, map[string]string{"a.txt": "a\n"}, false)
	before := gitIn(t, dir, "rev-parse", "HEAD~1")
	head := gitIn(t, dir, "rev-parse", "HEAD")
	if got, n, err := copyCommitsWithin(dir, mirror, before, defaultIngestLimits); err != nil || got != head || n != 1 {
		t.Fatalf("first copy: %s %d %v, want %s 1", got, n, err, head)
	}
	if got, n, err := copyCommitsWithin(dir, mirror, before, defaultIngestLimits); err != nil || got != head || n != 1 {
		t.Fatalf("copy of a commit the mirror already holds: %s %d %v, want %s 1", got, n, err, head)
	}
	if got, n, err := copyCommitsWithin(dir, mirror, head, defaultIngestLimits); err != nil || got != head || n != 0 {
		t.Fatalf("copy with nothing new: %s %d %v, want %s 0", got, n, err, head)
	}
}
