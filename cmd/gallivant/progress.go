package main

import (
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// Progress of running agents on standard error (docs/cli.md, "Output and
// logs"). At a terminal a live block holds one line per running agent —
// spec, row or round, time elapsed, the agent's last output line — redrawn
// in place; elsewhere plain lines say when a run starts and ends and, every
// plainEvery, how it is going. --quiet turns both off.

// plainEvery is how often a run that is still going is reported when
// standard error is not a terminal.
const plainEvery = 30 * time.Second

// redrawEvery is how often the live block is redrawn at a terminal (for
// the elapsed time and output that arrived since).
const redrawEvery = 250 * time.Millisecond

// progressBoard is an agent.Progress that writes to standard error.
type progressBoard struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	// width is the terminal's width in columns (a line is cut to fit).
	width func() int
	now   func() time.Time
	// plain writes a plain line (narrate, so that JSON logs stay JSON).
	plain func(level slog.Level, text, msg string, attrs ...any)
	runs  map[string]*liveRun
	// drawn is how many lines the live block holds on the screen, shown
	// what they say.
	drawn int
	shown string
	dirty bool
	stop  chan struct{}
	done  chan struct{}
}

type liveRun struct {
	run      agent.Run
	last     string
	reported time.Time // last plain line
}

// newProgressBoard makes a board; start runs its clock until close.
func newProgressBoard(w io.Writer, tty bool, width func() int, now func() time.Time, plain func(slog.Level, string, string, ...any)) *progressBoard {
	return &progressBoard{w: w, tty: tty, width: width, now: now, plain: plain, runs: map[string]*liveRun{}}
}

// start redraws (at a terminal) or reports (elsewhere) on a real clock
// until close. Without start, tick must be called by hand (tests).
func (b *progressBoard) start() {
	b.stop, b.done = make(chan struct{}), make(chan struct{})
	every := plainEvery
	if b.tty {
		every = redrawEvery
	}
	go func() {
		defer close(b.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.tick()
			}
		}
	}()
}

// close stops the clock and clears the live block; nothing is written
// after it returns.
func (b *progressBoard) close() {
	if b.stop != nil {
		close(b.stop)
		<-b.done
		b.stop = nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		b.clearLocked()
	}
	b.runs = map[string]*liveRun{}
}

// Started implements agent.Progress.
func (b *progressBoard) Started(r agent.Run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Started.IsZero() {
		r.Started = b.now()
	}
	b.runs[r.Key()] = &liveRun{run: r, reported: r.Started}
	if b.tty {
		b.drawLocked()
		return
	}
	b.plain(slog.LevelInfo, fmt.Sprintf("%s %s: agent started", r.Spec, r.Task), "agent started", "spec", r.Spec, "task", r.Task)
}

// Output implements agent.Progress.
func (b *progressBoard) Output(r agent.Run, line string) {
	line = bounded(line, 500)
	if line == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if lr := b.runs[r.Key()]; lr != nil {
		lr.last = line
		b.dirty = true
	}
}

// Finished implements agent.Progress.
func (b *progressBoard) Finished(r agent.Run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lr := b.runs[r.Key()]
	if lr == nil {
		return
	}
	delete(b.runs, r.Key())
	if b.tty {
		b.drawLocked()
		return
	}
	took := elapsed(b.now().Sub(lr.run.Started))
	b.plain(slog.LevelInfo, fmt.Sprintf("%s %s: agent finished after %s", r.Spec, r.Task, took), "agent finished",
		"spec", r.Spec, "task", r.Task, "elapsed", took)
}

// tick redraws the live block, or writes a plain line for each run not
// reported for plainEvery.
func (b *progressBoard) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		if len(b.runs) > 0 || b.dirty {
			b.drawLocked()
		}
		return
	}
	now := b.now()
	for _, lr := range b.sorted() {
		if now.Sub(lr.reported) < plainEvery {
			continue
		}
		lr.reported = now
		took := elapsed(now.Sub(lr.run.Started))
		text := fmt.Sprintf("%s %s: agent running for %s", lr.run.Spec, lr.run.Task, took)
		if lr.last != "" {
			text += "; last output: " + lr.last
		}
		b.plain(slog.LevelInfo, text, "agent progress", "spec", lr.run.Spec, "task", lr.run.Task, "elapsed", took, "last", lr.last)
	}
}

func (b *progressBoard) sorted() []*liveRun {
	out := make([]*liveRun, 0, len(b.runs))
	for _, lr := range b.runs {
		out = append(out, lr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].run.Key() < out[j].run.Key() })
	return out
}

// clearLocked moves the cursor to the live block's first line and clears
// the screen from there.
func (b *progressBoard) clearLocked() {
	if b.drawn > 0 {
		fmt.Fprintf(b.w, "\x1b[%dF\x1b[J", b.drawn)
		b.drawn, b.shown = 0, ""
	}
}

// drawLocked replaces the live block with one line per running agent.
func (b *progressBoard) drawLocked() {
	var buf strings.Builder
	width := 80
	if b.width != nil {
		if w := b.width(); w > 20 {
			width = w
		}
	}
	now := b.now()
	runs := b.sorted()
	for _, lr := range runs {
		line := fmt.Sprintf("⏵ %s %s  %s", lr.run.Spec, lr.run.Task, elapsed(now.Sub(lr.run.Started)))
		if lr.last != "" {
			line += "  " + lr.last
		}
		buf.WriteString(cut(line, width-1))
		buf.WriteString("\n")
	}
	b.dirty = false
	if buf.String() == b.shown && len(runs) == b.drawn {
		return
	}
	if b.drawn > 0 {
		fmt.Fprintf(b.w, "\x1b[%dF\x1b[J", b.drawn)
	}
	b.drawn, b.shown = len(runs), buf.String()
	_, _ = io.WriteString(b.w, b.shown)
}

// elapsed is d to the second: 5s, 1m05s, 1h02m03s.
func elapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

// cut shortens s to n runes, ending in … when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// progress returns what the command executor reports runs to: the board
// (unless --quiet) — at a terminal (standard error, no -v stream, text
// logs) the live block, elsewhere plain lines — and the dashboard's live
// view under daemon --listen.
func (a *app) progress() agent.Progress {
	var ps progresses
	if a.live != nil {
		ps = append(ps, a.live)
	}
	if !a.quiet {
		if a.board == nil {
			tty := a.io.ErrTTY && !a.verbose && !a.jsonLogs()
			a.board = newProgressBoard(a.io.Err, tty, a.io.ErrWidth, time.Now, a.narrate)
			a.board.start()
		}
		ps = append(ps, a.board)
	}
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0]
	}
	return ps
}

// progresses tells each of its Progresses, in order.
type progresses []agent.Progress

func (ps progresses) Started(r agent.Run) {
	for _, p := range ps {
		p.Started(r)
	}
}

func (ps progresses) Output(r agent.Run, line string) {
	for _, p := range ps {
		p.Output(r, line)
	}
}

func (ps progresses) Finished(r agent.Run) {
	for _, p := range ps {
		p.Finished(r)
	}
}

// closeProgress stops the board, clearing the live block.
func (a *app) closeProgress() {
	if a.board != nil {
		a.board.close()
		a.board = nil
	}
}
