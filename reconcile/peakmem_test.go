package reconcile

import (
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

// peakMem measures the peak memory of a stretch of a benchmark: the
// process's peak resident set (Linux's VmHWM, reset through
// /proc/self/clear_refs; 0 where that is unavailable) and the peak of
// the Go heap's live objects, sampled every 5 ms. The resident set
// includes everything in the process, the GitHub stand-in too.
type peakMem struct {
	stop chan struct{}
	done sync.WaitGroup
	heap uint64
}

func startPeakMem() *peakMem {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	p := &peakMem{stop: make(chan struct{})}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			p.heap = max(p.heap, s[0].Value.Uint64())
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// end stops the sampling and returns the peaks in bytes.
func (p *peakMem) end() (rss, heap uint64) {
	close(p.stop)
	p.done.Wait()
	return vmHWM(), p.heap
}

// vmHWM is the process's peak resident set since the last reset, or 0.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, ln := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(ln, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
