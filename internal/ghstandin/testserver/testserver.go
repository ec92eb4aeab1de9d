// Package testserver runs the GitHub stand-in for a Go test. It is apart
// from package ghstandin so that the gallivant binary, which links the
// stand-in for `gallivant sandbox` and `gallivant demo`, does not link the
// testing package.
package testserver

import (
	"net/http/httptest"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Start runs a server for a test on an httptest listener with the given
// repositories (each with a main branch holding one commit) and closes it
// when the test ends.
func Start(tb testing.TB, repos ...string) *ghstandin.Server {
	tb.Helper()
	return StartWith(tb, ghstandin.Options{}, repos...)
}

// StartWith is Start with options; an empty Dir becomes a test temporary
// directory. Tests that inject a clock into the reconciler pass the same
// clock here, so that GitHub's timestamps and the pass's now agree.
func StartWith(tb testing.TB, opts ghstandin.Options, repos ...string) *ghstandin.Server {
	tb.Helper()
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	s, err := ghstandin.New(opts)
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
