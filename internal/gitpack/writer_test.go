package gitpack

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// A pack Encode makes, with a tree stored as a delta on an earlier one,
// is one git accepts (verify-pack checks every object's id and the
// checksums) and reads back, and so does the Reader.
func TestEncodeWritesWhatGitReads(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r.git")
	testserver.Git(t, filepath.Dir(dir), "init", "--quiet", "--bare", dir)
	blob := []byte("# ledger\n")
	bh := HashObject(plumbing.BlobObject, blob)
	entry := func(name string) []byte { return append([]byte("100644 "+name+"\x00"), bh[:]...) }
	t1 := append(entry("a.md"), entry("c.md")...)
	t2 := append(append(entry("a.md"), entry("b.md")...), entry("c.md")...)
	h1, h2 := HashObject(plumbing.TreeObject, t1), HashObject(plumbing.TreeObject, t2)
	objs := []Object{
		{Hash: bh, Type: plumbing.BlobObject, Data: blob},
		{Hash: h1, Type: plumbing.TreeObject, Data: t1},
		// b.md goes in between: cut nothing at the end of a.md's entry.
		{Hash: h2, Type: plumbing.TreeObject, Data: Delta(len(t1), len(t2), len(entry("a.md")), 0, entry("b.md")), Base: h1},
	}
	pack, idx, sum, err := Encode(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePack(osfs.New(dir), pack, idx, sum); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "objects", "pack", "pack-"+sum.String()+".idx")
	v := testserver.Git(t, dir, "verify-pack", "-v", name)
	for _, h := range []plumbing.Hash{bh, h1, h2} {
		if !strings.Contains(v, h.String()) {
			t.Errorf("verify-pack does not list %s:\n%s", h, v)
		}
	}
	if got := testserver.Git(t, dir, "cat-file", "-p", h2.String()); len(strings.Split(strings.TrimSpace(got), "\n")) != 3 || !strings.Contains(got, "b.md") {
		t.Errorf("git reads the delta tree as:\n%s", got)
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(repo.Storer, 0)
	defer r.Close()
	for _, o := range []struct {
		h    plumbing.Hash
		data []byte
	}{{bh, blob}, {h1, t1}, {h2, t2}} {
		typ, got, err := r.Read(o.h)
		if err != nil || !bytes.Equal(got, o.data) || HashObject(typ, got) != o.h {
			t.Errorf("read %s = %s %q, %v; want %q", o.h, typ, got, err, o.data)
		}
	}
}
