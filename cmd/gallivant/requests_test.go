package main

import (
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/githubapi"
)

// The pass's request line names GraphQL queries apart when there were
// any: they are never 304 and GraphQL's own budget pays for them, so
// "charged" (the REST budget) does not count them (docs/reconcile.md).
func TestRequestsLine(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		s    githubapi.RequestStats
		want string
	}{
		{githubapi.RequestStats{Requests: 12, NotModified: 10, RateLimited: 2, Remaining: 4988, Limit: 5000, Reset: reset},
			"github: 12 requests, 10 answered 304, 2 charged; 4988 of 5000 left until 2026-11-30T17:00:00Z"},
		{githubapi.RequestStats{Requests: 8, NotModified: 4, GraphQL: 4, Remaining: -1, Limit: -1},
			"github: 8 requests, 4 answered 304, 0 charged, 4 GraphQL"},
		{githubapi.RequestStats{Requests: 1, Remaining: -1, Limit: -1}, "github: 1 request, 0 answered 304, 0 charged"},
	} {
		if got := requestsLine(&tc.s); got != tc.want {
			t.Errorf("requestsLine(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
