package reconcile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gallivant/gallivant/internal/store"
)

// openLogged opens the rig's control store with a logger whose output the
// test reads.
func openLogged(t *testing.T, r *rig, cache string) (*store.Store, *bytes.Buffer, error) {
	t.Helper()
	var buf bytes.Buffer
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: cache,
		Log: slog.New(slog.NewTextHandler(&buf, nil))})
	return st, &buf, err
}

// Issue 12, finding 2: damage a crash can leave in a control clone is
// detected, logged once and repaired by re-cloning; no person has to delete
// the cache.
func TestDamagedControlCacheHeals(t *testing.T) {
	t.Parallel()
	write := func(rel, content string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("nothing to damage: %v", err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name     string
		damage   func(t *testing.T, dir string)
		repaired bool
	}{
		{"empty remote ref", write("refs/remotes/origin/main", ""), true},
		{"torn branch ref", write("refs/heads/main", "3f2a9"), true},
		{"torn config", write("config", "[core\n\tbare = tr"), true},
		{"ref to a missing object", write("refs/heads/main", strings.Repeat("ab", 20)+"\n"), true},
		{"missing objects", func(t *testing.T, dir string) {
			for _, sub := range []string{"objects/pack"} {
				entries, _ := os.ReadDir(filepath.Join(dir, sub))
				if len(entries) == 0 {
					t.Fatalf("no pack to remove in %s", sub)
				}
				for _, e := range entries {
					os.Remove(filepath.Join(dir, sub, e.Name()))
				}
			}
		}, true},
		{"stale lock files", func(t *testing.T, dir string) {
			for _, p := range []string{"index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "refs/heads/main.lock", "refs/remotes/origin/main.lock"} {
				writeFile(t, filepath.Join(dir, p), "")
			}
		}, false},
		{"deleted cache", func(t *testing.T, dir string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
			cache := t.TempDir()
			st, _, err := openLogged(t, r, cache)
			if err != nil {
				t.Fatal(err)
			}
			tt.damage(t, st.Dir())
			st, log, err := openLogged(t, r, cache)
			if err != nil {
				t.Fatalf("the damaged cache was not repaired: %v", err)
			}
			if want := run(t, r.control, "git", "rev-parse", "main"); st.Head() != want {
				t.Errorf("head %s, want %s", st.Head(), want)
			}
			warned := strings.Count(log.String(), "the control cache is damaged")
			if tt.repaired && warned != 1 {
				t.Errorf("the repair was logged %d times, want once:\n%s", warned, log)
			}
			if !tt.repaired && warned != 0 {
				t.Errorf("an intact cache was repaired:\n%s", log)
			}
			if tt.name == "stale lock files" && strings.Count(log.String(), "removing stale lock files") != 1 {
				t.Errorf("the stale locks were not removed once:\n%s", log)
			}
			// A second sync finds nothing left to repair.
			before := log.Len()
			if err := st.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(log.String()[before:], "damaged") {
				t.Errorf("the repair did not hold:\n%s", log.String()[before:])
			}
			// And a pass runs from the repaired cache.
			rep, err := r.reconciler(func(o *Options) { o.Store = st }).Pass(context.Background())
			if err != nil {
				t.Fatalf("pass: %v", err)
			}
			if len(rep.Transitions) == 0 {
				t.Errorf("the pass did nothing")
			}
		})
	}
}

// Two processes may share a cache directory: each takes its own clone of
// the control repository, guarded by a flock the kernel releases when the
// process dies.
func TestSharedCacheTakesItsOwnClone(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	cache := t.TempDir()
	sum := sha256.Sum256([]byte("file://" + r.control))
	base := filepath.Join(cache, "control", hex.EncodeToString(sum[:8]))
	os.MkdirAll(filepath.Dir(base), 0o755)
	// Another process holds the first clone: a separate open file
	// description conflicts with flock exactly as another process would.
	f, err := os.OpenFile(base+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	st, _, err := openLogged(t, r, cache)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dir() != base+".2" {
		t.Errorf("the store uses %s, want the second clone %s.2", st.Dir(), base)
	}
	// The same process keeps using the clone it holds.
	again, _, err := openLogged(t, r, cache)
	if err != nil {
		t.Fatal(err)
	}
	if again.Dir() != st.Dir() {
		t.Errorf("a second store of the same process moved to %s", again.Dir())
	}
}
