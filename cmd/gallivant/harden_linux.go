package main

import "syscall"

// prSetDumpable is prctl's PR_SET_DUMPABLE.
const prSetDumpable = 4

// harden makes gallivant's /proc/<pid>/environ, mem and the like
// readable by root only and forbids attaching a debugger to it, also for
// processes of its own user (an agent that runs as gallivant's user):
// prctl(PR_SET_DUMPABLE, 0). Core dumps are off with it.
func harden() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
}
