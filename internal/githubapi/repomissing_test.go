package githubapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// Issue 31: a misspelt repository is not reported as a missing base
// branch. The adapter tells the two 404s apart.
func TestAdapterTellsAMissingRepositoryFromAMissingBranch(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()

	type result struct {
		OK          bool
		RepoMissing string // RepoNotFoundError.Repo, or ""
		NotFound    bool   // errors.Is(err, &NotFoundError{})
		Err         bool
	}
	of := func(ok bool, err error) result {
		r := result{OK: ok, Err: err != nil}
		var rnf *RepoNotFoundError
		if errors.As(err, &rnf) {
			r.RepoMissing = rnf.Repo
		}
		r.NotFound = errors.Is(err, &NotFoundError{})
		return r
	}
	tests := []struct {
		name, repo, branch string
		want               result
	}{
		{"existing branch", "acme/api", "main", result{OK: true}},
		{"missing branch", "acme/api", "nope", result{}},
		{"missing repository", "acme/apii", "main", result{RepoMissing: "acme/apii", NotFound: true, Err: true}},
		{"missing owner", "nobody/api", "main", result{RepoMissing: "nobody/api", NotFound: true, Err: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
			_, ok, err := g.BranchHead(ctx, tc.repo, tc.branch)
			if diff := cmp.Diff(tc.want, of(ok, err)); diff != "" {
				t.Errorf("BranchHead(%s, %s) = %v, %v (-want +got):\n%s", tc.repo, tc.branch, ok, err, diff)
			}
			_, err = g.MatchingBranches(ctx, tc.repo, "gallivant/")
			want := tc.want
			want.OK = false
			if diff := cmp.Diff(want, of(false, err)); diff != "" {
				t.Errorf("MatchingBranches(%s) = %v (-want +got):\n%s", tc.repo, err, diff)
			}
			if tc.want.RepoMissing != "" {
				const msg = "does not exist or the token cannot see it"
				if !strings.Contains(err.Error(), tc.repo) || !strings.Contains(err.Error(), msg) {
					t.Errorf("MatchingBranches(%s) error %q; want it to name the repository and say %q", tc.repo, err, msg)
				}
			}
		})
	}
}

// A missing branch of a repository already seen costs one request, not
// a second read of the repository.
func TestAdapterMissingBranchOfAKnownRepositoryAsksOnce(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	if _, ok, err := g.BranchHead(ctx, "acme/api", "gone-1"); err != nil || ok {
		t.Fatalf("BranchHead(gone-1) = %v, %v; want false, nil", ok, err)
	}
	s.ResetLog()
	for _, b := range []string{"gone-2", "gone-3"} {
		if _, ok, err := g.BranchHead(ctx, "acme/api", b); err != nil || ok {
			t.Fatalf("BranchHead(%s) = %v, %v; want false, nil", b, ok, err)
		}
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := []string{"GET /repos/acme/api/git/ref/heads/gone-2", "GET /repos/acme/api/git/ref/heads/gone-3"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("requests after the repository was seen (-want +got):\n%s", diff)
	}
}
