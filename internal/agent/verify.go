package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gallivant/gallivant/evidence"
	"github.com/gallivant/gallivant/specs"
)

// VerifyResult is what running a spec's Verify commands on a head found.
type VerifyResult struct {
	// Head is the commit the checkout was at.
	Head   string
	Passed bool
	// Command is the first command that failed; Tail the last lines of
	// its output.
	Command, Tail string
	// Log is the path of the kept log.
	Log string
	// Runs are the replays of evidence commands, in order, up to and
	// including the first that failed or selected no test.
	Runs []Replay
	// OverBudget is set when the evidence replay spent ReplayBudget:
	// NotRun are then the replay commands that did not finish, in order,
	// the one the budget stopped first. Passed is false.
	OverBudget bool
	NotRun     []string
	// Budget is the ReplayBudget that was spent, when OverBudget.
	Budget time.Duration
	// Unsupported is set by an executor that holds no checkout to verify
	// in (Placement other than Local): nothing ran, and Passed is false.
	Unsupported bool
}

// Replay is one run of an evidence command by gallivant.
type Replay struct {
	Command   string
	Exit      int
	Selection evidence.Selection
	Duration  time.Duration
}

// maxCapture bounds the output kept to read a runner's selection from; a
// runner's counts are at its output's end (and go test's per-package lines
// fit many times over).
const maxCapture = 1 << 20

// tailLines and maxTailLine bound how much of a failing command's output
// is kept.
const (
	tailLines   = 20
	maxTailLine = 400
)

// Verify runs commands, one after another, in a fresh checkout of the work
// branch, as the agent runs: with the agent's environment and user, never
// the credential, each bounded by Timeout. Then it replays the evidence
// commands the same way, recording each run; a replay fails when it exits
// non-zero or its runner reports that it selected no test (package
// evidence). The first failure ends the run.
func (e CommandExecutor) Verify(ctx context.Context, t Task, commands, replay []string) (VerifyResult, error) {
	e, err := e.withToken(ctx)
	if err != nil {
		return VerifyResult{}, err
	}
	dir := e.checkoutDir(t)
	// The run that just returned may still be letting go of the lock (its
	// session is being ended), so wait as a dispatch does rather than
	// report a busy checkout for a moment's overlap.
	lock, err := lockCheckoutWait(dir)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("%s: %w", dir, err)
	}
	defer releaseCheckout(lock)
	logPath := filepath.Join(e.WorkDir, "logs", specs.Stem(t.Spec)+"-verify.log")
	res := VerifyResult{Log: logPath}
	cred, home, err := e.credential()
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return res, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return res, err
	}
	defer logf.Close()
	var out Outcome
	head, err := e.prepareOrRepair(ctx, e.git(e.mirrorDir(t), logf), e.mirrorDir(t), dir, t, cred, &out)
	if err != nil {
		return res, fmt.Errorf("prepare the checkout: %w", err)
	}
	res.Head = head
	env := e.agentEnv(home)
	run := func(c, what string, budget context.Context) (exit int, tail string, out string, took time.Duration, err error) {
		fmt.Fprintf(logf, "# gallivant: %s %s at %s: %s\n", what, t.Spec, short(head), c)
		var tb tailBuffer
		var capture lastBytes
		runCtx, cancel := context.WithTimeout(budget, e.Timeout)
		defer cancel()
		cmd := agentCommand(runCtx, dir, env, cred, io.MultiWriter(logf, &tb, &capture), "sh", "-c", c)
		start := time.Now()
		rerr := runAgentProcess(cmd, cred, nil)
		took = time.Since(start)
		if ctx.Err() != nil {
			return 0, "", "", took, ctx.Err()
		}
		tail = tb.String()
		if rerr != nil {
			exit = -1
			var xe *exec.ExitError
			if errors.As(rerr, &xe) && xe.ExitCode() >= 0 {
				exit = xe.ExitCode()
			}
			if budget.Err() != nil {
				tail += fmt.Sprintf("\n(stopped when executor.replay_budget, %s, was spent)", e.ReplayBudget)
			} else if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
				tail += fmt.Sprintf("\n(stopped after executor.timeout, %s)", e.Timeout)
			}
		}
		return exit, tail, capture.String(), took, nil
	}
	for _, c := range commands {
		exit, tail, _, _, err := run(c, "verify", ctx)
		if err != nil {
			return res, err
		}
		if exit != 0 {
			res.Command, res.Tail = c, tail
			return res, nil
		}
	}
	budget, cancelBudget := e.replayBudget(ctx)
	defer cancelBudget()
	for i, c := range replay {
		if ctx.Err() == nil && budget.Err() != nil {
			return e.overBudget(res, logf, replay[i:]), nil
		}
		exit, tail, out, took, err := run(c, "replay evidence of", budget)
		if err != nil {
			return res, err
		}
		if ctx.Err() == nil && budget.Err() != nil {
			// The budget ran out while c ran: its result is no proof.
			return e.overBudget(res, logf, replay[i:]), nil
		}
		sel := evidence.Read(c, out)
		if exit < 0 {
			exit = 255
		}
		res.Runs = append(res.Runs, Replay{Command: c, Exit: exit, Selection: sel, Duration: took})
		if exit != 0 || sel.Nothing() {
			res.Command = c
			res.Tail = fmt.Sprintf("(gallivant replayed the evidence command: exit status %d, %s)", exit, sel)
			if why := sel.Why(); why != "" {
				res.Tail += "\n(" + why + ")"
			}
			res.Tail += "\n" + tail
			return res, nil
		}
	}
	res.Passed = true
	return res, nil
}

// lastBytes keeps the last maxCapture bytes written to it.
type lastBytes struct{ b []byte }

func (l *lastBytes) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if over := len(l.b) - maxCapture; over > 0 {
		l.b = append(l.b[:0], l.b[over:]...)
	}
	return len(p), nil
}

func (l *lastBytes) String() string { return string(l.b) }

// tailBuffer keeps the last tailLines lines written to it; a line longer
// than maxTailLine keeps its end only, so output without newlines cannot
// grow it without bound.
type tailBuffer struct {
	lines []string
	part  string
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	s := b.part + string(p)
	parts := strings.Split(s, "\n")
	b.part = parts[len(parts)-1]
	if len(b.part) > maxTailLine {
		b.part = b.part[len(b.part)-maxTailLine:]
	}
	for _, line := range parts[:len(parts)-1] {
		if len(line) > maxTailLine {
			line = line[len(line)-maxTailLine:]
		}
		b.lines = append(b.lines, line)
	}
	if len(b.lines) > tailLines {
		b.lines = b.lines[len(b.lines)-tailLines:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	lines := b.lines
	if b.part != "" {
		lines = append(append([]string(nil), lines...), b.part)
	}
	return strings.Join(lines, "\n")
}
