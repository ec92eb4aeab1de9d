package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ruleIDRE matches a seed rule id as code comments and test names cite it
// (a package letter, a hyphen, a number), optionally the start of a range
// written with "..", whose end may repeat the letter or not.
var ruleIDRE = regexp.MustCompile(`\b([PSLGRX])-([0-9]+)(?:\.\.(?:[PSLGRX]-)?([0-9]+))?\b`)

// citedRuleIDs returns every rule id cited in the repository's Go files,
// ranges expanded, each with the first file:line that cites it.
func citedRuleIDs(t *testing.T, root string) map[string]string {
	t.Helper()
	cited := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range ruleIDRE.FindAllStringSubmatch(line, -1) {
				from, _ := strconv.Atoi(m[2])
				to := from
				if m[3] != "" {
					to, _ = strconv.Atoi(m[3])
				}
				for n := from; n <= to; n++ {
					id := fmt.Sprintf("%s-%d", m[1], n)
					if _, ok := cited[id]; !ok {
						cited[id] = fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cited
}

// documentedRule is one row of docs/rules.md's tables.
type documentedRule struct {
	line   int
	pinned []string // package-qualified test names, like ledger.TestAmend
}

var (
	ruleRowRE  = regexp.MustCompile(`^\| ([PSLGRX]-[0-9]+) \|`)
	pinnedByRE = regexp.MustCompile("`([a-z]+(?:/[a-z]+)*)\\.((?:Test|Fuzz)[A-Za-z0-9_]+)`")
)

// documentedRuleIDs reads docs/rules.md: each table row's id and the tests
// named in its last column.
func documentedRuleIDs(t *testing.T, root string) map[string]documentedRule {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]documentedRule{}
	for i, line := range strings.Split(string(src), "\n") {
		m := ruleRowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "|"), " | ")
		last := strings.TrimSpace(cells[len(cells)-1])
		r := documentedRule{line: i + 1}
		for _, p := range pinnedByRE.FindAllStringSubmatch(last, -1) {
			r.pinned = append(r.pinned, p[1]+"."+p[2])
		}
		if len(r.pinned) == 0 && last != "not pinned by a test yet" {
			t.Errorf("docs/rules.md:%d: %s names no test and does not say %q; got %q", i+1, m[1], "not pinned by a test yet", last)
		}
		if prev, dup := rules[m[1]]; dup {
			t.Errorf("docs/rules.md:%d: %s is listed twice (first at line %d)", i+1, m[1], prev.line)
		}
		rules[m[1]] = r
	}
	return rules
}

// Every rule id cited in the code resolves in docs/rules.md, every id there
// is cited somewhere, and every test named as pinning a rule exists, so a
// reader can follow an id from the code to its meaning and to its test.
func TestRuleCitationsAreDocumented(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	cited := citedRuleIDs(t, root)
	documented := documentedRuleIDs(t, root)
	if len(cited) < 20 || len(documented) < 20 {
		t.Fatalf("found %d cited and %d documented rule ids; the scan is broken", len(cited), len(documented))
	}
	for _, id := range sortedKeys(cited) {
		if _, ok := documented[id]; !ok {
			t.Errorf("%s is cited in %s but missing from docs/rules.md", id, cited[id])
		}
	}
	tests := map[string]bool{}
	for _, id := range sortedKeys(documented) {
		r := documented[id]
		if _, ok := cited[id]; !ok {
			t.Errorf("docs/rules.md:%d: %s is cited nowhere in the code; remove it or cite it where it is kept", r.line, id)
		}
		for _, name := range r.pinned {
			ok, seen := tests[name]
			if !seen {
				ok = testExists(t, root, name)
				tests[name] = ok
			}
			if !ok {
				t.Errorf("docs/rules.md:%d: %s is pinned by %s, which does not exist", r.line, id, name)
			}
		}
	}
}

// testExists reports whether pkg.Name is a test or fuzz function declared
// in a _test.go file of the package directory pkg under root.
func testExists(t *testing.T, root, qualified string) bool {
	t.Helper()
	i := strings.LastIndex(qualified, ".")
	dir, name := qualified[:i], qualified[i+1:]
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := "func " + name + "("
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "\n"+decl) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
