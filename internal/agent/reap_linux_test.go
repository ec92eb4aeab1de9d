package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// survivingAgent is issue 29's first finding as a script: before it
// commits, the agent leaves a helper that calls setsid() (out of the
// agent's process group and session) and goes on writing into the
// checkout after the agent has exited.
const survivingAgent = `#!/bin/sh
setsid sh -c 'while :; do echo x >> evil.txt; sleep 0.05; done # MARK' </dev/null >/dev/null 2>&1 &
sh -c 'trap "" HUP; exec setsid sh -c "sleep 300 # MARK"' </dev/null >/dev/null 2>&1 &
echo hi > hello.txt
git add hello.txt
git -c user.name=Mallory -c user.email=m@example.com commit --quiet -m "loop: row 1 done"
`

// markedProcesses lists the processes whose command line holds mark.
func markedProcesses(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func runSurvivingAgent(t *testing.T, runAs string) {
	mark := fmt.Sprintf("gallivant-reap-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() {
		for _, pid := range markedProcesses(mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	remote, base := remoteRepo(t)
	root := t.TempDir()
	// A run_as agent must reach its checkout.
	for _, d := range []string{filepath.Dir(root), root} {
		os.Chmod(d, 0o755)
	}
	script := filepath.Join(root, "agent.sh")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(survivingAgent, "MARK", mark)), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "work")
	e := CommandExecutor{Argv: []string{"sh", script}, Timeout: time.Minute, WorkDir: work, RunAs: runAs}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "row 1"}
	out, err := e.Run(context.Background(), task)
	if err != nil || out.Err != nil {
		t.Fatalf("Run: %v, outcome error %v (log %s)", err, out.Err, readLog(out.Log))
	}
	if left := markedProcesses(mark); len(left) > 0 {
		t.Errorf("after the run, %d processes the agent detached still run (pids %v): the run is not over", len(left), left)
	}
	if out.Commits != 1 {
		t.Errorf("commits %d, want 1", out.Commits)
	}
}

func readLog(p string) string { b, _ := os.ReadFile(p); return string(b) }

// Issue 29, finding 1 (the agent's processes outlive the run): a helper
// that leaves the agent's session is ended before gallivant reads the
// checkout, as gallivant's own user.
func TestRunEndsDetachedProcesses(t *testing.T) {
	runSurvivingAgent(t, "")
}

// The same as run_as: the agent's processes end with the run whether the
// PID namespace or the sweep of the agent user's processes ends them.
func TestRunAsEndsDetachedProcesses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("run_as needs the tests to run as root")
	}
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody to run the agent as")
	}
	runSurvivingAgent(t, "nobody")
}

// The end of a run_as run ends a process of the agent's user that started
// during the run in a session of its own, even without a PID namespace,
// and spares one that existed before the run and one of another agent
// that still runs.
func TestEndRunSweepsTheAgentUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("starting processes as another user needs the tests to run as root")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	mark := fmt.Sprintf("gallivant-sweep-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() {
		for _, pid := range markedProcesses(mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	start := func(what string) int {
		attr := &os.ProcAttr{Sys: &syscall.SysProcAttr{Setsid: true, Credential: cred}}
		p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", "sleep 300 # " + mark + " " + what}, attr)
		if err != nil {
			t.Fatal(err)
		}
		return p.Pid
	}
	// The process from before the run is tracked too: it is gallivant's
	// child in a session of its own, which only an agent's process is.
	old := start("before")
	defer track(old)()
	scope := beginRun(cred)
	during := start("during")
	other := start("another agent")
	defer track(other)()
	// A process of the agent's user under another root process (another
	// reconciler's agent) is not this run's.
	foreign := exec.Command("/bin/sh", "-c", "setpriv --reuid="+u.Uid+" --regid="+u.Gid+" --clear-groups sh -c 'sleep 300; : "+mark+"-foreign' & wait")
	if err := foreign.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { foreign.Process.Kill(); foreign.Wait() }()
	var foreignPid int
	for i := 0; i < 200 && foreignPid == 0; i++ {
		for _, pid := range markedProcesses(mark + "-foreign") {
			if p, ok := readProc(pid); ok && p.ruid == uid {
				foreignPid = pid
			}
		}
		if foreignPid == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if foreignPid == 0 {
		t.Fatal("the other reconciler's agent process did not start")
	}
	// The sweep is for run_as; an unrelated session id stands for the
	// agent's own, which has ended.
	endRun(1<<30, scope)
	if _, ok := readProc(during); ok {
		if p, _ := readProc(during); !strings.Contains(statState(during), "Z") {
			t.Errorf("the process of the agent's user started during the run (pid %d, %+v) survived", during, p)
		}
	}
	if _, ok := readProc(old); !ok {
		t.Errorf("the process that existed before the run (pid %d) was killed", old)
	}
	if _, ok := readProc(other); !ok {
		t.Errorf("the process of another running agent (pid %d) was killed", other)
	}
	if _, ok := readProc(foreignPid); !ok || statState(foreignPid) == "Z" {
		t.Errorf("the agent user's process under another root process (pid %d) was killed", foreignPid)
	}
	for _, pid := range []int{old, other} {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
}

func statState(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+3 <= len(s) {
		return s[i+2 : i+3]
	}
	return ""
}
