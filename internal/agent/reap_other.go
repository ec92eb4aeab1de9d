//go:build !linux

package agent

import (
	"os/exec"
	"syscall"
)

// agentSysProcAttr is the process attributes of an agent's process: its
// own session (and so process group) and the agent's user. Without Linux's
// child subreaper and PID namespaces, a process of the agent's that leaves
// its session outlives the run (docs/security.md).
func agentSysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Credential: cred}
}

// runScope is what endRun needs of a run.
type runScope struct{}

// beginRun records nothing where processes cannot be listed.
func beginRun(*syscall.Credential) runScope { return runScope{} }

// startTracked starts an agent's process.
func startTracked(cmd *exec.Cmd) (func(), error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}

// endRun kills the agent's process group.
func endRun(sid int, _ runScope) int {
	_ = syscall.Kill(-sid, syscall.SIGKILL)
	return 0
}
