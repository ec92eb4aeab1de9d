package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/spf13/cobra"
)

type reconcileOptions struct {
	Control string
	DryRun  bool
	Format  string
	// Shard is --shard i/n; "" runs every entry.
	Shard string
}

func (a *app) newReconcileCmd() *cobra.Command {
	opts := &reconcileOptions{}
	cmd := &cobra.Command{
		Use:   "reconcile [--control PATH|URL] [--dry-run] [--shard i/n]",
		Short: "Run one reconcile pass: observe, perform the due transitions, commit them",
		Long: `reconcile reads the control repository at its control branch head, observes
GitHub and the work branches, performs the transitions that are due and
commits each as a loop: commit, pushed with compare-and-swap.

--control is a local checkout (the current directory by default) or a URL.
A remote control repository is cloned into the cache ($GALLIVANT_CACHE or
the user cache directory). The GitHub token comes from github.token_env
(GITHUB_TOKEN by default) or GH_TOKEN.

Exit status: 0 when the pass ran, even if entries stopped; 1 when it ran
but an entry hit a problem it could not record as a stop; 2 when it could
not run (credentials rejected, GitHub or the control remote unreachable,
invalid configuration) or for a usage error.

The first SIGINT or SIGTERM lets a running agent finish (at most
executor.timeout) and starts no new one; a second ends the agent, whose
dispatch the next pass settles or re-runs at once, and exits 2.`,
		Example: `  gallivant reconcile
  gallivant reconcile --dry-run
  gallivant reconcile --control https://github.com/acme/control.git --format json
  gallivant reconcile --shard 2/3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode := performed
			if opts.DryRun {
				mode = wouldPerform
			}
			return a.reconcileRun(cmd, opts, mode)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "plan the pass without committing, pushing, writing to GitHub or running agents")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&opts.Shard, "shard", "", "handle only shard i of n (i/n, such as 1/3): parallel jobs split the entries by a stable hash, a chain always in one shard")
	return cmd
}

func (a *app) newDiffCmd() *cobra.Command {
	opts := &reconcileOptions{DryRun: true}
	cmd := &cobra.Command{
		Use:   "diff [--control PATH|URL]",
		Short: "Print the transitions a pass would perform",
		Long: `diff plans a reconcile pass without applying anything, like flux diff, and
prints the transitions that are due.

Exit status is reconcile's: 0 when the pass could be planned (due
transitions or not), 1 when an entry hit a problem, 2 when it could not run.`,
		Example: `  gallivant diff
  gallivant diff --format json | jq '.transitions | length'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.reconcileRun(cmd, opts, due)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// outcome is how a pass's transitions are worded in its summary line.
type outcome string

const (
	performed    outcome = "performed"     // committed and pushed
	wouldPerform outcome = "would perform" // --dry-run
	due          outcome = "due"           // diff
	unrecorded   outcome = "unrecorded"    // planned, but the push failed
)

// reconcileRun runs one pass; mode is performed, wouldPerform or due.
func (a *app) reconcileRun(cmd *cobra.Command, opts *reconcileOptions, mode outcome) error {
	if opts.Format != "text" && opts.Format != "json" {
		return usageError("--format must be text or json, got %q", opts.Format)
	}
	var shard reconcile.Shard
	if opts.Shard != "" {
		var err error
		if shard, err = reconcile.ParseShard(opts.Shard); err != nil {
			return usageError("--shard: %v", err)
		}
	}
	w, err := a.reconciler(cmd.Context(), opts.Control, opts.DryRun)
	if err != nil {
		return err
	}
	w.SetShard(shard)
	rep, in, err := interruptible(cmd.Context(), a.listenInterrupt, w.Drain, a.io.Err, w.Pass)
	a.closeProgress()
	if rep != nil {
		a.printReport(rep, opts.Format, a.wording(w, rep, mode))
		if a.env("GITHUB_ACTIONS") == "true" && mode != due {
			a.actionsAfterPass(cmd.Context(), w.store, a.shownReport(w, rep, mode))
		}
	}
	if mode == performed && rep != nil {
		a.deliverNotifications(cmd.Context(), w.Reconciler, a.logger())
	}
	return interruptExit(a.io.Err, in, rep, err, w.tokenVar)
}

// wording returns the outcome of a finished pass: a pass that was to apply
// and recorded nothing (its first push failed, or it stopped before
// pushing) must not call anything performed.
func (a *app) wording(w *wired, rep *reconcile.Report, mode outcome) outcome {
	if mode == performed && rep != nil && len(rep.Transitions) == 0 && (len(rep.Unrecorded) > 0 || w.store.Unpushed()) {
		return unrecorded
	}
	return mode
}

// printReport prints a pass's transitions on stdout and its narration on
// stderr; in GitHub Actions it also writes annotations and a job summary.
// On a terminal transitions are aligned columns; otherwise one
// tab-separated line each, for scripts.
func (a *app) printReport(rep *reconcile.Report, format string, mode outcome) {
	shown := rep
	if len(rep.Uncommitted) > 0 {
		a.narrate(slog.LevelWarn, fmt.Sprintf("not seen (uncommitted; commit them to make them count): %s", strings.Join(rep.Uncommitted, ", ")),
			"not seen", "files", rep.Uncommitted)
	}
	// What the pass committed but could not push is not on the control
	// branch: it is listed as not recorded, never printed as performed.
	for _, t := range rep.Unrecorded {
		a.narrate(slog.LevelWarn, fmt.Sprintf("%s: not recorded: %s", t.Spec, t.Subject), "not recorded", "spec", t.Spec, "subject", t.Subject)
	}
	if mode == unrecorded {
		cp := *rep
		for _, t := range rep.Transitions {
			a.narrate(slog.LevelWarn, fmt.Sprintf("%s: not recorded: %s", t.Spec, t.Subject), "not recorded", "spec", t.Spec, "subject", t.Subject)
		}
		cp.Transitions = []reconcile.Transition{}
		shown = &cp
	}
	if format == "json" {
		_ = a.encodeJSON(jsonReport(shown))
	} else if a.io.TTY {
		tw := tabwriter.NewWriter(a.io.Out, 0, 0, 2, ' ', 0)
		for _, t := range shown.Transitions {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Spec, t.Subject, t.Sentence)
		}
		_ = tw.Flush()
	} else {
		for _, t := range shown.Transitions {
			fmt.Fprintf(a.io.Out, "%s\t%s\t%s\n", t.Spec, t.Subject, t.Sentence)
		}
	}
	for _, n := range rep.Notes {
		kind, level := "waiting", slog.LevelInfo
		if n.Problem {
			kind, level = "problem", slog.LevelWarn
		}
		a.narrate(level, fmt.Sprintf("%s: %s: %s", n.Spec, kind, n.Message), kind, "spec", n.Spec, "message", n.Message)
	}
	for _, rf := range rep.Refusals {
		a.narrate(slog.LevelWarn, fmt.Sprintf("%s: request %q not performed: %s", rf.Ledger, rf.Request, rf.Reason),
			"request not performed", "ledger", rf.Ledger, "request", rf.Request, "reason", rf.Reason)
	}
	if errs := rep.Diagnostics.Count(parse.SeverityError); errs > 0 {
		files := map[string]bool{}
		for _, d := range rep.Diagnostics {
			if d.Severity == parse.SeverityError {
				files[d.File] = true
			}
		}
		verb := "have"
		if len(files) == 1 {
			verb = "has"
		}
		a.narrate(slog.LevelWarn, fmt.Sprintf("%s %s %s; run gallivant check", plural(len(files), "document", "documents"), verb, plural(errs, "error", "errors")),
			"documents have errors", "documents", len(files), "errors", errs)
	}
	n := len(rep.Transitions)
	if mode == unrecorded {
		n += len(rep.Unrecorded)
	}
	a.narrate(slog.LevelInfo, summaryLine(rep.Control, n, mode), "pass summary", "control", rep.Control, "transitions", n, "outcome", strings.ReplaceAll(string(mode), " ", "-"))
	if line := requestsLine(rep.Requests); line != "" {
		a.narrate(slog.LevelInfo, line, "github requests", requestsAttrs(rep.Requests)...)
	}
	if a.env("GITHUB_ACTIONS") == "true" {
		a.actions(shown)
	}
}

// shownReport is rep as printed: a pass that recorded nothing lists no
// transition as performed.
func (a *app) shownReport(w *wired, rep *reconcile.Report, mode outcome) *reconcile.Report {
	if a.wording(w, rep, mode) != unrecorded {
		return rep
	}
	cp := *rep
	cp.Transitions = []reconcile.Transition{}
	return &cp
}

// jsonReport returns rep with every list present: scripts read [] for
// nothing, never null.
func jsonReport(rep *reconcile.Report) *reconcile.Report {
	cp := *rep
	if cp.Transitions == nil {
		cp.Transitions = []reconcile.Transition{}
	}
	if cp.Refusals == nil {
		cp.Refusals = []reconcile.Refusal{}
	}
	if cp.Notes == nil {
		cp.Notes = []reconcile.Note{}
	}
	if cp.Decisions == nil {
		cp.Decisions = []reconcile.Decision{}
	}
	if cp.Diagnostics == nil {
		cp.Diagnostics = parse.Diagnostics{}
	}
	return &cp
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// actions writes GitHub Actions annotations and a markdown job summary.
func (a *app) actions(rep *reconcile.Report) {
	var ds parse.Diagnostics
	for _, d := range rep.Diagnostics {
		if d.Severity != parse.SeverityInfo {
			ds = append(ds, d)
		}
	}
	for _, n := range rep.Notes {
		if n.Problem {
			ds = append(ds, parse.Diagnostic{File: n.Spec, Line: 1, Col: 1, Severity: parse.SeverityWarning, Rule: "reconcile/problem", Message: n.Message})
		}
	}
	for _, rf := range rep.Refusals {
		ds = append(ds, parse.Diagnostic{File: rf.Ledger, Line: 1, Col: 1, Severity: parse.SeverityWarning, Rule: "reconcile/request-refused", Message: fmt.Sprintf("%q: %s", rf.Request, rf.Reason)})
	}
	ds.Sort()
	_ = ds.WriteGitHub(a.io.Out)
	path := a.env("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		a.narrate(slog.LevelError, fmt.Sprintf("gallivant: cannot write the job summary: %v", err), "job summary not written", "error", err.Error())
		return
	}
	defer f.Close()
	writeSummary(f, rep)
}

func writeSummary(w io.Writer, rep *reconcile.Report) {
	fmt.Fprintf(w, "## gallivant reconcile at `%s`\n\n", shortSHA(rep.Control))
	if len(rep.Transitions) == 0 {
		fmt.Fprintln(w, "No transition was due.")
	} else {
		fmt.Fprintln(w, "| spec | transition | what happened |\n|---|---|---|")
		for _, t := range rep.Transitions {
			fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", t.Spec, t.Subject, mdCell(t.Sentence))
		}
	}
	if len(rep.Notes) > 0 {
		fmt.Fprint(w, "\n### Waiting and problems\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "- `%s`: %s\n", n.Spec, mdCell(n.Message))
		}
	}
	if len(rep.Refusals) > 0 {
		fmt.Fprint(w, "\n### Requests not performed\n\n")
		for _, rf := range rep.Refusals {
			fmt.Fprintf(w, "- `%s`: `%s`: %s\n", rf.Ledger, strings.ReplaceAll(rf.Request, "`", "'"), mdCell(rf.Reason))
		}
	}
	if line := requestsLine(rep.Requests); line != "" {
		fmt.Fprintf(w, "\n%s\n", line)
	}
}

// mdCell keeps untrusted text inert inside a markdown table or list.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}
