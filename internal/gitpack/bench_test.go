package gitpack

import (
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// BenchmarkRead reads every object of a 2,000-commit history through one
// Reader, as a history walk does: commits, trees and ledger versions,
// most of them deltas.
func BenchmarkRead(b *testing.B) {
	ctl := historyRepo(b, 2000, 50)
	repo, err := git.PlainOpen(ctl)
	if err != nil {
		b.Fatal(err)
	}
	var ids []plumbing.Hash
	iter, err := repo.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		b.Fatal(err)
	}
	if err := iter.ForEach(func(o plumbing.EncodedObject) error { ids = append(ids, o.Hash()); return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(repo.Storer, 0)
		for _, h := range ids {
			if _, _, err := r.Read(h); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportMetric(float64(len(ids)), "objects/op")
}

// BenchmarkEncode packs what a pass that edits one ledger a hundred times
// makes: a blob, a tree delta and a commit per edit.
func BenchmarkEncode(b *testing.B) {
	tree := make([]byte, 0, 500*60)
	for i := 0; i < 500; i++ {
		tree = fmt.Appendf(tree, "100644 s%03d-ledger.md\x00%020d", i, i)
	}
	var objs []Object
	base := HashObject(plumbing.TreeObject, tree)
	for i := 0; i < 100; i++ {
		blob := fmt.Appendf(nil, "# ledger\n\nrevision %d\n", i)
		objs = append(objs,
			Object{Hash: HashObject(plumbing.BlobObject, blob), Type: plumbing.BlobObject, Data: blob},
			Object{Hash: HashObject(plumbing.TreeObject, append(tree, byte(i))), Type: plumbing.TreeObject, Data: Delta(len(tree), len(tree)+1, len(tree), 0, []byte{byte(i)}), Base: base},
			Object{Hash: HashObject(plumbing.CommitObject, blob), Type: plumbing.CommitObject, Data: blob})
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		pack, _, _, err := Encode(buf, objs)
		if err != nil {
			b.Fatal(err)
		}
		buf = pack
	}
}
