package githubapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// Issue 33: a GitHub that refuses GraphQL is asked once, and then not
// again for an hour (graphQLRefusedTTL) or until the caller's key
// changes, in this process and in the next one that starts from the
// state file; a transient failure or an error about one resource is
// asked again at the next call.
func TestGraphQLRefusalRemembered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fault    *ghstandin.Fault // nil: a missing pull request (GraphQL NOT_FOUND)
		remember bool
	}{
		{"endpoint 404", &ghstandin.Fault{Kind: ghstandin.FaultStatus, Status: 404}, true},
		{"endpoint 403", &ghstandin.Fault{Kind: ghstandin.FaultStatus, Status: 403}, true},
		{"endpoint 410", &ghstandin.Fault{Kind: ghstandin.FaultStatus, Status: 410}, true},
		{"bad gateway", &ghstandin.Fault{Kind: ghstandin.FaultStatus, Status: 502}, false},
		{"secondary rate limit", &ghstandin.Fault{Kind: ghstandin.FaultSecondary}, false},
		{"truncated answer", &ghstandin.Fault{Kind: ghstandin.FaultMalformed}, false},
		{"pull request not found", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := testserver.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
			s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, "acme/api")
			dir := t.TempDir()
			open := func() *Client {
				g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), StateDir: dir, Sleep: (&fakeSleep{}).sleep,
					Logger: testLogger(nil), Now: clock.Now, Timeout: 2 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			numbers := []int{99}
			if tc.fault != nil {
				f := *tc.fault
				f.Method, f.Path = "POST", `^/api/graphql$`
				defer s.InjectFault(f)()
				numbers = nil
			}
			g := open()
			asked := func(key string) int {
				t.Helper()
				before := s.Counts().GraphQL
				if _, err := g.PullRequestRollups(t.Context(), "acme/api", numbers, []string{"main"}, key); err == nil {
					t.Fatalf("the rollup query succeeded through the fault")
				}
				return s.Counts().GraphQL - before
			}
			if n := asked("k1"); n != 1 {
				t.Fatalf("the first call asked %d queries, want 1", n)
			}
			want := 1
			if tc.remember {
				want = 0
			}
			clock.Advance(30 * time.Minute)
			if n := asked("k1"); n != want {
				t.Errorf("30 minutes later, the same key: %d queries, want %d", n, want)
			}
			if err := g.SaveState(); err != nil {
				t.Fatal(err)
			}
			g = open() // the next process
			if n := asked("k1"); n != want {
				t.Errorf("a new process on the kept state: %d queries, want %d", n, want)
			}
			if tc.remember {
				if n := asked("k2"); n != 1 {
					t.Errorf("another key: %d queries, want 1", n)
				}
				clock.Advance(graphQLRefusedTTL)
				if n := asked("k2"); n != 1 {
					t.Errorf("after %v: %d queries, want 1", graphQLRefusedTTL, n)
				}
			}
		})
	}
}

// A query the server's schema does not accept (an older GitHub
// Enterprise Server without a field the query reads) is answered 200
// with a validation error carrying a location and an extensions code: a
// refusal, remembered. An execution error with neither (GitHub's
// timeout) is not.
func TestGraphQLQueryErrorRemembered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		remember   bool
	}{
		{"undefined field", `{"errors":[{"path":["query","repository","b0","rules"],"extensions":{"code":"undefinedField","typeName":"Ref","fieldName":"rules"},"locations":[{"line":3,"column":52}],"message":"Field 'rules' doesn't exist on type 'Ref'"}]}`, true},
		{"timeout", `{"data":null,"errors":[{"message":"Something went wrong while executing your query. This may be the result of a timeout."}]}`, false},
		{"not found", `{"data":{"repository":null},"errors":[{"type":"NOT_FOUND","path":["repository"],"locations":[{"line":2,"column":3}],"message":"Could not resolve to a Repository with the name 'acme/api'."}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var asked atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/graphql" {
					http.NotFound(w, r)
					return
				}
				asked.Add(1)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			g, err := New(Options{APIURL: srv.URL + "/api/v3/", Token: "t", Sleep: (&fakeSleep{}).sleep, Logger: testLogger(nil), Login: "gallivant"})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := g.PullRequestRollups(t.Context(), "acme/api", nil, []string{"main"}, "k"); err == nil {
					t.Fatal("the rollup query succeeded")
				}
			}
			want := int32(2)
			if tc.remember {
				want = 1
			}
			if got := asked.Load(); got != want {
				t.Errorf("two calls asked %d queries, want %d", got, want)
			}
		})
	}
}
