package githubtest_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gallivant/gallivant/internal/githubtest"
)

func httptestServer(t *testing.T, s *githubtest.Server) string {
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	s.SetURL(ts.URL)
	return ts.URL
}
