package reconcile

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
)

// Issue 33: two shard passes seeding 20 specs in 4 repositories at once,
// each with its own cache, push to one control repository and race: the
// loser of a push re-plans. Each still reads a repository's base branch
// once, and the two together make one request per new spec (its work
// branch's creation), two per repository each (the base head and the
// work-branch list) and, for the re-plan, one more work-branch list per
// repository.
func TestShardedFirstPassReadsBaseOnce(t *testing.T) {
	t.Parallel()
	files, repos := manySpecs(20, 4)
	r := newRig(t, files, repos...)
	var recs []*Reconciler
	for i := 1; i <= 2; i++ {
		cache := t.TempDir()
		recs = append(recs, r.reconciler(func(o *Options) {
			o.Executor = agent.NoneExecutor{}
			o.Log = quiet
			o.Shard = Shard{Index: i, Count: 2}
			st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: cache})
			if err != nil {
				t.Fatal(err)
			}
			o.Store = st
		}))
	}
	r.gh.ResetLog()
	var wg sync.WaitGroup
	reps := make([]*Report, 2)
	errs := make([]error, 2)
	for i, rec := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = rec.Pass(context.Background())
		}()
	}
	wg.Wait()
	transitions := 0
	for i := range recs {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i+1, errs[i])
		}
		transitions += len(reps[i].Transitions)
	}
	if transitions != 40 {
		t.Fatalf("the two shards made %d transitions; want 40 (a seed dispatch per spec, and its record)", transitions)
	}
	bases := map[string]int{}
	for _, q := range r.gh.Requests() {
		if q.Method == "GET" && strings.HasSuffix(q.Path, "/git/ref/heads/main") {
			bases[q.Path]++
		}
	}
	for _, repo := range repos {
		if n := bases["/repos/"+repo+"/git/ref/heads/main"]; n > 2 {
			t.Errorf("%s: its base read %d times by two passes; want at most once each", repo, n)
		}
	}
	// A re-plan reads each repository's work branches once more: a
	// branch the lost attempt created is trusted only where GitHub still
	// has it.
	if c, most := r.gh.Counts(), 20+2*2*len(repos)+len(repos); c.Total > most {
		t.Errorf("the two first passes made %d requests; want at most %d (one per new spec, two per repository and pass, one per repository for a re-plan)", c.Total, most)
	}
}
