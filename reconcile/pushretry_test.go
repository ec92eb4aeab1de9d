package reconcile

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// gitProxy stands between the executor and the stand-in's git server and
// drops the connection of the next receive-pack requests while armed, as
// a network failure mid-push does.
type gitProxy struct {
	*httptest.Server
	drop atomic.Int32 // receive-pack requests still to drop
	// dropped counts the pushes it dropped.
	dropped atomic.Int32
}

func newGitProxy(t *testing.T, upstream string) *gitProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &gitProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/git-receive-pack") && p.drop.Add(-1) >= 0 {
			p.dropped.Add(1)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// cloneURL is the proxy's URL for a repository.
func (p *gitProxy) cloneURL(repo string) string { return p.URL + "/" + repo + ".git" }

// Issue 33: a work-branch push that fails on the network does not run
// the attempt twice. The commit is kept, the entry waits (no stop for a
// person), and the next pass pushes the kept commit and admits it without
// starting the agent again.
func TestFailedWorkBranchPushIsPushedByTheNextPass(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	proxy := newGitProxy(t, r.gh.URL())
	prev := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := prev(ctx, dir, task)
		if task.Pending.Target == 1 && proxy.dropped.Load() == 0 {
			// The agent has committed; the network fails its push (curl
			// retries a dropped connection once, so more than one).
			proxy.drop.Store(1 << 20)
		}
		return err
	}
	through := func(o *Options) { o.CloneURL = proxy.cloneURL }

	first := r.pass(through)
	if proxy.dropped.Load() == 0 {
		t.Fatal("no push was dropped: the test proves nothing")
	}
	if got := subjectsOf(first); slices.ContainsFunc(got, func(s string) bool {
		return strings.HasPrefix(s, "loop: stop") || strings.HasPrefix(s, "loop: record home row 1")
	}) {
		t.Errorf("the failed push was settled in its own pass: %v", got)
	}
	reported := func(rep *Report) {
		t.Helper()
		for _, n := range rep.Notes {
			if n.Spec == "specs/feature.md" && n.Problem && strings.Contains(n.Message, "the return of row 1 on home could not be pushed") &&
				strings.Contains(n.Message, "kept on refs/gallivant/recovery/gallivant/feature/") {
				return
			}
		}
		t.Errorf("the failed push is not reported as a problem naming its kept commit: %+v", rep.Notes)
	}
	reported(first)
	if l := r.ledger(ledgerPath); l.Pending == nil || l.Pending.Target != 1 {
		t.Fatalf("row 1's dispatch is no longer outstanding: %+v", l.Pending)
	}

	// Still down: the next pass tries again, settles nothing and keeps
	// the one recovery ref.
	again := r.pass(through)
	if got := subjectsOf(again); len(got) != 0 {
		t.Errorf("a pass with the push still failing made transitions %v", got)
	}
	reported(again)
	mirror := filepath.Join(r.work, "mirrors", "acme__api", "feature.git")
	if refs := run(t, mirror, "git", "for-each-ref", "--format=%(refname)", "refs/gallivant/recovery/"); strings.Count(refs, "\n") != 0 || refs == "" {
		t.Errorf("recovery refs after two failed pushes:\n%s\nwant one", refs)
	}
	proxy.drop.Store(0) // the network is back

	second := r.pass(through)
	if got := subjectsOf(second); len(got) == 0 || got[0] != "loop: record home row 1" {
		t.Errorf("the next pass's transitions are %v, want row 1's kept commit admitted first", got)
	}
	rows := 0
	for _, task := range r.runs {
		if task.Pending.Target == 1 {
			rows++
		}
	}
	if rows != 1 {
		t.Errorf("row 1's agent ran %d times, want once", rows)
	}
	gh, err := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken()})
	if err != nil {
		t.Fatal(err)
	}
	head, ok, err := gh.BranchHead(t.Context(), "acme/api", "gallivant/feature")
	if err != nil || !ok {
		t.Fatalf("work branch: %v %v", ok, err)
	}
	if kept := run(t, mirror, "git", "for-each-ref", "--format=%(objectname)", "refs/gallivant/recovery/"); kept != head {
		t.Errorf("the work branch is at %s, want the kept commit %s", short(head), short(kept))
	}
	if l := r.ledger(ledgerPath); l.Rows[0].Status != "done" {
		t.Errorf("row 1 is %s after the kept commit %s was pushed, want done", l.Rows[0].Status, short(head))
	}
}
