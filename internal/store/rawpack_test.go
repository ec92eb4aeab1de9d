package store

import (
	"bytes"
	"container/list"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// rawObjects returns, for every object of a repository, the type and bytes
// go-git's own storage returns: packs written by fast-import (deltas on
// older versions), by git repack (deltas on newer versions, offset or
// reference bases), and loose objects beside a pack.
func TestRawObjectsReadLikeGoGit(t *testing.T) {
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
			os.WriteFile(filepath.Join(ctl, "plans", "s001-ledger.md"), []byte("loose\n"), 0o644)
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
			// The walk's own cache, and one so small that almost every
			// object evicts another, whose memory the next one reuses.
			for _, max := range []int{rawCacheBytes, 16 << 10} {
				raw := newRawObjects(repo.Storer)
				raw.cache.max = max
				compareRawObjects(t, repo, raw)
				recycled := 0
				for _, f := range raw.cache.free {
					recycled += len(f)
				}
				if max < rawCacheBytes && recycled == 0 {
					t.Errorf("a %d-byte cache recycled nothing", max)
				}
				raw.close()
			}
			// A history walk on the small cache lists what git lists.
			st, err := Open(context.Background(), Options{Control: ctl})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"plans/s003-ledger.md", "plans/s001-ledger.md", "gallivant.yaml"} {
				l, done := newPathLog(st, p)
				l.objs.cache.max = 16 << 10
				got := []string{}
				err := l.walk(st.tip, func(c *object.Commit) error {
					got = append(got, c.Hash.String())
					return nil
				})
				done()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(strings.Fields(testserver.Git(t, ctl, "log", "--format=%H", "--", p)), got); diff != "" {
					t.Errorf("walk of %s on a small cache (-git +got):\n%s", p, diff)
				}
			}
			raw := newRawObjects(repo.Storer)
			defer raw.close()
			if _, _, err := raw.read(plumbing.NewHash(strings.Repeat("ab", 20))); err == nil {
				t.Error("read of a missing object succeeded")
			}
		})
	}
}

// compareRawObjects reads every object of repo through raw and through
// go-git, one after another.
func compareRawObjects(t *testing.T, repo *git.Repository, raw *rawObjects) {
	t.Helper()
	if len(raw.packs) != 1 {
		t.Fatalf("rawObjects opened %d packs, want 1", len(raw.packs))
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
		typ, got, err := raw.read(o.Hash())
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

// The pack reader reads bytes from disk that a crash or a disk can damage:
// whatever the pack and its index hold, it never panics, never recurses
// for ever and never allocates what the data does not hold. Inputs are
// damage to a real pack and index (a splice of each, and where each is cut
// short) rather than whole files, so that each stays a few bytes and the
// fuzzer's minimization of a new input is quick: with whole files as
// inputs it ran 8 inputs in 30 s (issue 33).
func FuzzRawPack(f *testing.F) {
	ctl := historyRepo(f, 12, 3)
	testserver.Git(f, ctl, "repack", "-adfq", "--depth=10")
	idxs, _ := filepath.Glob(filepath.Join(ctl, ".git", "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		f.Fatalf("%d packs", len(idxs))
	}
	idx, err := os.ReadFile(idxs[0])
	if err != nil {
		f.Fatal(err)
	}
	pack, err := os.ReadFile(strings.TrimSuffix(idxs[0], ".idx") + ".pack")
	if err != nil {
		f.Fatal(err)
	}
	whole := ^uint32(0)
	f.Add(uint32(0), uint8(0), []byte(nil), whole, uint32(0), uint8(0), []byte(nil), whole)
	f.Add(uint32(0), uint8(0), []byte(nil), uint32(len(pack)/2), uint32(0), uint8(0), []byte(nil), whole)
	f.Add(uint32(40), uint8(4), []byte{0xff, 0xff, 0xff, 0x7f}, whole, uint32(0), uint8(0), []byte(nil), whole)
	f.Add(uint32(0), uint8(0), []byte(nil), whole, uint32(idxHeader+4), uint8(4), []byte{0, 0, 0, 0}, whole)
	f.Fuzz(func(t *testing.T, pOff uint32, pCut uint8, pWith []byte, pLen uint32, iOff uint32, iCut uint8, iWith []byte, iLen uint32) {
		damage := func(b []byte, off uint32, cut uint8, with []byte, n uint32) []byte {
			o := min(int(off), len(b))
			c := min(int(cut), len(b)-o)
			out := append(append(append(make([]byte, 0, len(b)+len(with)), b[:o]...), with...), b[o+c:]...)
			return out[:min(len(out), int(n))]
		}
		pack, idx := damage(pack, pOff, pCut, pWith, pLen), damage(idx, iOff, iCut, iWith, iLen)
		fs := memfs.New()
		w, err := fs.Create("p.pack")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(pack)
		w.Close()
		file, err := fs.Open("p.pack")
		if err != nil {
			t.Fatal(err)
		}
		p, err := newRawPack(file, idx)
		if err != nil {
			return
		}
		r := &rawObjects{packs: []*rawPack{p}, other: memory.NewStorage(), cache: rawCache{max: rawCacheBytes, m: map[rawKey]*list.Element{}}}
		defer r.close()
		names := idx[idxHeader : idxHeader+p.n*20]
		for i := 0; i < p.n && i < 200; i++ {
			var h plumbing.Hash
			copy(h[:], names[i*20:])
			_, _, _ = r.read(h)
		}
	})
}
