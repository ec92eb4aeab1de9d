package githubapi

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// connCounter counts the connections a server accepted.
type connCounter struct {
	mu  sync.Mutex
	new int
}

func (c *connCounter) state(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.mu.Lock()
		c.new++
		c.mu.Unlock()
	}
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.new
}

// TestConnectionsReused pins that the adapter reads every answer's body
// before it is done with it, writes' 201s included, so that one keep-alive
// connection carries a sequence of requests: a body left unread makes
// net/http close the connection, and the next request dials again.
func TestConnectionsReused(t *testing.T) {
	t.Parallel()
	s, err := ghstandin.New(ghstandin.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var conns connCounter
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ConnState = conns.state
	ts.Start()
	t.Cleanup(ts.Close)
	s.SetURL(ts.URL)
	if err := s.CreateRepo("acme/api", "main"); err != nil {
		t.Fatal(err)
	}
	head := testserver.PushBranch(t, s, "acme/api", "feature", "a.txt")
	// A transport of the test's own, so that no other test's connections
	// are counted or reused.
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), Transport: tr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	before := conns.count() // git's, pushing the branch
	main, ok, err := g.BranchHead(ctx, "acme/api", "main")
	if err != nil || !ok {
		t.Fatalf("BranchHead(main) = %q %v %v", main, ok, err)
	}
	// 201 Created, then 422 for the same branch again (answered by a read).
	for _, name := range []string{"gallivant/a", "gallivant/b", "gallivant/a"} {
		if err := g.CreateBranch(ctx, "acme/api", name, main); err != nil {
			t.Fatalf("CreateBranch(%s): %v", name, err)
		}
	}
	pr, err := g.CreatePullRequest(ctx, "acme/api", "feature", "main", "Feature", "body")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := g.EnsureComment(ctx, "acme/api", pr.Number, Marker("k"), "hello "+Marker("k")); err != nil {
			t.Fatal(err)
		}
		if err := g.AddLabel(ctx, "acme/api", pr.Number, "gallivant:ready"); err != nil {
			t.Fatal(err)
		}
		if _, err := g.GetChecks(ctx, "acme/api", head, "main"); err != nil {
			t.Fatal(err)
		}
	}
	// A 404 (a missing branch) and a 304 (the same read again).
	for range 2 {
		if _, ok, err := g.BranchHead(ctx, "acme/api", "gone"); ok || err != nil {
			t.Fatalf("BranchHead(gone) = %v %v", ok, err)
		}
	}
	st := g.Requests()
	if st.Requests < 15 {
		t.Fatalf("made %d requests; the test wants a long sequence", st.Requests)
	}
	if got := conns.count() - before; got != 1 {
		t.Errorf("%d requests in sequence opened %d connections; want 1", st.Requests, got)
	}
}
