package agent

import (
	"os"
	"os/exec"
	"testing"
)

// readProc reads what /proc says of process pid, uids included.
func readProc(pid int) (proc, bool) {
	var r procReader
	return r.proc(pid, true)
}

// The sweep at the end of a run that is not run_as reads the stat of the
// processes and not their status (their uids, which only run_as needs);
// one for run_as reads both.
func TestEndRunWithoutRunAsReadsNoStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope runScope
		uids  bool
	}{
		{"as gallivant", runScope{uid: -1}, false},
		// A uid no process has: nothing is the agent user's.
		{"run_as", runScope{uid: 1 << 30, before: map[procKey]bool{}}, true},
	} {
		var r procReader
		// An unrelated session id stands for the agent's own, which has
		// ended.
		endRunReading(1<<30, tc.scope, &r)
		if r.stats == 0 {
			t.Fatalf("%s: the sweep read no stat file", tc.name)
		}
		// A process may end between its stat and its status.
		if tc.uids && (r.statuses == 0 || r.statuses > r.stats) {
			t.Errorf("%s: the sweep read %d status files for %d stat files, want about one for each", tc.name, r.statuses, r.stats)
		}
		if !tc.uids && r.statuses != 0 {
			t.Errorf("%s: the sweep read %d status files, want none", tc.name, r.statuses)
		}
	}
}

// processes reads the test's own process as the kernel has it, with its
// uids or without.
func TestProcessesReadsSelf(t *testing.T) {
	t.Parallel()
	sid, err := getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, withUIDs := range []bool{false, true} {
		var self *proc
		procs := processes(withUIDs)
		for i := range procs {
			if procs[i].pid == os.Getpid() {
				self = &procs[i]
			}
		}
		if self == nil {
			t.Fatalf("processes(%v) lists %d processes, not the test's own (pid %d)", withUIDs, len(procs), os.Getpid())
		}
		ruid, euid := -1, -1
		if withUIDs {
			ruid, euid = os.Getuid(), os.Geteuid()
		}
		want := proc{pid: os.Getpid(), ppid: os.Getppid(), sid: sid, ruid: ruid, euid: euid, start: self.start}
		if *self != want {
			t.Errorf("processes(%v) reads the test's process as %+v, want %+v", withUIDs, *self, want)
		}
		if self.start == 0 {
			t.Errorf("processes(%v) reads the test's process as started at boot", withUIDs)
		}
	}
}

// A file longer than the reader's buffer is read whole.
func TestProcReaderReadsPastItsBuffer(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("/proc/self/environ")
	if err != nil || len(want) < 16 {
		t.Skipf("no environment to read (%d bytes, %v)", len(want), err)
	}
	r := procReader{buf: make([]byte, 8)}
	got, ok := r.read(os.Getpid(), "environ")
	if !ok || string(got) != string(want) {
		t.Errorf("read environ = %d bytes, %v; want the %d bytes os.ReadFile reads", len(got), ok, len(want))
	}
	if _, ok := r.read(os.Getpid(), "no-such-file"); ok {
		t.Errorf("read of a file /proc does not have succeeded")
	}
}

// parseStat takes the fields after the last parenthesis, whatever the
// command name holds; parseUIDs the real and effective uid of the Uid
// line.
func TestParseStatAndUIDs(t *testing.T) {
	t.Parallel()
	tail := " S 7 8 9 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 200 18446744073709551615\n"
	for _, tc := range []struct {
		stat string
		want proc
		ok   bool
	}{
		{"42 (sh)" + tail, proc{pid: 42, ppid: 7, sid: 9, ruid: -1, euid: -1, start: 123456}, true},
		{"42 (a) b (c) 1 2)" + tail, proc{pid: 42, ppid: 7, sid: 9, ruid: -1, euid: -1, start: 123456}, true},
		{"42 (sh) S 7 8 9 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0\n", proc{}, false},
		{"42 sh S 7 8 9" + tail, proc{}, false},
	} {
		got, ok := parseStat(42, []byte(tc.stat))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tc.stat, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		status     string
		ruid, euid int
	}{
		{"Name:\tsh\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t0\t0\t0\nGid:\t5\t5\t5\t5\n", 1000, 0},
		{"Uid:\t3\t4\t5\t6\n", 3, 4},
		{"Name:\tUid:\\t7\\t7\nUid:\t65534\t65534\t65534\t65534", 65534, 65534},
		{"Name:\tsh\nGid:\t0\t0\t0\t0\n", -1, -1},
		{"Name:\tsh\nUid:\t12\n", -1, -1},
	} {
		if r, e := parseUIDs([]byte(tc.status)); r != tc.ruid || e != tc.euid {
			t.Errorf("parseUIDs(%q) = %d, %d; want %d, %d", tc.status, r, e, tc.ruid, tc.euid)
		}
	}
}

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
// killed). files/sweep counts the stat and status files read.
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
			files := 0
			b.ReportAllocs()
			for b.Loop() {
				var r procReader
				if n := endRunReading(1<<30, bc.scope, &r); n != 0 {
					b.Fatalf("endRun killed %d processes", n)
				}
				files += r.stats + r.statuses
			}
			b.ReportMetric(float64(files)/float64(b.N), "files/sweep")
		})
	}
}
