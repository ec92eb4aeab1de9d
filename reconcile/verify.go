package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
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

// verifier is implemented by executors that hold a checkout and can run the
// spec's Verify commands in it (exit verification, L-104).
type verifier interface {
	Verify(ctx context.Context, t Task, commands []string) (VerifyResult, error)
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
		err := cmd.Run()
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

// verify applies exit verification before the pull request opens (L-104,
// L-105): the head is verified once; a failure dispatches one repair; a
// failure after it stops verify-failed. ok is true when the pull request
// may open.
func (p *passState) verify(ctx context.Context, e *entry, repo, branch, head string) (res stepResult, ok bool, err error) {
	v, isVerifier := p.Executor.(verifier)
	if !isVerifier || !p.cfg.Executor.Verify || e.l.Verification == "" || e.l.Verification == "none" || e.spec.Coordinated() {
		return finished, true, nil
	}
	if p.DryRun {
		if last, done := gatekeep.VerifiedAt(e.l); done && last.Head == head && last.Passed {
			return finished, true, nil
		}
		return waitFor("would run the verification `%s` on %s", e.l.Verification, short(head)), false, nil
	}
	last, done := gatekeep.VerifiedAt(e.l)
	repair := e.l.Delivery.Get(ledger.KeyVerifyRepair)
	switch {
	case done && last.Head == head && last.Passed:
		return finished, true, nil
	case done && last.Head == head && repair == head:
		// The repair answered nothing: the same head is still failing.
		if dt := e.l.Delivery.Time(ledger.KeyDispatchedAt); !dt.IsZero() {
			if _, ran := p.outcomes[verifyKey(e.ledgerPath)]; !ran && p.inFlight(dt) {
				return waitFor("waiting for the verification repair of %s (dispatched %s)", e.specPath, dt.Format(time.RFC3339)), false, nil
			}
		}
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification still fails on %s after one repair: `%s` (see the loop: verify commit for its output)", short(head), last.Command))
	case done && last.Head == head:
		return p.repairVerification(ctx, e, repo, branch, head, last)
	}
	t := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: e.spec.Base, DefaultBranch: e.spec.Base, Iteration: e.l.Iterations}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	r, err := v.Verify(ctx, t, e.spec.Verify)
	if err != nil {
		return progressed, false, err
	}
	if r.Head != head {
		// The branch moved while the checkout was made; verify again.
		return progressed, false, nil
	}
	n, c := gatekeep.Verified(e.l, head, r.Passed, r.Command, r.Tail)
	if p.tails == nil {
		p.tails = map[string]string{}
	}
	p.tails[e.ledgerPath] = r.Tail
	return progressed, false, p.apply(e, n, c)
}

func verifyKey(ledgerPath string) string { return ledgerPath + "|verify" }

// repairVerification dispatches the one verification repair (write-ahead),
// then runs the agent with a brief that quotes the failing command and the
// tail of its output.
func (p *passState) repairVerification(ctx context.Context, e *entry, repo, branch, head string, last gatekeep.Verification) (stepResult, bool, error) {
	if e.l.Delivery.Get(ledger.KeyVerifyRepair) != "" {
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification fails on %s: `%s`, and its one repair is spent", short(head), last.Command))
	}
	n, c := gatekeep.VerifyRepairStarted(e.l, head, p.clock())
	if err := p.apply(e, n, c); err != nil {
		return progressed, false, err
	}
	if err := p.push(ctx); err != nil {
		return progressed, false, err
	}
	brief := gatekeep.VerifyBrief(gatekeep.VerifyBriefInput{Spec: e.specPath, Title: e.spec.Title, LedgerPath: e.ledgerPath, Repo: repo, Branch: branch,
		Head: head, Command: last.Command, Tail: p.tailOf(e)})
	t := Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: head, Iteration: e.l.Iterations, Brief: brief, DefaultBranch: e.spec.Base}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	out, err := p.Executor.Run(ctx, t)
	p.moved(t.Repo, t.Branch)
	if err != nil {
		return progressed, false, err
	}
	p.outcomes[verifyKey(e.ledgerPath)] = out
	return progressed, false, nil
}

// tailOf is the failing verification's output tail this pass saw; after a
// restart it is only in the loop: verify commit.
func (p *passState) tailOf(e *entry) string {
	if t, ok := p.tails[e.ledgerPath]; ok {
		return t
	}
	return "(the output is in the loop: verify commit of the control repository)"
}
