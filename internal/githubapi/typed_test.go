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
// comparison statuses and permissions are typed here (CompareStatus,
// Permission); pull-request states, mergeable states, review states,
// check statuses and conclusions and commit-status states have one
// vocabulary, gatekeep's (PRState, MergeState, ReviewState, CheckStatus,
// CheckConclusion, StatusState), which this adapter returns; both are
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
			case "githubapi", "ghstandin", "testdata", ".git", ".ci":
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

// stateConversion matches a conversion into gatekeep's state vocabulary.
var stateConversion = regexp.MustCompile(`gatekeep\.(PRState|MergeState|ReviewState|CheckStatus|CheckConclusion|StatusState)\(`)

// Issue 26: GitHub's states have one vocabulary. The adapter declares no
// state type of its own beside gatekeep's, and converts GitHub's strings
// into gatekeep's types where it reads them; nothing outside it converts
// them again.
func TestOneVocabularyOfGitHubStates(t *testing.T) {
	t.Parallel()
	own := regexp.MustCompile(`^type (PRState|MergeableState|MergeState|ReviewState|CheckStatus|CheckConclusion|StatusState) `)
	conversions := 0
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "gatekeep", "testdata", ".git", ".ci":
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
		adapter := filepath.Base(filepath.Dir(path)) == "githubapi"
		for i, ln := range strings.Split(string(src), "\n") {
			if adapter && own.MatchString(ln) {
				t.Errorf("%s:%d: %s: the adapter declares its own GitHub state type; use gatekeep's", path, i+1, strings.TrimSpace(ln))
			}
			if stateConversion.MatchString(ln) {
				if adapter {
					conversions++
					continue
				}
				t.Errorf("%s:%d: converts into gatekeep's state vocabulary outside the adapter: %s", path, i+1, strings.TrimSpace(ln))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if conversions == 0 {
		t.Error("the adapter converts no GitHub state into gatekeep's types; the scan found nothing to check")
	}
}
