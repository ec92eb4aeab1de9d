package leakcheck

import (
	"strings"
	"testing"
)

func TestRunningFindsALeakAndIgnoresTheRest(t *testing.T) {
	stop := make(chan struct{})
	started := make(chan struct{})
	go leakyWorker(started, stop)
	<-started
	found := false
	for _, g := range Running() {
		if strings.Contains(g, "leakcheck.leakyWorker") {
			found = true
		}
		if strings.Contains(g, "testing.tRunner") && !strings.Contains(g, "leakyWorker") {
			t.Errorf("a testing goroutine was reported:\n%s", g)
		}
	}
	if !found {
		t.Errorf("Running() did not report the running worker")
	}
	close(stop)
	if left := wait(settle); len(left) != 0 {
		t.Errorf("after the worker ended, Running() = %q, want none", left)
	}
}

func leakyWorker(started, stop chan struct{}) {
	close(started)
	<-stop
}

func TestExpected(t *testing.T) {
	for _, tc := range []struct {
		stack string
		want  bool
	}{
		{"goroutine 7 [chan receive]:\ntesting.(*T).Run(0xc0001)\n\t/go/src/testing/testing.go:1\nmain.main()", true},
		{"goroutine 9 [select]:\nnet/http.(*persistConn).readLoop(0x1)\n\t/x.go:1\ncreated by net/http.(*Transport).dialConn", true},
		{"goroutine 12 [select]:\ngithub.com/x/y.beat()\n\t/y.go:3\ncreated by testing.tRunner in goroutine 5", false},
	} {
		if got := expected(tc.stack); got != tc.want {
			t.Errorf("expected(%q) = %v, want %v", tc.stack, got, tc.want)
		}
	}
}
