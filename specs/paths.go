package specs

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// cleanRel cleans a repository-relative slash path and refuses absolute paths
// and paths that leave the repository.
func cleanRel(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("must not be empty")
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return "", fmt.Errorf("must be a relative slash-separated path, got %q", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("must stay inside the repository, got %q", p)
	}
	return c, nil
}

// under reports whether the slash path p lies inside directory dir ("." is
// the whole repository).
func under(p, dir string) bool {
	if dir == "." || dir == "" {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

// Stem returns a spec path's file name without its .md extension; ledgers,
// plans and work branches are named after it. A spec-kit spec
// (<NNN-feature>/spec.md) and a Kiro spec (.kiro/specs/<feature>/
// requirements.md) are named after their feature folder instead.
func Stem(specPath string) string {
	if f, ok := foreignStem(specPath); ok {
		return f
	}
	return strings.TrimSuffix(path.Base(specPath), ".md")
}

// LedgerPath returns where the ledger of the spec at specPath lives.
func (c *Config) LedgerPath(specPath string) string {
	return path.Join(c.Control.Plans, Stem(specPath)+"-ledger.md")
}

// PlanPath returns the conventional plan path of the spec at specPath.
func (c *Config) PlanPath(specPath string) string {
	return path.Join(c.Control.Plans, Stem(specPath)+"-plan.md")
}

// Branch returns the work branch of the spec at specPath.
func Branch(specPath string) string { return "gallivant/" + Stem(specPath) }

func sortStrings(s []string) { sort.Strings(s) }
