package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
)

// Issue 33: the first pass read back every work branch it had just
// created (POST git/refs, then GET git/ref). It now costs, per repository,
// the base head and the work-branch list, and per new spec the one write.
func TestFirstPassDoesNotReadBackCreatedBranches(t *testing.T) {
	t.Parallel()
	files, repos := manySpecs(6, 2)
	r := newRig(t, files, repos...)
	rec := r.reconciler(func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet })
	r.gh.ResetLog()
	rep, err := rec.Pass(context.Background())
	if err != nil || len(rep.Transitions) != 12 {
		t.Fatalf("first pass: %v, %d transitions", err, len(rep.Transitions))
	}
	var creates int
	for _, q := range r.gh.Requests() {
		switch {
		case q.Method == "POST" && strings.HasSuffix(q.Path, "/git/refs"):
			creates++
		case q.Method == "GET" && strings.Contains(q.Path, "/git/ref/heads/gallivant/"):
			t.Errorf("read back a work branch the pass created: %s %s", q.Method, q.Path)
		}
	}
	if creates != 6 {
		t.Errorf("created %d work branches; want 6", creates)
	}
	if c := r.gh.Counts(); c.Total != 6+2*len(repos) {
		t.Errorf("the first pass made %d requests; want %d (one per new spec, two per repository)", c.Total, 6+2*len(repos))
	}
	// The next pass sees the branches as GitHub has them.
	if rep, err := rec.Pass(context.Background()); err != nil || len(rep.Transitions) != 0 {
		t.Errorf("second pass: %v, %d transitions; want an idle pass", err, len(rep.Transitions))
	}
}
