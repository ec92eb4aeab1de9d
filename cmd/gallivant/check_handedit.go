package main

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
)

// handEdits reports ledgers whose reconciler-owned sections, as check read
// them (working files), differ from the version the newest loop: commit
// wrote (L-121, ledger/hand-edit). It needs git and a repository; outside
// one, or for a ledger no loop: commit wrote, there is nothing to compare.
func handEdits(root string, repo *ledger.Repo) parse.Diagnostics {
	top, err := gitOut(root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	top = strings.TrimSpace(top)
	var ds parse.Diagnostics
	specsOf := make([]string, 0, len(repo.Ledgers))
	for sp := range repo.Ledgers {
		specsOf = append(specsOf, sp)
	}
	sort.Strings(specsOf)
	for _, sp := range specsOf {
		lp := repo.LedgerPaths[sp]
		rel, err := filepath.Rel(top, filepath.Join(root, filepath.FromSlash(lp)))
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		sha, subject := lastTransition(top, rel)
		if sha == "" {
			continue
		}
		data, err := gitOut(top, "show", sha+":"+rel)
		if err != nil {
			continue
		}
		last, lds := ledger.Parse(lp, []byte(data))
		if ledger.Fatal(lds) {
			continue
		}
		for _, c := range audit.HandEdits(last, repo.Ledgers[sp]) {
			ds.Errorf(lp, parse.Pos{Line: 1, Col: 1}, audit.RuleHandEdit,
				"the reconciler-owned %s section differs from what %s (%s) wrote: %s; a person may change only ## Requests, and reconcile stops the entry tampered until accept | <why> takes the edit on",
				c.Section, shortSHA(sha), subject, strings.ReplaceAll(c.Excerpt, "\n", " "))
		}
	}
	return ds
}

// lastTransition finds the newest first-parent commit with a loop: subject
// that changed the file at rel.
func lastTransition(top, rel string) (sha, subject string) {
	out, err := gitOut(top, "log", "--first-parent", "--format=%H %s", "--", rel)
	if err != nil {
		return "", ""
	}
	for _, line := range strings.Split(out, "\n") {
		h, s, _ := strings.Cut(line, " ")
		if strings.HasPrefix(s, "loop:") {
			return h, s
		}
	}
	return "", ""
}
