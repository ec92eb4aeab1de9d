package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
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
	for _, p := range processes(true) {
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
	return endRunReading(sid, s, new(procReader))
}

// endRunReading is endRun, reading the process table through r. Its
// rounds read the uids of the processes only for run_as (s.uid >= 0),
// the one case victims looks at them.
func endRunReading(sid int, s runScope, r *procReader) int {
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
		t := readRunTable(r, s.uid >= 0, sid, self, selfSid)
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

// readRunTable reads the process table through r, with the uids when
// withUIDs is set, and the running agents' sessions. The caller holds
// spawning.
func readRunTable(r *procReader, withUIDs bool, sid, self, selfSid int) *runTable {
	procs := r.processes(withUIDs)
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

// proc is what /proc says of a process. ruid and euid are -1 when the
// table was read without uids (processes(false)).
type proc struct {
	pid, ppid, sid, ruid, euid int
	start                      uint64
}

// isUser reports a process whose real or effective uid is uid.
func (p proc) isUser(uid int) bool { return p.ruid == uid || p.euid == uid }

// procReader reads the process table for one endRun or beginRun, every
// file into one buffer it keeps. It counts the files it read.
//
// The uids come from /proc/<pid>/status, and only when asked for
// (withUIDs): only a run_as run needs them (runTable.victims looks at a
// process's uids only when runScope.uid >= 0), and beginRun. /proc/<pid>/stat
// holds no uid. The owner of /proc/<pid> (an fstat, no read) would not
// do: it is the process's effective uid only, and root's while the
// process is not dumpable (after a change of credentials, a setuid
// program, prctl(PR_SET_DUMPABLE, 0)). isUser takes a process of the
// agent's user by its real or its effective uid, so a process of the
// agent's that runs a setuid program (real uid the agent's, effective
// root), or that made itself undumpable, would escape the sweep, and its
// descendants' stray check would stop at it. The Uid line of status has
// the real and the effective uid as the kernel holds them.
type procReader struct {
	buf []byte // a file's contents
	// stats and statuses count the stat and status files read.
	stats, statuses int
}

// processes lists the processes of the machine (of this PID namespace),
// with their uids when withUIDs is set and -1 for them otherwise. A
// process that is gone by the time its files are read is left out;
// without /proc, or when listing it fails, there are none.
func processes(withUIDs bool) []proc {
	var r procReader
	return r.processes(withUIDs)
}

// processes is processes(withUIDs) through r's buffer.
func (r *procReader) processes(withUIDs bool) []proc {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		// As with no /proc: a part of the table is not the table.
		return nil
	}
	var out []proc
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid <= 0 {
			continue
		}
		if p, ok := r.proc(pid, withUIDs); ok {
			out = append(out, p)
		}
	}
	return out
}

// proc reads what /proc says of process pid: its stat and, withUIDs, the
// real and effective uid of its status. A process that is gone reads
// false.
func (r *procReader) proc(pid int, withUIDs bool) (proc, bool) {
	stat, ok := r.read(pid, "stat")
	if !ok {
		return proc{}, false
	}
	r.stats++
	p, ok := parseStat(pid, stat)
	if !ok || !withUIDs {
		return p, ok
	}
	status, ok := r.read(pid, "status")
	if !ok {
		return proc{}, false
	}
	r.statuses++
	p.ruid, p.euid = parseUIDs(status)
	return p, true
}

// read reads /proc/<pid>/<name> whole into r.buf, which it grows as
// needed; the result is good until the next read. (os.ReadFile would
// allocate a buffer per file; a sweep reads hundreds.)
func (r *procReader) read(pid int, name string) ([]byte, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/" + name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if r.buf == nil {
		r.buf = make([]byte, 4<<10)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := f.Read(r.buf[n:])
		n += m
		if errors.Is(err, io.EOF) {
			return r.buf[:n], true
		}
		if err != nil {
			return nil, false
		}
	}
}

// parseStat parses the parent, session and start time of a stat line,
// uids -1; a line of fewer than the 22 fields up to the start time reads
// false.
func parseStat(pid int, stat []byte) (proc, bool) {
	// The command name is in parentheses and may hold anything.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, false
	}
	// The fields after the name, from the state (0): the parent is 1,
	// the session 3 and the start time 19.
	f := bytes.Fields(stat[i+1:])
	if len(f) < 20 {
		return proc{}, false
	}
	p := proc{pid: pid, ruid: -1, euid: -1}
	p.ppid, _ = strconv.Atoi(string(f[1]))
	p.sid, _ = strconv.Atoi(string(f[3]))
	p.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return p, true
}

// parseUIDs parses the real and effective uid of the Uid line of a
// status file, -1 for both without one.
func parseUIDs(status []byte) (ruid, euid int) {
	for line := range bytes.Lines(status) {
		// The Name line's value is escaped: no line but the Uid line
		// starts so.
		if rest, ok := bytes.CutPrefix(line, []byte("Uid:")); ok {
			ids := bytes.Fields(rest)
			if len(ids) < 2 {
				return -1, -1
			}
			r, rerr := strconv.Atoi(string(ids[0]))
			e, eerr := strconv.Atoi(string(ids[1]))
			if rerr != nil || eerr != nil {
				return -1, -1
			}
			return r, e
		}
	}
	return -1, -1
}
