package githubapi

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rawState matches a comparison of a GitHub state with a string literal:
// pull-request states, comparison statuses and permissions are typed here
// (PRState, CompareStatus, Permission) and compared with their constants.
var rawState = regexp.MustCompile(`\.State\s*[!=]=\s*"(open|closed)"|\.Status\s*[!=]=\s*"(ahead|behind|diverged|identical|unrelated)"|\bperm\w*\s*[!=]=\s*"(admin|write|read|none)"`)

// Issue 26: GitHub's states are typed at the adapter; no production code
// outside it compares them with raw strings.
func TestNoRawGitHubStatesOutsideTheAdapter(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "githubapi", "githubtest", "testdata", ".git", ".ci":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, ln := range strings.Split(string(src), "\n") {
			if m := rawState.FindString(ln); m != "" {
				t.Errorf("%s:%d: %s compares a GitHub state with a raw string; use the githubapi or gatekeep constant", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
