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
// pull-request states, comparison statuses, permissions, mergeable states,
// review states and check statuses and conclusions are typed here
// (PRState, CompareStatus, Permission, MergeableState, ReviewState,
// CheckStatus, CheckConclusion, StatusState) and in gatekeep's digest, and
// compared with their constants.
var rawState = regexp.MustCompile(`\.State\s*[!=]=\s*"(open|closed)"|\.Status\s*[!=]=\s*"(ahead|behind|diverged|identical|unrelated)"|\bperm\w*\s*[!=]=\s*"(admin|write|read|none)"` +
	// mergeable_state, review states, check statuses and conclusions
	// (gatekeep.MergeState, ReviewState, CheckStatus, CheckConclusion).
	`|Merge(able)?State\s*[!=]=\s*"|\.State\s*[!=]=\s*"(APPROVED|CHANGES_REQUESTED|COMMENTED|DISMISSED|PENDING)"` +
	`|\.Status\s*[!=]=\s*"(queued|in_progress|completed|pending)"|\.Conclusion\s*[!=]=\s*"` +
	`|case\s+"(APPROVED|CHANGES_REQUESTED|COMMENTED|DISMISSED|timed_out|action_required|startup_failure)"`)

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
