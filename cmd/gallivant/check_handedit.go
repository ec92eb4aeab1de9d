package main

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
)

// handEdits reports ledgers whose reconciler-owned sections, as check read
// them (working files), differ from the version the newest loop: commit
// wrote (L-121, ledger/hand-edit). It needs a git work tree; outside one,
// or for a ledger no loop: commit wrote, there is nothing to compare. The
// history is walked once for every ledger, by the store's first-parent
// walk that the pass's tamper check uses (store.Checkout); a ledger is read
// back from history only when a person's commit or the work tree changed
// it since its newest loop: commit.
func handEdits(ctx context.Context, root string, repo *ledger.Repo) parse.Diagnostics {
	co, ok, err := store.OpenCheckout(root)
	if err != nil || !ok {
		return nil
	}
	top := co.Top()
	rels := map[string]string{} // repository-relative path → spec
	var paths []string
	for sp := range repo.Ledgers {
		rel, err := filepath.Rel(top, filepath.Join(root, filepath.FromSlash(repo.LedgerPaths[sp])))
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		rels[rel] = sp
		paths = append(paths, rel)
	}
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	versions, err := co.LoopVersions(ctx, paths)
	if err != nil {
		return nil
	}
	dirty := map[string]bool{}
	if out, err := gitOut(top, append([]string{"status", "--porcelain=v1", "-z", "--"}, paths...)...); err == nil {
		for _, r := range strings.Split(out, "\x00") {
			if len(r) > 3 {
				dirty[r[3:]] = true
			}
		}
	}
	var ds parse.Diagnostics
	for _, rel := range paths {
		last, ok := versions.Last[rel]
		if !ok || (!versions.Edited[rel] && !dirty[rel]) {
			continue
		}
		data, subject, ok, err := co.Version(ctx, last, rel)
		if err != nil || !ok {
			continue
		}
		sp := rels[rel]
		lp := repo.LedgerPaths[sp]
		was, lds := ledger.Parse(lp, data)
		if ledger.Fatal(lds) {
			continue
		}
		for _, c := range audit.HandEdits(was, repo.Ledgers[sp]) {
			ds.Errorf(lp, parse.Pos{Line: 1, Col: 1}, audit.RuleHandEdit,
				"the reconciler-owned %s section differs from what %s (%s) wrote: %s; a person may change only ## Requests, and reconcile stops the entry tampered until accept | <why> takes the edit on",
				c.Section, shortSHA(last), subject, strings.ReplaceAll(c.Excerpt, "\n", " "))
		}
	}
	return ds
}
