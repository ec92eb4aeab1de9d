package githubtest

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v66/github"
)

// Start runs a server for a test on an httptest listener with the given
// repositories (each with a main branch holding one commit) and closes it
// when the test ends.
func Start(tb testing.TB, repos ...string) *Server {
	tb.Helper()
	return StartWith(tb, Options{}, repos...)
}

// StartWith is Start with options; an empty Dir becomes a test temporary
// directory. Tests that inject a clock into the reconciler pass the same
// clock here, so that GitHub's timestamps and the pass's now agree.
func StartWith(tb testing.TB, opts Options, repos ...string) *Server {
	tb.Helper()
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	s, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	tb.Cleanup(ts.Close)
	s.SetURL(ts.URL)
	for _, r := range repos {
		if err := s.CreateRepo(r, "main"); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// Client returns the real go-github client acting as login, the way a
// person or CI reaches this server: tests, the demo and scripts drive
// reviews, statuses and merges through it.
func (s *Server) Client(login string) *github.Client {
	c, err := github.NewClient(nil).WithAuthToken(s.Token(login)).WithEnterpriseURLs(s.APIURL(), s.APIURL())
	if err != nil {
		// APIURL is always a well-formed absolute URL.
		panic(err)
	}
	return c
}
