package reconcile

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/google/go-cmp/cmp"
)

// The observer answers a pass's branch reads per repository: the first
// read of each work branch from one matching-refs snapshot, a base branch
// once per pass, and any branch the pass itself may have moved from GitHub.
func TestObserverReadsPerRepository(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/a", "acme/b")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := context.Background()
	base, ok, err := g.BranchHead(ctx, "acme/a", "main")
	if err != nil || !ok {
		t.Fatalf("main: %v %v", ok, err)
	}
	baseB, _, _ := g.BranchHead(ctx, "acme/b", "main")
	for _, b := range []string{"gallivant/x", "gallivant/y"} {
		if err := g.CreateBranch(ctx, "acme/a", b, base); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.CreateBranch(ctx, "acme/b", "gallivant/z", baseB); err != nil {
		t.Fatal(err)
	}
	if err := g.CreateBranch(ctx, "acme/a", "other", base); err != nil {
		t.Fatal(err)
	}
	s.ResetLog()
	o := observe(g)
	o.prefetch(ctx, []string{"acme/a", "acme/b"}, 2)
	type read struct {
		repo, branch string
		sha          string
		ok           bool
	}
	var got []read
	head := func(repo, branch string) {
		sha, ok, err := o.BranchHead(ctx, repo, branch)
		if err != nil {
			t.Fatalf("%s %s: %v", repo, branch, err)
		}
		got = append(got, read{repo, branch, sha, ok})
	}
	head("acme/a", "gallivant/x")
	head("acme/a", "gallivant/y")
	head("acme/a", "gallivant/none")
	head("acme/b", "gallivant/z")
	head("acme/a", "main")
	head("acme/a", "main")
	want := []read{{"acme/a", "gallivant/x", base, true}, {"acme/a", "gallivant/y", base, true}, {"acme/a", "gallivant/none", "", false},
		{"acme/b", "gallivant/z", baseB, true}, {"acme/a", "main", base, true}, {"acme/a", "main", base, true}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(read{})); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"GET /repos/acme/a/git/matching-refs/heads/gallivant/",
		"GET /repos/acme/a/git/ref/heads/main",
		"GET /repos/acme/b/git/matching-refs/heads/gallivant/",
	}, sortedPaths(s)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	// The pass moves gallivant/x (an executor pushed it): the next read
	// asks GitHub and sees where it is now.
	moved := pushCommit(t, s, "acme/a", "gallivant/x")
	o.moved("acme/a", "gallivant/x")
	s.ResetLog()
	got = nil
	head("acme/a", "gallivant/x")
	if diff := cmp.Diff([]read{{"acme/a", "gallivant/x", moved, true}}, got, cmp.AllowUnexported(read{})); diff != "" {
		t.Errorf("read after the pass moved the branch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GET /repos/acme/a/git/ref/heads/gallivant/x"}, sortedPaths(s)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	// A new pass's observer starts from a new snapshot, which GitHub
	// answers 304 when nothing moved since the last one.
	o2 := observe(g)
	s.ResetLog()
	if sha, _, _ := o2.BranchHead(ctx, "acme/b", "gallivant/z"); sha != baseB {
		t.Errorf("gallivant/z = %s, want %s", sha, baseB)
	}
	if c := s.Counts(); c.Total != 1 || c.NotModified != 1 {
		t.Errorf("an unchanged snapshot cost %+v, want one request answered 304", c)
	}
}

// MatchingBranches keeps only branches under the prefix: GitHub matches a
// prefix of the ref name, so heads/gallivant/ must not catch
// heads/gallivant-other.
func TestMatchingBranchesKeepsThePrefix(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/a")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := context.Background()
	base, _, _ := g.BranchHead(ctx, "acme/a", "main")
	for _, b := range []string{"gallivant/x", "gallivant-other", "gallivantx"} {
		if err := g.CreateBranch(ctx, "acme/a", b, base); err != nil {
			t.Fatal(err)
		}
	}
	got, err := g.MatchingBranches(ctx, "acme/a", workBranchPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"gallivant/x": base}, got); diff != "" {
		t.Errorf("MatchingBranches (-want +got):\n%s", diff)
	}
}

func sortedPaths(s *ghstandin.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Method+" "+r.Path)
	}
	// Prefetches run concurrently: their order is not the point.
	sort.Strings(out)
	return out
}

// pushCommit pushes one new commit onto branch, as an agent would, and
// returns it.
func pushCommit(t *testing.T, s *ghstandin.Server, repo, branch string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", branch, s.GitURLWithToken(repo, s.MainToken()), "w")
	w := filepath.Join(dir, "w")
	run(t, w, "git", "commit", "--quiet", "--allow-empty", "-m", "agent")
	run(t, w, "git", "push", "--quiet", "origin", "HEAD:refs/heads/"+branch)
	return strings.TrimSpace(run(t, w, "git", "rev-parse", "HEAD"))
}

// A pull request is read once per pass once its mergeability is known; a
// write to it makes the next read ask GitHub again.
func TestObserverReadsAPullRequestOncePerPass(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/a")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := context.Background()
	testserver.PushBranch(t, s, "acme/a", "gallivant/x", "x.txt")
	pr, err := g.CreatePullRequest(ctx, "acme/a", "gallivant/x", "main", "X", "")
	if err != nil {
		t.Fatal(err)
	}
	o := observe(g)
	s.ResetLog()
	reads := 0
	for got := (githubapi.PullRequest{}); got.Mergeable == nil && reads < 5; reads++ {
		if got, err = o.GetPullRequest(ctx, "acme/a", pr.Number); err != nil {
			t.Fatal(err)
		}
	}
	if c := s.Counts(); c.Total != reads {
		t.Fatalf("%d reads until mergeability was known made %d requests", reads, c.Total)
	}
	s.ResetLog()
	if _, err := o.GetPullRequest(ctx, "acme/a", pr.Number); err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Total != 0 {
		t.Errorf("a second read in the pass made %d requests, want 0", c.Total)
	}
	if err := o.AddLabel(ctx, "acme/a", pr.Number, "gallivant:ready"); err != nil {
		t.Fatal(err)
	}
	s.ResetLog()
	got, err := o.GetPullRequest(ctx, "acme/a", pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c.Total != 1 || !slices.Contains(got.Labels, "gallivant:ready") {
		t.Errorf("after a write: %d requests, labels %v; want one request that sees the label", c.Total, got.Labels)
	}
}
