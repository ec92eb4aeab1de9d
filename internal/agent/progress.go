package agent

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// sessionRE is what a session id a CLI printed must look like before it
// goes on a command line: a word that cannot pass for a flag.
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// DefaultHeartbeat is how often a running agent is reported when
// CommandExecutor.Heartbeat is zero.
const DefaultHeartbeat = 30 * time.Second

// Ticker is a heartbeat's clock; tests inject one they tick by hand.
type Ticker interface {
	Chan() <-chan time.Time
	Stop()
}

type timeTicker struct{ *time.Ticker }

func (t timeTicker) Chan() <-chan time.Time { return t.C }

// heartbeat logs a line for t every period while its agent runs (spec,
// row or round, elapsed time, log path) until the returned stop is called;
// stop returns once no further line can be written, and may be called
// more than once (a caller defers it so that a run that ends by a panic or
// runtime.Goexit does not leave the heartbeat ticking).
func (e CommandExecutor) heartbeat(t Task, logPath string) (stop func()) {
	period := e.Heartbeat
	if period <= 0 {
		period = DefaultHeartbeat
	}
	now := e.Now
	if now == nil {
		now = time.Now
	}
	var tk Ticker
	if e.NewTicker != nil {
		tk = e.NewTicker(period)
	} else {
		tk = timeTicker{time.NewTicker(period)}
	}
	start := now()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-tk.Chan():
				e.log().Info("agent running", "spec", t.Spec, "task", label(t),
					"elapsed", now().Sub(start).Round(time.Second).String(), "log", logPath)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			tk.Stop()
			close(done)
		})
		<-finished
	}
}

// Run names one agent run for a Progress: the spec, the task (row <n>,
// seed, round <k>) and when it started.
type Run struct {
	Spec, Task string
	Started    time.Time
}

// Key identifies the run among those going at once: one per spec.
func (r Run) Key() string { return r.Spec + " " + r.Task }

// Progress is told about agent runs as they go. Its methods are called
// from the goroutines that run agents, so they must be safe for
// concurrent use; Output gets each line of the agent's output (standard
// output and error) without its newline, as printed.
type Progress interface {
	Started(Run)
	Output(r Run, line string)
	Finished(Run)
}

func (e CommandExecutor) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// lineWriter calls emit with each whole line written to it; Flush emits an
// unfinished last line. Its Write is called from the goroutines that copy
// the agent's standard output and standard error, hence the lock.
type lineWriter struct {
	mu   sync.Mutex
	emit func(string)
	part []byte
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		l.emit(string(bytes.TrimRight(l.part[:i], "\r")))
		l.part = l.part[i+1:]
	}
	if len(l.part) > 64<<10 {
		// A line without end: show what there is, keep memory bounded.
		l.emit(string(l.part))
		l.part = nil
	}
	return len(b), nil
}

// Flush emits what is left of an unfinished line.
func (l *lineWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.part) > 0 {
		l.emit(string(l.part))
		l.part = nil
	}
}

// streamMu keeps lines of agents that run at once whole on the stream.
var streamMu sync.Mutex

// prefixWriter writes whole lines to w, each after prefix; Flush writes
// an unfinished last line.
type prefixWriter struct {
	w      io.Writer
	prefix string
	part   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.part = append(p.part, b...)
	for {
		i := bytes.IndexByte(p.part, '\n')
		if i < 0 {
			break
		}
		p.emit(p.part[:i+1])
		p.part = p.part[i+1:]
	}
	return len(b), nil
}

func (p *prefixWriter) emit(line []byte) {
	streamMu.Lock()
	defer streamMu.Unlock()
	_, _ = io.WriteString(p.w, p.prefix)
	_, _ = p.w.Write(line)
}

// Flush writes what is left of an unfinished line.
func (p *prefixWriter) Flush() {
	if len(p.part) > 0 {
		p.emit(append(p.part, '\n'))
		p.part = nil
	}
}

// stream returns the writer that copies t's agent output to e.Stream,
// prefixed with the spec and the row or round; nil when not streaming.
func (e CommandExecutor) stream(t Task) *prefixWriter {
	if e.Stream == nil {
		return nil
	}
	return &prefixWriter{w: e.Stream, prefix: "[" + t.Spec + " " + label(t) + "] "}
}

// label names t's dispatch briefly: row <n>, seed, round <k>, task <id>
// or learn.
func label(t Task) string {
	switch {
	case t.Learn:
		return "learn"
	case t.PlanTask != "":
		// A wave's tasks run at once for one spec: each needs a key of
		// its own on the board, and none of them is the seed.
		return "task " + t.PlanTask
	case t.Round > 0:
		return fmt.Sprintf("round %d", t.Round)
	case t.Pending.Target == ledger.SeedTarget:
		return "seed"
	}
	return fmt.Sprintf("row %d", t.Pending.Target)
}

// sessionFile keeps the session id of t's entry's last preset run, for a
// fix round to resume.
func (e CommandExecutor) sessionFile(t Task, kind string) string {
	return filepath.Join(e.WorkDir, "sessions", strings.ReplaceAll(t.Repo, "/", "__"), strings.TrimSuffix(filepath.Base(e.checkoutDir(t)), "/")+"."+kind)
}

// lastSession reads the session id a fix round resumes, "" when none.
func (e CommandExecutor) lastSession(t Task, kind string) string {
	data, err := os.ReadFile(e.sessionFile(t, kind))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(data))
	if !sessionRE.MatchString(id) {
		return ""
	}
	return id
}

// keepSession records a preset run's session id.
func (e CommandExecutor) keepSession(t Task, kind, id string) {
	if id == "" || !sessionRE.MatchString(id) {
		return
	}
	p := e.sessionFile(t, kind)
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
		_ = os.WriteFile(p, []byte(id+"\n"), 0o600)
	}
}
