package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
}

// tailLines and maxTailLine bound how much of a failing command's output
// is kept.
const (
	tailLines   = 20
	maxTailLine = 400
)

// Verify runs commands, one after another, in a fresh checkout of the work
// branch, as the agent runs: with the agent's environment and user, never
// the credential, bounded by Timeout. The first failure ends the run.
func (e CommandExecutor) Verify(ctx context.Context, t Task, commands []string) (VerifyResult, error) {
	dir := e.checkoutDir(t)
	lock, err := lockCheckout(dir)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("%s: %w", dir, err)
	}
	defer lock.Close()
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
	env := e.agentEnv(os.Environ(), home)
	for _, c := range commands {
		fmt.Fprintf(logf, "# gallivant: verify %s at %s: %s\n", t.Spec, short(head), c)
		var tail tailBuffer
		runCtx, cancel := context.WithTimeout(ctx, e.Timeout)
		cmd := agentCommand(runCtx, dir, env, cred, io.MultiWriter(logf, &tail), "sh", "-c", c)
		err := runAgentProcess(cmd, cred, nil)
		timedOut := errors.Is(runCtx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			res.Command, res.Tail = c, tail.String()
			if timedOut {
				res.Tail += fmt.Sprintf("\n(stopped after executor.timeout, %s)", e.Timeout)
			}
			return res, nil
		}
	}
	res.Passed = true
	return res, nil
}

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
