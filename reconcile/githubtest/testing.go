package githubtest

import (
	"net/http/httptest"
	"testing"
)

// Start runs a server for a test on an httptest listener with the given
// repositories (each with a main branch holding one commit) and closes it
// when the test ends.
func Start(tb testing.TB, repos ...string) *Server {
	tb.Helper()
	s, err := New(Options{Dir: tb.TempDir()})
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
