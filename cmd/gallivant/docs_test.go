package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every rule id the code can emit must be documented in docs/, so that a
// person who meets one in CI can look it up.
func TestEveryRuleIsDocumented(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	ruleRE := regexp.MustCompile(`"((?:file|frontmatter|config|spec|spec-kit|kiro|chain|ledger|plan|check|request|return|reconcile|gatekeep|lessons)/[a-z][a-z-]*)"`)
	rules := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range ruleRE.FindAllStringSubmatch(string(src), -1) {
			rules[m[1]] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		docs.Write(b)
	}
	if len(rules) < 20 {
		t.Fatalf("found only %d rule ids; the scan is broken", len(rules))
	}
	for r, where := range rules {
		if !strings.Contains(docs.String(), "`"+r+"`") {
			t.Errorf("rule %s (used in %s) is not documented in docs/*.md", r, where)
		}
	}
}
