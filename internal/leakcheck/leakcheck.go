// Package leakcheck fails a test binary whose tests leave goroutines
// running after they have all returned.
//
// It is for test code only: a package's TestMain calls Main. The check is
// done once, after every test of the binary, because a goroutine that
// outlives its test usually outlives the binary's tests too, and a check
// per test would have to stop parallel tests from overlapping.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// settle is how long Main waits for goroutines that are already on their
// way out (a server's connection handlers, a cancelled command's waiter)
// before it calls what is left a leak. It is a bound, not a sleep: Main
// returns as soon as nothing is left.
const settle = 10 * time.Second

// Main runs the tests of m and exits with their status, or with status 1
// when they passed but left goroutines running; it prints the stack of
// each leaked goroutine.
func Main(m *testing.M) {
	os.Exit(Checked{m}.Run())
}

// Checked wraps the tests of a binary whose TestMain hands them to another
// runner (testscript.Main takes anything with a Run method): its Run runs
// them and then checks for leaks as Main does.
type Checked struct {
	M interface{ Run() int }
}

// Run runs the tests and returns their status, or 1 when they passed but
// left goroutines running.
func (c Checked) Run() int {
	code := c.M.Run()
	if code == 0 {
		if leaked := wait(settle); len(leaked) > 0 {
			fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) outlived the tests:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
			code = 1
		}
	}
	return code
}

// wait polls until no unexpected goroutine is left or the bound has
// passed, and returns the stacks still running then.
func wait(bound time.Duration) []string {
	deadline := time.Now().Add(bound)
	delay := time.Millisecond
	for {
		leaked := Running()
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(delay)
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// Running returns the stacks of the goroutines now running other than the
// caller's own and those the runtime, the testing package and the
// standard library keep for themselves.
func Running() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var leaked []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || expected(g) {
			continue // the first stack is the caller's own
		}
		leaked = append(leaked, strings.TrimSpace(g))
	}
	return leaked
}

// ignored are the functions whose goroutines are not the tests' own: the
// testing package's bookkeeping, signal delivery, and the idle keep-alive
// connections of a shared HTTP client. A goroutine is ignored when any
// frame of its stack is one of them.
var ignored = []string{
	"testing.",
	"os/signal.",
	"runtime.ensureSigM",
	"net/http.(*persistConn).",
}

// expected reports whether a goroutine's stack, as runtime.Stack prints
// it, is one of the ignored kinds.
func expected(stack string) bool {
	for _, line := range strings.Split(stack, "\n")[1:] {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by ") {
			continue // a file:line or the creator, not a running frame
		}
		if slices.ContainsFunc(ignored, func(p string) bool { return strings.HasPrefix(line, p) }) {
			return true
		}
	}
	return false
}
