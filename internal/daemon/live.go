package daemon

import (
	"sort"
	"sync"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// liveTail is how many of a running agent's last output lines the entry
// page shows.
const liveTail = 20

// LiveRuns keeps what the running agents printed last, for the entry
// page's live view: an agent.Progress the daemon hands the executor.
type LiveRuns struct {
	mu   sync.Mutex
	runs map[string]*LiveRun
	// ended holds each spec's last finished run, so a card can tell a
	// dispatch that returned from one still going.
	ended map[string]LiveRun
	now   func() time.Time
}

// LiveRun is one running agent: its spec, task (row <n>, seed, round <k>),
// start and the tail of its output, oldest line first.
type LiveRun struct {
	Spec, Task string
	Started    time.Time
	Tail       []string
	// Ended is when the run finished; zero while it runs.
	Ended time.Time
}

// NewLiveRuns returns an empty set of runs.
func NewLiveRuns() *LiveRuns {
	return &LiveRuns{runs: map[string]*LiveRun{}, ended: map[string]LiveRun{}, now: time.Now}
}

// Started implements agent.Progress.
func (l *LiveRuns) Started(r agent.Run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[r.Key()] = &LiveRun{Spec: r.Spec, Task: r.Task, Started: r.Started}
	delete(l.ended, r.Spec)
}

// Output implements agent.Progress; a line is kept at most 500 runes long.
func (l *LiveRuns) Output(r agent.Run, line string) {
	if rs := []rune(line); len(rs) > 500 {
		line = string(rs[:499]) + "…"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lr := l.runs[r.Key()]
	if lr == nil {
		return
	}
	lr.Tail = append(lr.Tail, line)
	if len(lr.Tail) > liveTail {
		lr.Tail = append([]string(nil), lr.Tail[len(lr.Tail)-liveTail:]...)
	}
}

// Finished implements agent.Progress.
func (l *LiveRuns) Finished(r agent.Run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lr := l.runs[r.Key()]; lr != nil {
		done := *lr
		done.Tail = nil
		done.Ended = l.now()
		l.ended[r.Spec] = done
	}
	delete(l.runs, r.Key())
}

// Ended returns the last finished run of spec since its latest start.
func (l *LiveRuns) Ended(spec string) (LiveRun, bool) {
	if l == nil {
		return LiveRun{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.ended[spec]
	return r, ok
}

// Of returns copies of the runs of spec going now, by task.
func (l *LiveRuns) Of(spec string) []LiveRun {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LiveRun
	for _, r := range l.runs {
		if r.Spec == spec {
			cp := *r
			cp.Tail = append([]string(nil), r.Tail...)
			out = append(out, cp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Task < out[j].Task })
	return out
}
