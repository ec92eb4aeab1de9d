package gitpack

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// packOf is the pack git sends for every object reachable from HEAD in
// repository dir, as a fetch from scratch receives it.
func packOf(t *testing.T, dir string) []byte {
	t.Helper()
	cmd := exec.Command("git", "pack-objects", "--revs", "--stdout", "-q")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("HEAD\n")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pack-objects: %v\n%s", err, errOut.String())
	}
	return out.Bytes()
}

// sink is the writer a guarded pack goes on to: what it received.
type sink struct {
	bytes.Buffer
	opened, closed int
}

func (s *sink) open() (io.WriteCloser, error) { s.opened++; return s, nil }
func (s *sink) Close() error                  { s.closed++; return nil }

// A pack holding a 16 MiB file is refused at that file with a 256 KiB
// limit: the error names its path, its size and the limit, nothing is
// passed on, the temporary file is gone, and what the scan allocated is
// a few times the limit, not the file. With a limit above it the same
// pack passes on whole.
func TestGuardRefusesAnOversizedFile(t *testing.T) {
	dir := t.TempDir()
	testserver.Git(t, dir, "init", "--quiet", "-b", "main")
	const big, limit = 16 << 20, 256 << 10
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string][]byte{
		"gallivant.yaml":      []byte("defaults:\n  repo: acme/api\n"),
		"plans/a-ledger.md":   []byte("# ledger\n"),
		"assets/big.bin":      bytes.Repeat([]byte("0123456789abcdef"), big/16),
		"assets/small.txt":    []byte("small\n"),
		"specs/feature-a.md":  []byte("# A\n"),
		"specs/deep/b/c/d.md": []byte("# D\n"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testserver.Git(t, dir, "add", "-A")
	testserver.Git(t, dir, "commit", "--quiet", "-m", "start")
	pack := packOf(t, dir)
	if len(pack) > 1<<20 {
		t.Fatalf("the pack is %d bytes; the test wants the file's size declared, not sent", len(pack))
	}

	tmp := t.TempDir()
	var s sink
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := Guard(tmp, limit, s.open)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := io.Copy(g, bytes.NewReader(pack))
	cerr := g.Close()
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	// The write may end before the scan has read the whole file (it
	// hashes it for its id); Close always says.
	if werr != nil && !errors.As(werr, &tl) || !errors.As(cerr, &tl) {
		t.Fatalf("write = %v, close = %v; want a *TooLargeError", werr, cerr)
	}
	if tl.Path != "assets/big.bin" || tl.Size != big || tl.Limit != limit || tl.Offset <= 12 {
		t.Errorf("refused %+v", tl)
	}
	if msg := tl.Error(); !strings.Contains(msg, `"assets/big.bin" is 16777216 bytes, over the 262144-byte limit`) {
		t.Errorf("message: %s", msg)
	}
	if s.opened != 0 || s.Len() != 0 {
		t.Errorf("the refused pack was passed on: opened %d, %d bytes", s.opened, s.Len())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the scan of a pack declaring a %d-byte file allocated %d bytes", big, alloc)
	if alloc > 8*limit {
		t.Errorf("the scan allocated %d bytes; want under %d (8× the limit) for a %d-byte file", alloc, 8*limit, big)
	}

	s = sink{}
	g, err = Guard(tmp, 2*big, s.open)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(g, bytes.NewReader(pack)); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if s.opened != 1 || s.closed != 1 || !bytes.Equal(s.Bytes(), pack) {
		t.Errorf("a pack under the limit: opened %d, closed %d, %d of %d bytes passed on", s.opened, s.closed, s.Len(), len(pack))
	}
}

// The scan reads untrusted bytes: whatever damage a pack carries, it
// never panics, and a pack it does not refuse is passed on byte for byte.
func FuzzGuard(f *testing.F) {
	var packs [2][]byte
	packs[0], _ = seedPack(f, "ofs")
	packs[1], _ = seedPack(f, "ref")
	f.Add(false, uint32(0), uint8(0), []byte(nil), ^uint32(0), int64(1<<20))
	f.Add(true, uint32(40), uint8(4), []byte{0xff, 0xff, 0xff, 0x7f}, ^uint32(0), int64(100))
	f.Add(false, uint32(12), uint8(1), []byte{0x3f}, ^uint32(0), int64(10))
	f.Fuzz(func(t *testing.T, ref bool, off uint32, cut uint8, with []byte, n uint32, limit int64) {
		if len(with) > 64 {
			return
		}
		k := 0
		if ref {
			k = 1
		}
		b := packs[k]
		o := min(int(off), len(b))
		c := min(int(cut), len(b)-o)
		pack := append(append(append([]byte(nil), b[:o]...), with...), b[o+c:]...)
		pack = pack[:min(len(pack), int(n))]
		var s sink
		g, err := Guard(t.TempDir(), limit, s.open)
		if err != nil {
			t.Fatal(err)
		}
		_, werr := io.Copy(g, bytes.NewReader(pack))
		cerr := g.Close()
		var tl *TooLargeError
		switch {
		case werr == nil && cerr == nil:
			if !bytes.Equal(s.Bytes(), pack) {
				t.Fatalf("passed on %d of %d bytes", s.Len(), len(pack))
			}
		case !errors.As(cerr, &tl):
			t.Fatalf("write %v, close %v: not a refusal", werr, cerr)
		}
	})
}
