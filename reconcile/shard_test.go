package reconcile

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true},
		{"2/3", Shard{2, 3}, true},
		{"0/3", Shard{}, false},
		{"4/3", Shard{}, false},
		{"1/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"", Shard{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseShard(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

// Every key falls in exactly one shard, and the assignment never changes
// (a stable hash: shards of different versions and machines agree).
func TestShardsPartition(t *testing.T) {
	t.Parallel()
	counts := make([]int, 3)
	for i := 0; i < 300; i++ {
		key := fmt.Sprintf("specs/s%03d.md", i)
		owners := 0
		for s := 1; s <= 3; s++ {
			if (Shard{s, 3}).Owns(key) {
				owners++
				counts[s-1]++
			}
		}
		if owners != 1 {
			t.Fatalf("%s is in %d shards", key, owners)
		}
	}
	for s, n := range counts {
		if n < 60 {
			t.Errorf("shard %d/3 holds %d of 300 keys", s+1, n)
		}
	}
	// Pinned: a change of hash would move entries between shards of
	// reconcilers running different versions.
	for key, shard := range map[string]int{"specs/feature.md": 3, "specs/api.md": 3, "specs/c1.md": 1} {
		if !(Shard{shard, 3}).Owns(key) {
			t.Errorf("%s moved out of shard %d/3: the hash is not stable", key, shard)
		}
	}
}

// shardFiles are twelve specs over three repositories and a chain of three
// milestones.
func shardFiles() (map[string]string, []string) {
	files := map[string]string{"gallivant.yaml": "defaults:\n  repo: acme/r0\nexecutor:\n  kind: none\n  timeout: 10h\n",
		"chains/launch.md": "---\nstatus: active\n---\n# Launch\n\n## Milestones\n1. `specs/c1.md`\n2. specs/c2.md\n3. specs/c3.md\n"}
	repos := []string{"acme/r0", "acme/r1", "acme/r2"}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("specs/s%02d.md", i)] = fmt.Sprintf("---\nrepo: acme/r%d\n---\n# Spec %d\n\n## Acceptance criteria\n1. Endpoint %d answers.\n", i%3, i, i)
	}
	for i := 1; i <= 3; i++ {
		files[fmt.Sprintf("specs/c%d.md", i)] = fmt.Sprintf("# Milestone %d\n\n## Acceptance criteria\n1. Step %d works.\n", i, i)
	}
	return files, repos
}

// endState is what a control branch says of every entry, without the
// commit ids and times that differ between runs.
func endState(t *testing.T, r *rig) []string {
	t.Helper()
	var out []string
	for _, p := range strings.Fields(run(t, r.control, "git", "ls-tree", "-r", "--name-only", "main", "plans/")) {
		l := r.ledger(p)
		s := fmt.Sprintf("%s phase=%s iterations=%d", p, l.Phase(), l.Iterations)
		if l.Pending != nil {
			s += fmt.Sprintf(" pending=%s/%s", l.Pending.TargetString(), l.Pending.Member)
		}
		if reason, _, stopped := l.Stop(); stopped {
			s += " stop=" + string(reason)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Two shards run in parallel against one control repository (their
// pushes race and re-plan) and reach the state one unsharded pass reaches;
// a chain stays in one shard, so its milestones keep their order.
func TestShardsInParallelReachTheUnshardedState(t *testing.T) {
	t.Parallel()
	none := func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet }
	files, repos := shardFiles()
	whole := newRig(t, files, repos...)
	whole.pass(none)
	want := endState(t, whole)
	if len(want) != 13 {
		t.Fatalf("the unsharded pass left %d ledgers, want 13 (12 specs and the chain's first milestone): %v", len(want), want)
	}

	files, repos = shardFiles()
	sharded := newRig(t, files, repos...)
	// Each shard is its own process with its own cache, as the jobs of a
	// GitHub Actions matrix are.
	first := sharded.reconciler(none)
	sharded.cache = t.TempDir()
	recs := []*Reconciler{first, sharded.reconciler(none)}
	var wg sync.WaitGroup
	reps := make([]*Report, 2)
	errs := make([]error, 2)
	for i, rec := range recs {
		rec.SetShard(Shard{Index: i + 1, Count: 2})
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = rec.Pass(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d/2: %v", i+1, err)
		}
		if len(reps[i].Transitions) == 0 {
			t.Errorf("shard %d/2 performed nothing: the test does not exercise two shards", i+1)
		}
	}
	if diff := cmp.Diff(want, endState(t, sharded)); diff != "" {
		t.Errorf("end state of two shards (-unsharded +sharded):\n%s", diff)
	}
	if a, b := len(whole.subjects()), len(sharded.subjects()); a != b {
		t.Errorf("the shards made %d commits, one pass %d", b, a)
	}
	// A second round of shards finds nothing due, as a second unsharded
	// pass would.
	for i, rec := range recs {
		rep, err := rec.Pass(context.Background())
		if err != nil || len(rep.Transitions) != 0 {
			t.Errorf("shard %d/2 again: %v, %v", i+1, err, subjectsOf(rep))
		}
	}
}
