package main

import (
	"fmt"
	"time"

	"github.com/gallivant/gallivant/internal/githubapi"
)

// requestsLine says what a pass asked GitHub: requests sent, answered 304
// (free), charged against the rate limit, GraphQL queries among them
// when there were any (never 304, paid from GraphQL's own budget), and
// the budget GitHub last reported. "" when the pass did not count.
func requestsLine(s *githubapi.RequestStats) string {
	if s == nil {
		return ""
	}
	line := fmt.Sprintf("github: %s, %d answered 304, %d charged", plural(s.Requests, "request", "requests"), s.NotModified, s.RateLimited)
	if s.GraphQL > 0 {
		line += fmt.Sprintf(", %d GraphQL", s.GraphQL)
	}
	if s.Remaining >= 0 && s.Limit > 0 {
		line += fmt.Sprintf("; %d of %d left", s.Remaining, s.Limit)
		if !s.Reset.IsZero() {
			line += " until " + s.Reset.UTC().Format(time.RFC3339)
		}
	}
	return line
}

// requestsAttrs are requestsLine's numbers as log attributes, for
// --log-format json.
func requestsAttrs(s *githubapi.RequestStats) []any {
	out := []any{"requests", s.Requests, "not_modified", s.NotModified, "charged", s.RateLimited, "graphql", s.GraphQL}
	if s.Remaining >= 0 && s.Limit > 0 {
		out = append(out, "remaining", s.Remaining, "limit", s.Limit)
		if !s.Reset.IsZero() {
			out = append(out, "reset", s.Reset.UTC().Format(time.RFC3339))
		}
	}
	return out
}
