package reconcile

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/ledger"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxTamperWalk bounds how far back a pass looks for the newest loop:
// version of its ledgers. A ledger no loop: commit changed within it (one
// written by another tool, or untouched for that long) is not compared.
const maxTamperWalk = 5000

// LedgerVersions says, per ledger path, which loop: commit last changed it
// and whether a commit without a loop: subject changed it after that.
type LedgerVersions struct {
	// Last maps a path to the newest loop: commit that changed it.
	Last map[string]string
	// Edited holds the paths a person's commit changed after Last.
	Edited map[string]bool
}

// LoopVersions walks the first-parent history back from the tip once, for
// all of paths together, until each has met its newest loop: commit (or
// after maxTamperWalk commits). Only the commits' tree differences are
// read, never a file.
func (s *Store) LoopVersions(paths []string) (*LedgerVersions, error) {
	v := &LedgerVersions{Last: map[string]string{}, Edited: map[string]bool{}}
	open := map[string]bool{}
	for _, p := range paths {
		open[p] = true
	}
	c, err := s.repo.CommitObject(s.tip)
	if err != nil {
		return nil, err
	}
	for i := 0; i < maxTamperWalk && len(open) > 0; i++ {
		var parent *object.Commit
		var ptree *object.Tree
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				return nil, err
			}
			if ptree, err = parent.Tree(); err != nil {
				return nil, err
			}
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, err
		}
		changes, err := object.DiffTree(ptree, tree)
		if err != nil {
			return nil, err
		}
		loop := strings.HasPrefix(c.Message, "loop:")
		for _, ch := range changes {
			name := ch.To.Name
			if name == "" {
				name = ch.From.Name
			}
			if !open[name] {
				continue
			}
			if loop && ch.To.Name != "" {
				v.Last[name] = c.Hash.String()
				delete(open, name)
			} else {
				v.Edited[name] = true
			}
		}
		if parent == nil {
			break
		}
		c = parent
	}
	for p := range open {
		// No loop: version to compare with.
		delete(v.Edited, p)
	}
	return v, nil
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
	if p.versions == nil {
		paths := make([]string, 0, len(p.repo.LedgerPaths))
		for _, lp := range p.repo.LedgerPaths {
			paths = append(paths, lp)
		}
		v, err := p.Store.LoopVersions(paths)
		if err != nil {
			return false, err
		}
		p.versions = v
	}
	sha := p.versions.Last[e.ledgerPath]
	if !p.versions.Edited[e.ledgerPath] || sha == "" {
		return false, nil
	}
	data, ok, err := p.Store.ReadFile(sha, e.ledgerPath)
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
