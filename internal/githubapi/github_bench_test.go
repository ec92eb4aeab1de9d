package githubapi

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-github/v66/github"
)

// BenchmarkDiscoveryUnchanged measures a discovery pass over 20 repositories
// with 50 pull requests each when nothing changed since the previous pass.
func BenchmarkDiscoveryUnchanged(b *testing.B) {
	var repos []string
	for i := 0; i < 20; i++ {
		repos = append(repos, fmt.Sprintf("acme/svc%02d", i))
	}
	s := testserver.Start(b, repos...)
	raw := s.Client("dev")
	for _, repo := range repos {
		dir := b.TempDir()
		testserver.Git(b, dir, "clone", "--quiet", s.GitURLWithToken(repo, s.MainToken()), "w")
		w := filepath.Join(dir, "w")
		os.WriteFile(filepath.Join(w, "change.txt"), []byte("x\n"), 0o644)
		testserver.Git(b, w, "add", "-A")
		testserver.Git(b, w, "commit", "--quiet", "-m", "change")
		args := []string{"push", "--quiet", "origin"}
		for j := 0; j < 50; j++ {
			args = append(args, fmt.Sprintf("HEAD:refs/heads/b%02d", j))
		}
		testserver.Git(b, w, args...)
		owner, name := splitRepo(repo)
		for j := 0; j < 50; j++ {
			if _, _, err := raw.PullRequests.Create(b.Context(), owner, name, &github.NewPullRequest{Title: github.String("pr"), Head: github.String(fmt.Sprintf("b%02d", j)), Base: github.String("main")}); err != nil {
				b.Fatal(err)
			}
		}
	}
	g, _ := adapter(b, s, ghstandin.DefaultLogin, nil)
	pass := func() {
		for _, repo := range repos {
			prs, err := g.DiscoverPullRequests(b.Context(), repo)
			if err != nil || len(prs) != 50 {
				b.Fatalf("%s: %d pull requests, %v", repo, len(prs), err)
			}
		}
	}
	s.ResetLog()
	pass()
	first := s.Counts()
	s.ResetLog()
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	c := s.Counts()
	b.ReportMetric(float64(first.Counted), "ratelimited/firstpass")
	b.ReportMetric(float64(c.Counted)/float64(b.N), "ratelimited/pass")
	b.ReportMetric(float64(c.Total)/float64(b.N), "requests/pass")
}
