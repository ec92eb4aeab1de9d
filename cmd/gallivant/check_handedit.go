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
// One git log serves every ledger; a ledger is read back from history only
// when a person's commit or the work tree changed it since its newest
// loop: commit.
func handEdits(root string, repo *ledger.Repo) parse.Diagnostics {
	top, err := gitOut(root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	top = strings.TrimSpace(top)
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
	newest, loop := lastTransitions(top, paths)
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
		last, ok := loop[rel]
		if !ok || (newest[rel] == last.sha && !dirty[rel]) {
			continue
		}
		data, err := gitOut(top, "show", last.sha+":"+rel)
		if err != nil {
			continue
		}
		sp := rels[rel]
		lp := repo.LedgerPaths[sp]
		was, lds := ledger.Parse(lp, []byte(data))
		if ledger.Fatal(lds) {
			continue
		}
		for _, c := range audit.HandEdits(was, repo.Ledgers[sp]) {
			ds.Errorf(lp, parse.Pos{Line: 1, Col: 1}, audit.RuleHandEdit,
				"the reconciler-owned %s section differs from what %s (%s) wrote: %s; a person may change only ## Requests, and reconcile stops the entry tampered until accept | <why> takes the edit on",
				c.Section, shortSHA(last.sha), last.subject, strings.ReplaceAll(c.Excerpt, "\n", " "))
		}
	}
	return ds
}

type transition struct{ sha, subject string }

// lastTransitions reads the first-parent history of paths once: for each,
// the newest commit that changed it and the newest loop: commit that did.
func lastTransitions(top string, paths []string) (newest map[string]string, loop map[string]transition) {
	newest, loop = map[string]string{}, map[string]transition{}
	out, err := gitOut(top, append([]string{"log", "--first-parent", "--format=%x00%H %s", "--name-only", "--"}, paths...)...)
	if err != nil {
		return newest, loop
	}
	for _, rec := range strings.Split(out, "\x00") {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		sha, subject, _ := strings.Cut(lines[0], " ")
		for _, name := range lines[1:] {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if _, seen := newest[name]; !seen {
				newest[name] = sha
			}
			if _, seen := loop[name]; !seen && ledger.LoopAuthored(subject) {
				loop[name] = transition{sha, subject}
			}
		}
	}
	return newest, loop
}
