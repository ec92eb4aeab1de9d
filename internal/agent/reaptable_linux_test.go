package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunTableVictims decides, on a made-up process table, which
// processes are left of an ended run: nothing is signalled.
func TestRunTableVictims(t *testing.T) {
	t.Parallel()
	const agentUID = 1000
	user := func(pid, ppid, sid int, start uint64) proc {
		return proc{pid: pid, ppid: ppid, sid: sid, ruid: agentUID, euid: agentUID, start: start}
	}
	root := func(pid, ppid, sid int) proc { return proc{pid: pid, ppid: ppid, sid: sid} }
	procs := []proc{
		root(1, 0, 1),
		root(90, 1, 90),    // gallivant's parent
		root(100, 90, 50),  // gallivant, in session 50
		root(101, 100, 50), // a helper of gallivant's own session
		root(200, 100, 200),
		root(201, 1, 200),   // the ended run's session, detached
		root(300, 100, 300), // an orphan in a session of its own
		root(400, 100, 400), // another agent, still running
		root(401, 400, 400),
		user(500, 1, 500, 5),   // new, the agent user's, under init
		user(501, 1, 501, 7),   // the agent user's before the run
		root(600, 1, 600),      // another reconciler
		user(502, 600, 502, 9), // the agent user's, under it
		user(503, 401, 503, 9), // the agent user's, under the running agent
	}
	for _, tc := range []struct {
		name  string
		scope runScope
		want  []int
	}{
		{"as gallivant", runScope{uid: -1}, []int{200, 201, 300}},
		{"run_as", runScope{uid: agentUID, before: map[procKey]bool{{501, 7}: true}}, []int{200, 201, 300, 500}},
	} {
		got := newRunTable(procs, []int{200, 400}, 200, 100, 50).victims(tc.scope)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("victims(%s) (-want +got):\n%s", tc.name, diff)
		}
	}
}
