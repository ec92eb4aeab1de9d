package githubapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v66/github"
)

// A GitHub that refuses GraphQL (a GitHub Enterprise Server that answers
// the endpoint 404, a token GraphQL does not accept, a server whose
// schema does not know a field the rollup query asks) would otherwise be
// asked every pass, one wasted request per repository with watched pull
// requests. The adapter remembers such a refusal, in the GitHub cache's
// state file too (which is per API URL and token, so per host), and
// PullRequestRollups does not ask again, answering ErrGraphQLRefused at
// once, until graphQLRefusedTTL has passed or the caller's key (the
// reconciler names its gallivant.yaml) changes; the caller then reads
// through REST, as on any GraphQL failure. Transient failures (5xx,
// timeouts, a dropped connection, rate limits, an execution error GitHub
// gives with no location, such as its timeout) and errors about one
// resource (a GraphQL error with a type: NOT_FOUND, FORBIDDEN) are not
// remembered: the next pass asks again.

// graphQLRefusedTTL bounds how long a refusal is believed: a server that
// starts accepting the query is used again within it.
const graphQLRefusedTTL = time.Hour

// ErrGraphQLRefused is PullRequestRollups' answer, with no request made,
// while a refusal of GraphQL is remembered.
var ErrGraphQLRefused = errors.New("GraphQL was refused here recently; not asked again yet")

// graphQLRefusal is a remembered refusal: when, under which of the
// caller's keys, and what was answered (quoted, bounded).
type graphQLRefusal struct {
	At  time.Time `json:"at"`
	Key string    `json:"key,omitempty"`
	Why string    `json:"why"`
}

// graphQLStillRefused returns the refusal remembered under key, if it is
// recent enough to be believed.
func (g *Client) graphQLStillRefused(key string) (graphQLRefusal, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.graphQLRefused
	if r == nil || r.Key != key {
		return graphQLRefusal{}, false
	}
	age := g.now().Sub(r.At)
	return *r, age >= 0 && age < graphQLRefusedTTL
}

// noteGraphQLAnswer remembers err when it is a refusal of GraphQL itself,
// and forgets a remembered refusal when the query was answered (err nil).
// Any other failure leaves what is remembered as it is.
func (g *Client) noteGraphQLAnswer(key string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err == nil:
		if g.graphQLRefused != nil {
			g.graphQLRefused = nil
			g.hiddenChanges++
		}
	case graphQLRefusedErr(err):
		g.graphQLRefused = &graphQLRefusal{At: g.now(), Key: key, Why: quoteBounded(err.Error())}
		g.hiddenChanges++
	}
}

// graphQLRefusedErr reports whether err says this GitHub will not answer
// the query at all: the endpoint refused (403 that is not a rate limit,
// 404, 410), or the answer's error is about the query (it carries a
// location or an extensions code, as a schema validation error does,
// and no type).
func graphQLRefusedErr(err error) bool {
	var ge *GraphQLError
	if errors.As(err, &ge) {
		return ge.Type == "" && ge.Query
	}
	var nf *NotFoundError
	if errors.As(err, &nf) || refused(err) {
		return true
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusGone
}

// refusedRollups is PullRequestRollups' error while r is remembered.
func refusedRollups(repo string, r graphQLRefusal) error {
	return fmt.Errorf("read the checks and comments of pull requests in %s: %w (since %s: %s)", repo, ErrGraphQLRefused, r.At.UTC().Format(time.RFC3339), r.Why)
}
