package ghstandin_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

func httptestServer(t *testing.T, s *ghstandin.Server) string {
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	s.SetURL(ts.URL)
	return ts.URL
}
