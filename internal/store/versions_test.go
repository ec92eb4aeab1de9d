package store

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// gitVersions is LoopVersions computed by git itself: `git log
// --first-parent -- p` lists the commits that changed p against their
// first parent, newest first.
func gitVersions(t *testing.T, dir string, paths []string) *LedgerVersions {
	t.Helper()
	v := &LedgerVersions{Last: map[string]string{}, Edited: map[string]bool{}}
	for _, p := range paths {
		out := testserver.Git(t, dir, "log", "--first-parent", "--format=%H %s", "main", "--", p)
		edited := false
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			sha, subject, _ := strings.Cut(line, " ")
			if strings.HasPrefix(subject, "loop:") {
				v.Last[p] = sha
				if edited {
					v.Edited[p] = true
				}
				break
			}
			edited = true
		}
	}
	return v
}

// The kept index, brought up to date pass after pass (in the store for a
// daemon, from the clone's file for a one-shot run), answers what git's own
// walk does, through loop: and hand commits, deletions, a ledger added
// later and a rewritten branch.
func TestLoopVersionsIncrementalMatchesGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	bare := filepath.Join(root, "control.git")
	os.MkdirAll(filepath.Join(work, "plans", "sub"), 0o755)
	os.WriteFile(filepath.Join(work, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\n"), 0o644)
	testserver.Git(t, work, "init", "--quiet", "-b", "main")
	testserver.Git(t, work, "add", ".")
	testserver.Git(t, work, "commit", "--quiet", "-m", "Start")
	testserver.Git(t, root, "clone", "--quiet", "--bare", work, bare)
	paths := []string{"plans/a-ledger.md", "plans/b-ledger.md", "plans/sub/c-ledger.md", "plans/d-ledger.md"}
	files := append(append([]string(nil), paths...), "plans/notes.md", "specs/x.md")
	rng := rand.New(rand.NewSource(33))
	cache := t.TempDir()
	daemon, err := Open(context.Background(), Options{Control: "file://" + bare, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for round := 0; round < 30; round++ {
		for k := rng.Intn(4); k > 0; k-- {
			n++
			f := files[rng.Intn(len(files))]
			if f == "plans/d-ledger.md" && round < 15 {
				f = "plans/a-ledger.md" // d is added half way
			}
			p := filepath.Join(work, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if rng.Intn(8) == 0 {
				os.Remove(p)
				testserver.Git(t, work, "add", "-A")
			} else {
				os.WriteFile(p, []byte(fmt.Sprintf("version %d\n", n)), 0o644)
				testserver.Git(t, work, "add", f)
			}
			subject := "Edit by hand"
			if rng.Intn(3) > 0 {
				subject = "loop: transition"
			}
			testserver.Git(t, work, "commit", "--quiet", "--allow-empty", "-m", subject)
		}
		if round == 20 {
			// The branch is rewritten: the kept head is no longer in it.
			testserver.Git(t, work, "commit", "--quiet", "--amend", "--allow-empty", "-m", "loop: rewritten")
		}
		testserver.Git(t, work, "push", "--quiet", "--force", bare, "main")
		want := gitVersions(t, work, paths)
		if err := daemon.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		got, err := daemon.LoopVersions(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, kept in the store (-git +got):\n%s", round, diff)
		}
		// A one-shot run opens the cache afresh and reads the kept file.
		once, err := Open(context.Background(), Options{Control: "file://" + bare, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if once.loadVersions() == nil {
			t.Fatalf("round %d: no kept index in the cache", round)
		}
		got, err = once.LoopVersions(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, kept in the cache (-git +got):\n%s", round, diff)
		}
	}
}

// An idle pass walks nothing: the kept index is at the tip.
func TestLoopVersionsIdleWalksNothing(t *testing.T) {
	st := buildHistory(t, 200)
	paths := []string{"plans/greeting-ledger.md"}
	first, err := st.LoopVersions(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if first.Last["plans/greeting-ledger.md"] == "" {
		t.Fatalf("no loop: version found: %+v", first)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := st.LoopVersions(context.Background(), paths); err != nil {
			t.Fatal(err)
		}
	})
	// Opening the packs and building the answer, not a walk of 200
	// commits (which decodes hundreds of objects).
	if allocs > 60 {
		t.Errorf("an idle LoopVersions made %.0f allocations; want at most 60", allocs)
	}
}
