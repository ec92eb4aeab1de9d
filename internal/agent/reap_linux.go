package agent

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The run is over when it is over: before gallivant reads the checkout
// again, every process the agent started has ended, whatever it did with
// sessions or process groups.
//
// Two mechanisms:
//
//   - The agent leads a session of its own, and gallivant is a child
//     subreaper (PR_SET_CHILD_SUBREAPER): a process of the agent's that
//     detaches (a double fork, setsid) is reparented to gallivant, not to
//     init. When a run ends, every process of the agent's session, and
//     every child of gallivant in a session that is neither gallivant's
//     nor a running agent's, is killed, until none is left.
//   - For executor.run_as, every process of the agent's uid that did not
//     exist when the run began, does not descend from another running
//     agent, and has only processes of that uid between it and gallivant
//     or init is killed: a process of that user under another reconciler
//     (another root process) is that reconciler's.
//
// A PID namespace would be stronger, but the agent would see itself as
// pid 1: an agent (or a test) that reports $$ and is later killed by that
// number would have kill(-1) end every process of the machine.

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

var subreaperOnce sync.Once

// becomeSubreaper makes gallivant the reaper of its orphaned descendants,
// once per process.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// agentSysProcAttr is the process attributes of an agent's process: its
// own session (and so process group) and the agent's user. No PID
// namespace: an agent that reports its own pid ($$) must see the pid the
// rest of the machine sees.
func agentSysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	becomeSubreaper()
	return &syscall.SysProcAttr{Setsid: true, Credential: cred}
}

// live holds the sessions of the agent processes running now (an agent's
// process leads its own session): their descendants are not another
// run's leftovers.
var live = struct {
	sync.Mutex
	sids map[int]int
}{sids: map[int]int{}}

// spawning is held (read) from an agent process's start until it is
// tracked, and (write) by each round of endRun: a process that has just
// started is never taken for a leftover.
var spawning sync.RWMutex

// runScope is what endRun needs of a run: the processes of the agent's
// user that existed when it began, for executor.run_as.
type runScope struct {
	uid    int // -1 when the agent runs as gallivant
	before map[procKey]bool
}

type procKey struct {
	pid   int
	start uint64
}

// beginRun records the processes of the agent's user before its run.
func beginRun(cred *syscall.Credential) runScope {
	s := runScope{uid: -1}
	if cred == nil {
		return s
	}
	s.uid = int(cred.Uid)
	s.before = map[procKey]bool{}
	for _, p := range processes() {
		if p.isUser(s.uid) {
			s.before[procKey{p.pid, p.start}] = true
		}
	}
	return s
}

// startTracked starts an agent's process and registers it as running;
// the returned func unregisters it.
func startTracked(cmd *exec.Cmd) (func(), error) {
	spawning.RLock()
	defer spawning.RUnlock()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return track(cmd.Process.Pid), nil
}

// track registers a started agent process as running; the returned func
// unregisters it.
func track(pid int) func() {
	live.Lock()
	live.sids[pid]++
	live.Unlock()
	return func() {
		live.Lock()
		if live.sids[pid]--; live.sids[pid] <= 0 {
			delete(live.sids, pid)
		}
		live.Unlock()
	}
}

// endRun ends every process left of a run whose agent process (the
// leader of session sid) has exited and been waited for: its session,
// the sessions its orphans started (reparented to gallivant, the
// subreaper), and for run_as every new process of the agent's user that
// does not belong to another running agent. It returns how many
// processes it killed.
func endRun(sid int, s runScope) int {
	self := os.Getpid()
	selfSid, err := getsid(0)
	if sid <= 1 || sid == self || err != nil {
		// Nothing here is an agent's session: kill(-1) would be every
		// process, kill(-self) gallivant.
		return 0
	}
	_ = syscall.Kill(-sid, syscall.SIGKILL)
	killed := 0
	for round := 0; round < 100; round++ {
		spawning.Lock()
		t := readRunTable(sid, self, selfSid)
		victims := t.victims(s)
		for _, pid := range victims {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
		spawning.Unlock()
		if len(victims) == 0 {
			return killed
		}
		reapChildren(victims, self, t.byPid)
	}
	return killed
}

// runTable is the process table as one round of endRun sees it: the
// processes, gallivant (self, of session selfSid), the ended run's
// session sid and the sessions of the agents still running.
type runTable struct {
	self, selfSid, sid int
	procs              []proc
	byPid              map[int]proc
	running            map[int]bool
}

// readRunTable reads the process table and the running agents' sessions.
// The caller holds spawning.
func readRunTable(sid, self, selfSid int) *runTable {
	procs := processes()
	live.Lock()
	sids := make([]int, 0, len(live.sids))
	for g := range live.sids {
		sids = append(sids, g)
	}
	live.Unlock()
	return newRunTable(procs, sids, sid, self, selfSid)
}

// newRunTable is the run table of procs, with the agents of sessions live
// running besides the ended run's session sid.
func newRunTable(procs []proc, live []int, sid, self, selfSid int) *runTable {
	t := &runTable{self: self, selfSid: selfSid, sid: sid, procs: procs,
		byPid: make(map[int]proc, len(procs)), running: make(map[int]bool, len(live))}
	for _, p := range procs {
		t.byPid[p.pid] = p
	}
	for _, g := range live {
		t.running[g] = g != sid
	}
	return t
}

// victims are the processes left of the ended run: its session, the
// orphans reparented to gallivant outside any running agent's session,
// and for run_as the new processes of the agent's user that are strays.
// gallivant's own ancestors, and every process of gallivant's own session
// (an agent leads a session of its own), are never a run's, whatever
// they look like.
func (t *runTable) victims(s runScope) []int {
	ancestors := t.ancestors()
	var victims []int
	for _, p := range t.procs {
		if p.pid <= 1 || p.pid == t.self || ancestors[p.pid] || p.sid == t.selfSid {
			continue
		}
		session := p.sid == t.sid
		orphan := p.ppid == t.self && !t.running[p.sid]
		ours := s.uid >= 0 && p.isUser(s.uid) && !s.before[procKey{p.pid, p.start}] && !t.underRunning(p) && t.stray(p, s.uid)
		if session || orphan || ours {
			victims = append(victims, p.pid)
		}
	}
	return victims
}

// ancestors are gallivant's own ancestors below init.
func (t *runTable) ancestors() map[int]bool {
	ancestors := map[int]bool{}
	for p, ok := t.byPid[t.self]; ok && p.ppid > 1 && len(ancestors) < 64; p, ok = t.byPid[p.ppid] {
		ancestors[p.ppid] = true
	}
	return ancestors
}

// stray reports whether p's ancestors up to gallivant or init are all the
// agent user's. A process of that user under another of gallivant's
// processes, or under another reconciler or service (another user's
// process), is not this run's.
func (t *runTable) stray(p proc, uid int) bool {
	for i := 0; i < 64; i++ {
		if p.ppid == t.self || p.ppid <= 1 {
			return true
		}
		q, ok := t.byPid[p.ppid]
		if !ok || !q.isUser(uid) {
			return false
		}
		p = q
	}
	return false
}

// underRunning reports whether p descends from another agent that still
// runs.
func (t *runTable) underRunning(p proc) bool {
	for i := 0; i < 64 && p.pid > 1; i++ {
		if t.running[p.sid] {
			return true
		}
		q, ok := t.byPid[p.ppid]
		if !ok || p.ppid == t.self {
			return false
		}
		p = q
	}
	return false
}

// getsid is getsid(2).
func getsid(pid int) (int, error) {
	r, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// reapChildren waits for the killed processes that are gallivant's own
// children (reparented orphans), so that none is left a zombie.
func reapChildren(victims []int, self int, byPid map[int]proc) {
	for _, pid := range victims {
		if byPid[pid].ppid != self {
			continue
		}
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
	}
}

// proc is what /proc says of a process.
type proc struct {
	pid, ppid, sid, ruid, euid int
	start                      uint64
}

// processes lists the processes of the machine (of this PID namespace).
func processes() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// isUser reports a process whose real or effective uid is uid.
func (p proc) isUser(uid int) bool { return p.ruid == uid || p.euid == uid }

// readProc parses /proc/<pid>/stat and the real and effective uid of
// /proc/<pid>/status; a process that is gone reads false.
func readProc(pid int) (proc, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// The command name is in parentheses and may hold anything.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	p := proc{pid: pid, ruid: -1, euid: -1}
	p.ppid, _ = strconv.Atoi(f[1])
	p.sid, _ = strconv.Atoi(f[3])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return proc{}, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if ids := strings.Fields(rest); len(ids) >= 2 {
				p.ruid, _ = strconv.Atoi(ids[0])
				p.euid, _ = strconv.Atoi(ids[1])
			}
			break
		}
	}
	return p, true
}
