package agent

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/ledger"
)

// handTicker ticks when the test says so.
type handTicker struct{ c chan time.Time }

func (h handTicker) Chan() <-chan time.Time { return h.c }
func (h handTicker) Stop()                  {}

// records is a log writer that hands each record to the test.
type records struct {
	mu  sync.Mutex
	buf bytes.Buffer
	got chan string
}

func (r *records) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(b)
	r.mu.Unlock()
	r.got <- string(b)
	return len(b), nil
}

// While an agent runs, each tick logs a heartbeat naming the spec, the
// row, the time elapsed on the injected clock and the log path; none
// comes after the run.
func TestHeartbeat(t *testing.T) {
	remote, base := remoteRepo(t)
	tick := handTicker{c: make(chan time.Time)}
	rec := &records{got: make(chan string, 8)}
	clock := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	var lines []string
	e := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir(), Log: slog.New(slog.NewTextHandler(rec, nil)),
		NewTicker: func(d time.Duration) Ticker {
			if d != DefaultHeartbeat {
				t.Errorf("heartbeat every %s, want %s", d, DefaultHeartbeat)
			}
			return tick
		},
		Now: now,
		Agent: func(ctx context.Context, dir string, task Task) error {
			for _, advance := range []time.Duration{30 * time.Second, 31 * time.Second} {
				mu.Lock()
				clock = clock.Add(advance)
				mu.Unlock()
				tick.c <- clock
				lines = append(lines, <-rec.got)
			}
			return nil
		}}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 2, Member: "home", SHA: base}, Iteration: 4}
	out, err := e.Run(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("heartbeats %q", lines)
	}
	for i, elapsed := range []string{"30s", "1m1s"} {
		want := `msg="agent running" spec=specs/feature.md task="row 2" elapsed=` + elapsed + " log=" + out.Log
		if !strings.Contains(lines[i], want) {
			t.Errorf("heartbeat %d: %q, want %q", i+1, lines[i], want)
		}
	}
	select {
	case l := <-rec.got:
		t.Errorf("a line after the run: %q", l)
	default:
	}
}

// -v's stream carries the agent's output line by line, each line after
// the spec and the row.
func TestStreamPrefixesAgentOutput(t *testing.T) {
	bin := agentstandin.Write(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	remote, base := remoteRepo(t)
	var stream bytes.Buffer
	e := CommandExecutor{Kind: "codex", Timeout: time.Minute, WorkDir: t.TempDir(), Stream: &stream}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: strings.ReplaceAll(rowBrief, "%s", base)}
	if _, err := e.Run(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	want := `[specs/feature.md row 1] {"type":"thread.started","thread_id":"codex-thread-1"}` + "\n"
	if !strings.Contains(stream.String(), want) {
		t.Errorf("stream:\n%s\nwant a line %q", stream.String(), want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(stream.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "[specs/feature.md row 1] ") {
			t.Errorf("unprefixed line %q", l)
		}
	}
}

// A fix round resumes the session of the entry's last run where the CLI
// can, and says so in the log.
func TestRoundResumesSession(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{"claude-code", "claude -p --output-format json --permission-mode bypassPermissions --resume claude-session-1"},
		{"codex", "codex exec resume codex-thread-1 --json -c sandbox_mode=\"workspace-write\" -"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			bin := agentstandin.Write(t)
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			remote, base := remoteRepo(t)
			e := CommandExecutor{Kind: tc.kind, Timeout: time.Minute, WorkDir: t.TempDir()}
			row := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
				Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: strings.ReplaceAll(rowBrief, "%s", base)}
			if out, err := e.Run(context.Background(), row); err != nil || out.Err != nil {
				t.Fatalf("row run: %v %v", err, out.Err)
			}
			round := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
				Round: 1, Iteration: 5, Brief: "```text\ntarget: round\nround: 1\n```\n"}
			out, err := e.Run(context.Background(), round)
			if err != nil || out.Err != nil {
				t.Fatalf("round run: %v %v", err, out.Err)
			}
			calls := agentstandin.CallsOf(t, bin)
			if len(calls) != 2 || !strings.HasPrefix(calls[1], tc.want+" |") {
				t.Errorf("calls %q, want the round to be %q", calls, tc.want)
			}
			log, _ := os.ReadFile(out.Log)
			if !strings.Contains(string(log), "# gallivant: resuming "+tc.kind+" session") {
				t.Errorf("the log does not say the session was resumed:\n%s", log)
			}
			if msg := gitIn(t, remote, "log", "-1", "--format=%s", "gallivant/feature"); msg != "Answer review round 1" {
				t.Errorf("round commit %q", msg)
			}
			if _, err := os.Stat(filepath.Join(e.WorkDir, "sessions")); err != nil {
				t.Error(err)
			}
		})
	}
}

// recordingProgress keeps what a Progress is told, in order.
type recordingProgress struct {
	mu     sync.Mutex
	events []string
}

func (p *recordingProgress) add(s string) { p.mu.Lock(); p.events = append(p.events, s); p.mu.Unlock() }
func (p *recordingProgress) Started(r Run) {
	p.add("started " + r.Key() + " at " + r.Started.Format(time.RFC3339))
}
func (p *recordingProgress) Output(r Run, line string) { p.add("output " + r.Key() + ": " + line) }
func (p *recordingProgress) Finished(r Run)            { p.add("finished " + r.Key()) }

// Progress hears of the run's start (on the executor's clock), every line
// the agent prints, and its end, in that order.
func TestProgressToldOfRun(t *testing.T) {
	bin := agentstandin.Write(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	remote, base := remoteRepo(t)
	p := &recordingProgress{}
	clock := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	e := CommandExecutor{Kind: "codex", Timeout: time.Minute, WorkDir: t.TempDir(), Progress: p, Now: func() time.Time { return clock }}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: strings.ReplaceAll(rowBrief, "%s", base)}
	if _, err := e.Run(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.events) < 3 {
		t.Fatalf("events %q", p.events)
	}
	if got, want := p.events[0], "started specs/feature.md row 1 at 2026-11-30T10:00:00Z"; got != want {
		t.Errorf("first event %q, want %q", got, want)
	}
	if got, want := p.events[len(p.events)-1], "finished specs/feature.md row 1"; got != want {
		t.Errorf("last event %q, want %q", got, want)
	}
	want := `output specs/feature.md row 1: {"type":"thread.started","thread_id":"codex-thread-1"}`
	found := false
	for _, ev := range p.events[1 : len(p.events)-1] {
		if !strings.HasPrefix(ev, "output specs/feature.md row 1: ") {
			t.Errorf("between start and end: %q", ev)
		}
		found = found || ev == want
	}
	if !found {
		t.Errorf("events %q lack %q", p.events, want)
	}
}

// Each dispatch is named on the board by what it works on; a wave's tasks,
// which run at once for one spec, each have a name (and so a key) of their
// own rather than all reading as the seed.
func TestRunLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		task Task
		want string
	}{
		{Task{Pending: ledger.Pending{Target: 2}}, "row 2"},
		{Task{Pending: ledger.Pending{Target: ledger.SeedTarget}}, "seed"},
		{Task{Round: 3, Pending: ledger.Pending{Target: ledger.SeedTarget}}, "round 3"},
		{Task{PlanTask: "T002", Pending: ledger.Pending{Target: ledger.SeedTarget}}, "task T002"},
		{Task{PlanTask: "1.2", Pending: ledger.Pending{Target: ledger.SeedTarget}}, "task 1.2"},
	}
	for _, tt := range tests {
		if got := label(tt.task); got != tt.want {
			t.Errorf("label(%+v) = %q, want %q", tt.task.Pending, got, tt.want)
		}
	}
}
