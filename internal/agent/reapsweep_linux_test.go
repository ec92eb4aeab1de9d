package agent

import (
	"os/exec"
	"testing"
)

// busyHost starts n idle processes in the test's own session (which
// endRun never touches), so that a sweep reads a process table of a busy
// host, and ends them when the benchmark ends.
func busyHost(b *testing.B, n int) {
	b.Helper()
	cmds := make([]*exec.Cmd, 0, n)
	b.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	for i := 0; i < n; i++ {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, c)
	}
}

// BenchmarkEndRunSweep is the end of a run on a host of some 500
// processes: one round of endRun that finds nothing left, as gallivant
// (no run_as) and for run_as (a uid no process has, so that nothing is
// killed).
func BenchmarkEndRunSweep(b *testing.B) {
	busyHost(b, 400)
	for _, bc := range []struct {
		name  string
		scope runScope
	}{
		{"as-gallivant", runScope{uid: -1}},
		{"run_as", runScope{uid: 1 << 30, before: map[procKey]bool{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// Before: every sweep reads stat and status of every process.
			files := 2 * len(processes())
			b.ReportAllocs()
			for b.Loop() {
				if n := endRun(1<<30, bc.scope); n != 0 {
					b.Fatalf("endRun killed %d processes", n)
				}
			}
			b.ReportMetric(float64(files), "files/sweep")
		})
	}
}
