package reconcile

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/ledger"
)

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
		v, err := p.Store.LoopVersions(p.ctx, paths)
		if err != nil {
			return false, err
		}
		p.versions = v
	}
	sha := p.versions.Last[e.ledgerPath]
	if !p.versions.Edited[e.ledgerPath] || sha == "" {
		return false, nil
	}
	data, ok, err := p.Store.ReadFile(p.ctx, sha, e.ledgerPath)
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
