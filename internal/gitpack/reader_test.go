package gitpack

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"
)

// historyRepo makes a control-like repository of n commits with git
// fast-import (one pack, deltas on older versions): ledgers files under
// plans/, one changed per commit.
func historyRepo(t testing.TB, n, ledgers int) string {
	t.Helper()
	ctl := t.TempDir()
	testserver.Git(t, ctl, "init", "--quiet", "--initial-branch=main")
	var b strings.Builder
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("loop: record %d", i)
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter p <p@x> %d +0000\ndata %d\n%s\n", when+int64(i), len(msg), msg)
		c := fmt.Sprintf("# ledger %d\n\n%srevision %d\n", i%ledgers, ledgerBody, i)
		fmt.Fprintf(&b, "M 100644 inline plans/s%03d-ledger.md\ndata %d\n%s\n\n", i%ledgers, len(c), c)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = ctl
	cmd.Stdin = strings.NewReader(b.String())
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	testserver.Git(t, ctl, "reset", "--quiet", "--hard", "main")
	return ctl
}

// ledgerBody is what every version of a ledger shares, so that git
// stores versions as deltas.
const ledgerBody = "| row | state | attempts | pull request |\n|---|---|---|---|\n| 1 | done | 1 | #12 |\n| 2 | running | 2 | |\n\n"

// A Reader returns, for every object of a repository, the type and bytes
// go-git's own storage returns: packs written by fast-import (deltas on
// older versions), by git repack (deltas on newer versions, offset or
// reference bases), and loose objects beside a pack.
func TestReaderReadsLikeGoGit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		repack []string // git arguments run after fast-import
	}{
		{name: "fast-import", repack: nil},
		{name: "repack-ofs-delta", repack: []string{"repack", "-adf", "-q", "--depth=20", "--window=50"}},
		{name: "repack-ref-delta", repack: []string{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "-q", "--depth=20", "--window=50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctl := historyRepo(t, 300, 7)
			if tc.repack != nil {
				testserver.Git(t, ctl, tc.repack...)
			}
			// Loose objects beside the pack.
			if err := os.WriteFile(filepath.Join(ctl, "plans", "s001-ledger.md"), []byte("loose\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			testserver.Git(t, ctl, "commit", "--quiet", "-am", "loose")
			packs, _ := filepath.Glob(filepath.Join(ctl, ".git", "objects", "pack", "*.idx"))
			if len(packs) != 1 {
				t.Fatalf("%d packs, want 1", len(packs))
			}
			if v := testserver.Git(t, ctl, "verify-pack", "-s", packs[0]); !strings.Contains(v, "chain length = 2") {
				t.Fatalf("the pack has no delta chains, so this test proves nothing:\n%s", v)
			}

			repo, err := git.PlainOpen(ctl)
			if err != nil {
				t.Fatal(err)
			}
			// The default cache, and one so small that almost every
			// object evicts another, whose memory the next one reuses.
			for _, max := range []int{DefaultCacheBytes, 16 << 10} {
				raw := NewReader(repo.Storer, max)
				compareObjects(t, repo, raw)
				recycled := 0
				for _, f := range raw.cache.free {
					recycled += len(f)
				}
				if max < DefaultCacheBytes && recycled == 0 {
					t.Errorf("a %d-byte cache recycled nothing", max)
				}
				raw.Close()
			}
			raw := NewReader(repo.Storer, 0)
			defer raw.Close()
			if _, _, err := raw.Read(plumbing.NewHash(strings.Repeat("ab", 20))); err == nil {
				t.Error("read of a missing object succeeded")
			}
		})
	}
}

// compareObjects reads every object of repo through raw and through
// go-git, one after another.
func compareObjects(t *testing.T, repo *git.Repository, raw *Reader) {
	t.Helper()
	if len(raw.packs) != 1 {
		t.Fatalf("the reader opened %d packs, want 1", len(raw.packs))
	}
	iter, err := repo.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		n++
		r, err := o.Reader()
		if err != nil {
			return err
		}
		want, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		typ, got, err := raw.Read(o.Hash())
		if err != nil {
			t.Errorf("read %s: %v", o.Hash(), err)
			return nil
		}
		if typ != o.Type() || !bytes.Equal(got, want) {
			t.Errorf("read %s = %s of %d bytes, want %s of %d bytes", o.Hash(), typ, len(got), o.Type(), len(want))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 900 {
		t.Fatalf("compared %d objects; the repository should have over 900", n)
	}
}

func newBytes(n int) []byte { return make([]byte, n) }

// patchDelta agrees with go-git's PatchDelta on a real delta.
func TestPatchDeltaLikeGoGit(t *testing.T) {
	t.Parallel()
	base := bytes.Repeat([]byte("0123456789abcdef\n"), 4000)
	target := append(append([]byte("head\n"), base[100:60000]...), []byte("tail\n")...)
	delta := packfile.DiffDelta(base, target)
	want, err := packfile.PatchDelta(base, delta)
	if err != nil {
		t.Fatal(err)
	}
	got, err := patchDelta(base, delta, newBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !bytes.Equal(got, target) {
		t.Errorf("patchDelta made %d bytes, want %d", len(got), len(target))
	}
	if _, err := patchDelta(base[1:], delta, newBytes); err == nil {
		t.Error("a delta on a base of the wrong size applied")
	}
}

// patchDelta reads untrusted pack bytes: it never panics, and what it
// returns has the size the delta declares.
func FuzzPatchDelta(f *testing.F) {
	base := []byte("the quick brown fox jumps over the lazy dog\n")
	f.Add(base, packfile.DiffDelta(base, []byte("the quick red fox jumps over the dog\n")))
	f.Add(base, []byte{0x2c, 0x05, 0x90, 0x05})
	f.Add([]byte{}, []byte{0x00, 0x01, 0x01, 'x'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := patchDelta(base, delta, newBytes)
		if err == nil && out == nil {
			t.Fatal("nil result without an error")
		}
	})
}

// bytesPack is a pack held in memory.
type bytesPack struct{ *bytes.Reader }

func (bytesPack) Close() error { return nil }

// seedPack reads one of the packs in testdata: small ones (a dozen
// objects) that git repack wrote with delta chains, by offset (ofs) or by
// reference (ref); TestSeedPacks says how they are made.
func seedPack(tb testing.TB, kind string) (pack, idx []byte) {
	tb.Helper()
	pack, err := os.ReadFile(filepath.Join("testdata", kind+".pack"))
	if err != nil {
		tb.Fatal(err)
	}
	idx, err = os.ReadFile(filepath.Join("testdata", kind+".idx"))
	if err != nil {
		tb.Fatal(err)
	}
	return pack, idx
}

// The seed packs are what git writes and what the Reader reads: every
// object of each reads back with the id its index gives it, and each
// holds the deltas the fuzz target damages.
func TestSeedPacks(t *testing.T) {
	if *regenerate {
		makeSeedPacks(t)
	}
	t.Parallel()
	for kind, delta := range map[string]int{"ofs": packOfsDelta, "ref": packRefDelta} {
		pack, idx := seedPack(t, kind)
		r := readerOf(t, pack, idx)
		if n := r.packs[0].n; n < 10 {
			t.Fatalf("%s: %d objects, want at least 10", kind, n)
		}
		deltas := 0
		for i := 0; i < r.packs[0].n; i++ {
			h := packName(r.packs[0], i)
			off, _ := r.packs[0].find(h)
			c := &packCursor{p: r.packs[0], off: off}
			if typ, _, err := c.header(); err == nil && typ == delta {
				deltas++
			}
			typ, data, err := r.Read(h)
			if err != nil {
				t.Fatalf("%s: read %s: %v", kind, h, err)
			}
			if got := HashObject(typ, data); got != h {
				t.Errorf("%s: object %s reads back as %s", kind, h, got)
			}
		}
		if deltas == 0 {
			t.Errorf("%s: no deltas, so the fuzz target damages none", kind)
		}
	}
}

// makeSeedPacks writes testdata/{ofs,ref}.{pack,idx} with the real git:
// go test -run TestSeedPacks -args -seedpacks regenerates them.
func makeSeedPacks(t *testing.T) {
	ctl := historyRepo(t, 6, 2)
	for kind, args := range map[string][]string{
		"ofs": {"repack", "-adfq", "--depth=10"},
		"ref": {"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=10"},
	} {
		testserver.Git(t, ctl, args...)
		idxs, _ := filepath.Glob(filepath.Join(ctl, ".git", "objects", "pack", "*.idx"))
		if len(idxs) != 1 {
			t.Fatalf("%d packs", len(idxs))
		}
		for _, ext := range []string{".idx", ".pack"} {
			b, err := os.ReadFile(strings.TrimSuffix(idxs[0], ".idx") + ext)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", kind+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var regenerate = flag.Bool("seedpacks", false, "write the seed packs in testdata anew")

// packName is the id of the i-th object in p's index.
func packName(p *rawPack, i int) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], p.idx[idxHeader+i*20:])
	return h
}

func readerOf(tb testing.TB, pack, idx []byte) *Reader {
	tb.Helper()
	p, err := newRawPack(bytesPack{bytes.NewReader(pack)}, int64(len(pack)), idx)
	if err != nil {
		tb.Fatal(err)
	}
	return &Reader{packs: []*rawPack{p}, other: memory.NewStorage(), cache: newRawCache(DefaultCacheBytes)}
}

// The pack reader reads bytes from disk that a crash or a disk can damage:
// whatever the pack and its index hold, it never panics, never recurses
// for ever and never allocates what the data does not hold. Inputs are
// damage to a small real pack and its index (a splice of each, and where
// each is cut short), read from testdata once, not made per process with
// git: each input stays a few bytes, and one run reads a dozen objects
// from memory, so the fuzzer's minimization of a new input (during which
// it counts no executions) is quick.
func FuzzRawPack(f *testing.F) {
	var packs, idxs [2][]byte
	packs[0], idxs[0] = seedPack(f, "ofs")
	packs[1], idxs[1] = seedPack(f, "ref")
	whole := ^uint32(0)
	f.Add(false, uint32(0), uint8(0), []byte(nil), whole, uint32(0), uint8(0), []byte(nil), whole)
	f.Add(true, uint32(0), uint8(0), []byte(nil), whole, uint32(0), uint8(0), []byte(nil), whole)
	f.Add(false, uint32(0), uint8(0), []byte(nil), uint32(len(packs[0])/2), uint32(0), uint8(0), []byte(nil), whole)
	f.Add(false, uint32(40), uint8(4), []byte{0xff, 0xff, 0xff, 0x7f}, whole, uint32(0), uint8(0), []byte(nil), whole)
	f.Add(true, uint32(0), uint8(0), []byte(nil), whole, uint32(idxHeader+4), uint8(4), []byte{0, 0, 0, 0}, whole)
	f.Fuzz(func(t *testing.T, ref bool, pOff uint32, pCut uint8, pWith []byte, pLen uint32, iOff uint32, iCut uint8, iWith []byte, iLen uint32) {
		if len(pWith) > 64 || len(iWith) > 64 {
			return // damage, not new files: see above
		}
		k := 0
		if ref {
			k = 1
		}
		damage := func(b []byte, off uint32, cut uint8, with []byte, n uint32) []byte {
			o := min(int(off), len(b))
			c := min(int(cut), len(b)-o)
			out := append(append(append(make([]byte, 0, len(b)+len(with)), b[:o]...), with...), b[o+c:]...)
			return out[:min(len(out), int(n))]
		}
		pack, idx := damage(packs[k], pOff, pCut, pWith, pLen), damage(idxs[k], iOff, iCut, iWith, iLen)
		p, err := newRawPack(bytesPack{bytes.NewReader(pack)}, int64(len(pack)), idx)
		if err != nil {
			return
		}
		r := &Reader{packs: []*rawPack{p}, other: memory.NewStorage(), cache: newRawCache(DefaultCacheBytes)}
		defer r.Close()
		for i := 0; i < p.n && i < 64; i++ {
			_, _, _ = r.Read(packName(p, i))
		}
	})
}
