package serve

import (
	"sort"
	"sync"
	"time"

	"github.com/gallivant/gallivant/reconcile/agent"
)

// liveTail is how many of a running agent's last output lines the entry
// page shows.
const liveTail = 20

// LiveRuns keeps what the running agents printed last, for the entry
// page's live view: an agent.Progress the daemon hands the executor.
type LiveRuns struct {
	mu   sync.Mutex
	runs map[string]*LiveRun
}

// LiveRun is one running agent: its spec, task (row <n>, seed, round <k>),
// start and the tail of its output, oldest line first.
type LiveRun struct {
	Spec, Task string
	Started    time.Time
	Tail       []string
}

// NewLiveRuns returns an empty set of runs.
func NewLiveRuns() *LiveRuns { return &LiveRuns{runs: map[string]*LiveRun{}} }

// Started implements agent.Progress.
func (l *LiveRuns) Started(r agent.Run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[r.Key()] = &LiveRun{Spec: r.Spec, Task: r.Task, Started: r.Started}
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
	delete(l.runs, r.Key())
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
