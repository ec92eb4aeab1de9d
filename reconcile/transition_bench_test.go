package reconcile

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
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

// passCost is what one pass took.
type passCost struct {
	ns, bytes, allocs uint64
	transitions       int
}

func measurePass(b *testing.B, rec *Reconciler) passCost {
	b.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	rep, err := rec.Pass(context.Background())
	ns := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatal(err)
	}
	return passCost{ns: uint64(ns.Nanoseconds()), bytes: after.TotalAlloc - before.TotalAlloc, allocs: after.Mallocs - before.Mallocs, transitions: len(rep.Transitions)}
}

// BenchmarkTransition measures the marginal cost of one transition in a
// pass over a control repository of 50 to 2,000 specs: a pass that seeds
// and dispatches 25 specs (50 transitions) minus the idle pass that
// follows it, divided by the transitions. Issue 15's goal is a cost (time
// and allocation) within 1.5× from 50 to 2,000 specs. The GitHub stand-in
// runs in this process, so its share of a transition is in the figures;
// it does not depend on the number of specs.
func BenchmarkTransition(b *testing.B) {
	const busy = 25
	for _, n := range []int{50, 200, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("specs=%d", n), func(b *testing.B) {
			r := newRig(b, transitionSpecs(n, busy), "acme/r0")
			saved := run(b, r.control, "git", "rev-parse", "main")
			none := func(o *Options) { o.Executor = NoneExecutor{}; o.Log = quiet }
			var ns, bytes, allocs float64
			var transitions int
			for b.Loop() {
				b.StopTimer()
				run(b, r.control, "git", "update-ref", "refs/heads/main", saved)
				// An hour apart: the stand-in's rate limit is per hour.
				r.clock.advance(time.Hour)
				busyRec, idleRec := r.reconciler(none), r.reconciler(none)
				b.StartTimer()
				full := measurePass(b, busyRec)
				idle := measurePass(b, idleRec)
				if full.transitions != 2*busy || idle.transitions != 0 {
					b.Fatalf("a busy pass made %d transitions (want %d), the idle pass after it %d (want 0)", full.transitions, 2*busy, idle.transitions)
				}
				ns += float64(full.ns) - float64(idle.ns)
				bytes += float64(full.bytes) - float64(idle.bytes)
				allocs += float64(full.allocs) - float64(idle.allocs)
				transitions += full.transitions
			}
			b.ReportMetric(ns/float64(transitions), "ns/transition")
			b.ReportMetric(bytes/float64(transitions), "B/transition")
			b.ReportMetric(allocs/float64(transitions), "allocs/transition")
		})
	}
}
