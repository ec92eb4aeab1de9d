package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/gallivant/gallivant/evidence"
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

// maxProveOutput bounds the output of one evidence command prove keeps to
// read the runner's selection from (the counts are at its end).
const maxProveOutput = 1 << 20

func (a *app) newProveCmd() *cobra.Command {
	var control, branch, leg, result string
	cmd := &cobra.Command{
		Use:   "prove [SPEC] --control DIR|URL [--branch NAME] [--leg NAME]",
		Short: "Replay a spec's done rows' evidence in this checkout (for CI's executor.proof_check)",
		Long: `prove runs, in the current directory — a checkout of the pull request's head,
as CI makes it — the evidence command of each done row of the spec's ledger
on the control branch head, exactly as gallivant replays it where it holds a
checkout: each command once for the rows that share it, under sh -c, bounded
by executor.timeout. A row is proved when its command exits 0 and, for a test
runner, the runner reports that it selected at least one test. It prints one
proof line a row and exits 0 when every done row is proved, 1 when one is
not, 2 when it cannot run.

With the workflow and none executors gallivant holds no checkout: a CI job
named as executor.proof_check runs prove, and the completion gate labels a
pull request ready only when that check succeeded on its head
(docs/verify.md). The job's success is the proof; prove writes nothing.

With --result FILE, prove also runs the spec's Verify commands and writes
the result gallivant admits from a prove dispatch of the workflow executor
(docs/verify.md "Proof through the workflow"): the head, each Verify
command's exit status and one proof line a row. The workflow pushes FILE as
gallivant-proof.txt to the branch gallivant-proof/<head>.

SPEC is a spec path, a ledger path or a spec's file name; without it, --branch
(default $GITHUB_HEAD_REF) names the work branch whose entry is proved. A
coordinated spec needs --leg, the leg whose repository this checkout is.`,
		Example: `  gallivant prove --control https://github.com/acme/control.git specs/greeting.md
  gallivant prove --control "$CONTROL_URL" --branch "$GITHUB_HEAD_REF"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if control == "" {
				return usageError("prove needs --control, the control repository (a path or URL)")
			}
			snap, _, err := a.snapshot(cmd, control)
			if err != nil {
				return err
			}
			sp, err := proveTarget(snap, args, branch)
			if err != nil {
				return err
			}
			l, spec := snap.Repo.Ledgers[sp], snap.Repo.Specs[sp]
			if l == nil || spec == nil {
				return &exitError{code: exitFindings, err: fmt.Errorf("%s has no ledger yet: nothing is claimed, so nothing is proved", sp)}
			}
			if spec.Coordinated() {
				if leg == "" {
					return usageError("%s is coordinated: name the leg whose repository this checkout is with --leg (one of %s)", sp, strings.Join(spec.Members(), ", "))
				}
				l = gatekeep.LegViewFor(l, spec, leg)
			}
			head, err := gitHead(cmd.Context())
			if err != nil {
				return &exitError{code: exitCannotRun, err: err}
			}
			var verify []string
			if result != "" {
				verify = proveVerify(spec, leg)
			}
			return a.prove(cmd.Context(), l, head, snap.Config.Executor.Timeout, verify, result)
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL")
	cmd.Flags().StringVar(&branch, "branch", a.env("GITHUB_HEAD_REF"), "the work branch whose entry is proved, when no SPEC is given")
	cmd.Flags().StringVar(&leg, "leg", "", "for a coordinated spec: the leg whose repository this checkout is")
	cmd.Flags().StringVar(&result, "result", "", "also run the Verify commands and write the prove result to this file (the workflow executor's prove dispatch)")
	return cmd
}

// proveTarget resolves the spec prove proves: SPEC, or the one entry whose
// work branch is branch.
func proveTarget(snap *reconcile.Snapshot, args []string, branch string) (string, error) {
	if len(args) == 1 {
		sp, err := snap.Resolve(args[0])
		if err != nil {
			return "", usageError("%v", err)
		}
		return sp, nil
	}
	if branch == "" {
		return "", usageError("prove needs SPEC, or --branch (default $GITHUB_HEAD_REF) naming the work branch")
	}
	var found []string
	for sp, l := range snap.Repo.Ledgers {
		if l.WorkBranch() == branch {
			found = append(found, sp)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		return "", &exitError{code: exitFindings, err: fmt.Errorf("no entry of the control repository works on the branch %q", branch)}
	case 1:
		return found[0], nil
	}
	return "", usageError("the branch %q is the work branch of %s; name the spec", branch, strings.Join(found, ", "))
}

// gitHead is the commit the current directory's checkout is at.
func gitHead(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("the current directory is no git checkout of the pull request's head: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// prove replays the done rows' evidence of l in the current directory and
// prints one proof line a row. With result set it first runs the Verify
// commands verify and writes the prove result there (writeProveResult).
func (a *app) prove(ctx context.Context, l *ledger.Ledger, head string, timeout time.Duration, verify []string, result string) error {
	checks := gatekeep.ReplayChecks(l, "")
	if len(checks) == 0 && result == "" {
		fmt.Fprintln(a.io.Out, "no done row: nothing is claimed, so nothing needs proof")
		return nil
	}
	failed, total := 0, len(checks)+len(verify)
	var lines []string
	for _, v := range verify {
		fmt.Fprintf(a.io.Err, "# gallivant prove: %s (Verify)\n", v)
		exit, _, _, err := proveRun(ctx, a.io.Err, v, timeout)
		if err != nil {
			return &exitError{code: exitCannotRun, err: err}
		}
		verdict := "passed"
		if exit != 0 {
			verdict, failed = fmt.Sprintf("FAILED: exit status %d", exit), failed+1
		}
		line := fmt.Sprintf("verify | exit %d | %s", exit, v)
		lines = append(lines, line)
		fmt.Fprintf(a.io.Out, "%s  %s\n", line, verdict)
	}
	for _, c := range checks {
		fmt.Fprintf(a.io.Err, "# gallivant prove: %s (%s)\n", c.Command, rowNames(c.Rows))
		exit, sel, took, err := proveRun(ctx, a.io.Err, c.Command, timeout)
		if err != nil {
			return &exitError{code: exitCannotRun, err: err}
		}
		verdict := "proved"
		switch {
		case exit != 0:
			verdict, failed = fmt.Sprintf("NOT PROVED: exit status %d", exit), failed+1
		case sel.Nothing():
			verdict, failed = "NOT PROVED: "+sel.Why(), failed+1
		}
		for _, row := range c.Rows {
			p := ledger.Proof{Row: row, Head: head, Exit: exit, Tests: sel.String(), Duration: took.Round(time.Millisecond), Command: c.Command}
			lines = append(lines, p.String())
			fmt.Fprintf(a.io.Out, "%s  %s\n", p, verdict)
		}
	}
	if result != "" {
		if err := writeProveResult(result, head, lines); err != nil {
			return &exitError{code: exitCannotRun, err: err}
		}
	}
	switch {
	case failed > 0 && len(verify) == 0:
		return &exitError{code: exitFindings, err: fmt.Errorf("%d of %d evidence commands did not prove their rows on %.7s", failed, total, head)}
	case failed > 0:
		return &exitError{code: exitFindings, err: fmt.Errorf("%d of %d commands (Verify and evidence) did not pass on %.7s", failed, total, head)}
	}
	return nil
}

// writeProveResult writes the prove result gatekeep.AdmitProveResult
// admits: the header, the head, then lines (the Verify runs, then one
// proof line a row).
func writeProveResult(path, head string, lines []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nhead %s\n", gatekeep.ProveHeader, head)
	for _, ln := range lines {
		b.WriteString(ln + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the prove result: %w", err)
	}
	return nil
}

// proveVerify are the Verify commands a prove result runs: the spec's, or
// for a leg of a coordinated spec, its verification.
func proveVerify(sp *specs.Spec, leg string) []string {
	if !sp.Coordinated() {
		return sp.Verify
	}
	for _, lg := range sp.Legs {
		if lg.Name == leg && lg.Verification != "" && lg.Verification != "none" {
			return []string{lg.Verification}
		}
	}
	return nil
}

// proveRun runs one evidence command under sh -c, its output going to
// standard error (the CI log) and, bounded, to the selection reader.
func proveRun(ctx context.Context, log io.Writer, command string, timeout time.Duration) (int, evidence.Selection, time.Duration, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out tailWriter
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	w := io.MultiWriter(log, &out)
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	exit := 0
	var xe *exec.ExitError
	switch {
	case errors.As(err, &xe):
		exit = xe.ExitCode()
		if exit < 0 {
			exit = 255
		}
	case err != nil:
		return 0, evidence.Selection{}, took, fmt.Errorf("run %q: %w", command, err)
	}
	return exit, evidence.Read(command, out.String()), took, nil
}

// tailWriter keeps the last maxProveOutput bytes written to it.
type tailWriter struct{ b bytes.Buffer }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.b.Write(p)
	if over := w.b.Len() - maxProveOutput; over > 0 {
		w.b.Next(over)
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return w.b.String() }

// rowNames names rows: `row 2`, `rows 2, 3`.
func rowNames(rows []int) string {
	ns := make([]string, len(rows))
	for i, r := range rows {
		ns[i] = fmt.Sprint(r)
	}
	if len(rows) == 1 {
		return "row " + ns[0]
	}
	return "rows " + strings.Join(ns, ", ")
}
