package reconcile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/ledger"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxTamperWalk bounds how far back a pass looks for the newest loop:
// version of a ledger. A ledger no loop: commit wrote within it (one
// written by another tool, or untouched for that long) is not compared.
const maxTamperWalk = 5000

// LastTransition returns the ledger at p as the newest loop: commit on the
// first-parent line from the tip wrote it, and that commit; ok is false
// when no loop: commit within maxTamperWalk commits changed p.
func (s *Store) LastTransition(p string) (data []byte, sha string, ok bool, err error) {
	c, err := s.repo.CommitObject(s.tip)
	if err != nil {
		return nil, "", false, err
	}
	hash, err := fileHash(c, p)
	if err != nil {
		return nil, "", false, err
	}
	for i := 0; i < maxTamperWalk; i++ {
		var parent *object.Commit
		var ph plumbing.Hash
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				return nil, "", false, err
			}
			if ph, err = fileHash(parent, p); err != nil {
				return nil, "", false, err
			}
		}
		if hash != ph && !hash.IsZero() && strings.HasPrefix(c.Message, "loop:") {
			data, ok, err := s.ReadFile(c.Hash.String(), p)
			return data, c.Hash.String(), ok, err
		}
		if parent == nil {
			return nil, "", false, nil
		}
		c, hash = parent, ph
	}
	return nil, "", false, nil
}

// fileHash is the blob hash of p in c, zero when absent.
func fileHash(c *object.Commit, p string) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	e, err := t.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

// tampered stops an entry whose ledger a person changed in a
// reconciler-owned section since the newest loop: commit wrote it (L-121):
// the pass must not trust forged state. The stop names what changed; a
// person's `accept | <why>` takes the edit on (`loop: accept`), after
// which the accept commit is the version later passes compare with.
func (p *passState) tampered(e *entry) (bool, error) {
	if reason, _, stopped := e.l.Stop(); stopped && reason == ledger.StopTampered {
		return true, nil
	}
	data, sha, ok, err := p.Store.LastTransition(e.ledgerPath)
	if err != nil || !ok {
		return false, err
	}
	last, ds := ledger.Parse(e.ledgerPath, data)
	if ledger.Fatal(ds) {
		return false, nil
	}
	changes := audit.HandEdits(last, e.l)
	if len(changes) == 0 {
		return false, nil
	}
	var names []string
	for _, c := range changes {
		names = append(names, c.Section)
	}
	detail := fmt.Sprintf("a person changed the reconciler-owned %s of %s since %s wrote it (gallivant verify shows the commit); first change: %s",
		strings.Join(names, ", "), e.ledgerPath, short(sha), strings.ReplaceAll(changes[0].Excerpt, "\n", " "))
	n, c := ledger.Stop(e.l, ledger.StopTampered, detail, 0)
	return true, p.apply(e, n, c)
}
