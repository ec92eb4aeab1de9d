package reconcile

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// transitionSpecs is a control repository of n specs whose ledgers are all
// in plans/: n-busy paused ones (a pass neither reads GitHub for them nor
// writes them, like Flux's suspend) and busy active ones without a ledger,
// each of which a pass seeds and dispatches (two transitions).
func transitionSpecs(n, busy int) map[string]string {
	files := map[string]string{"gallivant.yaml": "defaults:\n  repo: acme/r0\nexecutor:\n  kind: none\n  timeout: 10h\n"}
	for i := 0; i < n; i++ {
		status := "active"
		if i >= busy {
			status = "paused"
			files[fmt.Sprintf("plans/s%04d-ledger.md", i)] = fmt.Sprintf(pausedLedger, i)
		}
		files[fmt.Sprintf("specs/s%04d.md", i)] = fmt.Sprintf("---\nrepo: acme/r0\nstatus: %s\n---\n# Spec %d\n\n## Acceptance criteria\n1. Endpoint %d answers.\n\n## Verify\n- `go test ./...`\n", status, i, i)
	}
	return files
}

// pausedLedger is a ledger as a first pass leaves it, for spec %04d.
const pausedLedger = "# Ledger - loop engine\n**Spec:** `specs/s%04d.md`\nbase: a82e7bc8363191ca09262dce747b5a86b1390efb\n" +
	"verification: go test ./...\nchecks: commands\niterations: 1\nallowance: 4\n" +
	"pending: seed | home | a82e7bc8363191ca09262dce747b5a86b1390efb\n\n" +
	"| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | |\n\n## Decisions\n\n" +
	"## Delivery\nspec-commit: f6b4ac25d218a04be9c263832d44cd7d6b3467b1\ncontract: 1bc37b12abf9\n" +
	"phase: implement\ndispatched-at: 2026-11-29T10:00:00Z\n\n## Requests\n"

// passCost is what one pass took, or a sum of differences between passes.
type passCost struct {
	ns, bytes, allocs, transitions float64
}

// add adds what pass a took beyond pass b.
func (c *passCost) add(a, b passCost) {
	c.ns += a.ns - b.ns
	c.bytes += a.bytes - b.bytes
	c.allocs += a.allocs - b.allocs
	c.transitions += a.transitions - b.transitions
}

func measurePass(b *testing.B, rec *Reconciler) passCost {
	b.Helper()
	// No collection during the pass: a collection empties the sync.Pools
	// that go-git and the standard library reuse buffers from, which
	// made the allocation of two passes differ by more than the
	// transitions between them.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	rep, err := rec.Pass(context.Background())
	ns := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatal(err)
	}
	return passCost{ns: float64(ns.Nanoseconds()), bytes: float64(after.TotalAlloc - before.TotalAlloc), allocs: float64(after.Mallocs - before.Mallocs), transitions: float64(len(rep.Transitions))}
}

// BenchmarkTransition measures the cost of one transition in a pass over
// a control repository of 50 to 2,000 specs. The marginal cost
// (ns/transition, B/transition, allocs/transition) is what 20 more due
// specs add: a pass that seeds and dispatches 25 specs (50 transitions)
// minus one that seeds and dispatches 5 (10 transitions), over the 40
// transitions between them. The pass share (pass-ns/transition and
// pass-B/transition) is the 50-transition pass minus an idle pass over the
// same repository, divided by 50: it adds what a pass spends once when it
// commits at all (writing and sending its pack, the tamper walk). Issue
// 15's goal is a transition's cost (time and allocation) within 1.5× from
// 50 to 2,000 specs. The GitHub stand-in runs in this process, so its
// share of a transition is in the figures; it does not depend on the
// number of specs.
func BenchmarkTransition(b *testing.B) {
	const busy, few = 25, 5
	for _, n := range []int{50, 200, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("specs=%d", n), func(b *testing.B) {
			r := newRig(b, transitionSpecs(n, busy), "acme/r0")
			// Three control heads over the same n specs: 25 due, 5 due,
			// none due (the rest paused).
			heads := map[int]string{busy: run(b, r.control, "git", "rev-parse", "main")}
			pause := func(from, to int) string {
				for i := from; i < to; i++ {
					r.edit(fmt.Sprintf("specs/s%04d.md", i), func(s string) string { return strings.Replace(s, "status: active", "status: paused", 1) })
				}
				return run(b, r.control, "git", "rev-parse", "main")
			}
			heads[few] = pause(few, busy)
			heads[0] = pause(0, few)
			// One reconciler for every pass, as a daemon runs them: its
			// object cache holds the trees of the three heads, which
			// the fetched pack stores as delta chains of different
			// lengths; a new process would pay a different price to
			// read each head, which is not the transitions' cost.
			rec := r.reconciler(func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet })
			var marginal, share passCost
			for b.Loop() {
				costs := map[int]passCost{}
				for _, due := range []int{0, few, busy} {
					b.StopTimer()
					// An hour apart: the stand-in's rate limit is per hour.
					r.clock.Advance(time.Hour)
					run(b, r.control, "git", "update-ref", "refs/heads/main", heads[due])
					b.StartTimer()
					c := measurePass(b, rec)
					if c.transitions != float64(2*due) {
						b.Fatalf("a pass with %d specs due made %v transitions, want %d", due, c.transitions, 2*due)
					}
					costs[due] = c
				}
				marginal.add(costs[busy], costs[few])
				share.add(costs[busy], costs[0])
			}
			b.ReportMetric(marginal.ns/marginal.transitions, "ns/transition")
			b.ReportMetric(marginal.bytes/marginal.transitions, "B/transition")
			b.ReportMetric(marginal.allocs/marginal.transitions, "allocs/transition")
			b.ReportMetric(share.ns/share.transitions, "pass-ns/transition")
			b.ReportMetric(share.bytes/share.transitions, "pass-B/transition")
		})
	}
}
