package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/spf13/cobra"
)

type reconcileOptions struct {
	Control string
	DryRun  bool
	Format  string
}

func (a *app) newReconcileCmd() *cobra.Command {
	opts := &reconcileOptions{}
	cmd := &cobra.Command{
		Use:   "reconcile [--control PATH|URL] [--dry-run]",
		Short: "Run one reconcile pass: observe, perform the due transitions, commit them",
		Long: `reconcile reads the control repository at its control branch head, observes
GitHub and the work branches, performs the transitions that are due and
commits each as a loop: commit, pushed with compare-and-swap.

--control is a local checkout (the current directory by default) or a URL.
A remote control repository is cloned into the cache ($GALLIVANT_CACHE or
the user cache directory). The GitHub token comes from github.token_env
(GITHUB_TOKEN by default) or GH_TOKEN.

Exit status: 0 when the pass ran, even if entries stopped; 1 when it could
not complete; 2 for usage errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.reconcileRun(cmd, opts, false)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "plan the pass without committing, pushing, writing to GitHub or running agents")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func (a *app) newDiffCmd() *cobra.Command {
	opts := &reconcileOptions{DryRun: true}
	cmd := &cobra.Command{
		Use:   "diff [--control PATH|URL]",
		Short: "Print the transitions a pass would perform",
		Long: `diff plans a reconcile pass without applying anything, like flux diff, and
prints the transitions that are due.

Exit status: 0 when nothing is due, 1 when transitions are due, 2 on error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.reconcileRun(cmd, opts, true)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func (a *app) reconcileRun(cmd *cobra.Command, opts *reconcileOptions, diff bool) error {
	if opts.Format != "text" && opts.Format != "json" {
		return usageError("--format must be text or json, got %q", opts.Format)
	}
	failed := exitFindings
	if diff {
		failed = exitUsage
	}
	r, _, err := a.reconciler(cmd.Context(), opts.Control, opts.DryRun)
	if err != nil {
		var ee *exitError
		if diff && asExit(err, &ee) {
			ee.code = exitUsage
		}
		return err
	}
	rep, err := r.Pass(cmd.Context())
	if rep != nil {
		a.printReport(rep, opts.Format, diff)
	}
	if err != nil {
		return &exitError{code: failed, err: err}
	}
	if diff && len(rep.Transitions) > 0 {
		return silent(exitFindings)
	}
	return nil
}

func asExit(err error, ee **exitError) bool {
	e, ok := err.(*exitError)
	if ok {
		*ee = e
	}
	return ok
}

// printReport prints a pass's transitions on stdout and its narration on
// stderr; in GitHub Actions it also writes annotations and a job summary.
func (a *app) printReport(rep *reconcile.Report, format string, diff bool) {
	if format == "json" {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		for _, t := range rep.Transitions {
			fmt.Fprintf(a.io.Out, "%s\t%s\t%s\n", t.Spec, t.Subject, t.Sentence)
		}
	}
	for _, n := range rep.Notes {
		kind := "waiting"
		if n.Problem {
			kind = "problem"
		}
		fmt.Fprintf(a.io.Err, "%s: %s: %s\n", n.Spec, kind, n.Message)
	}
	for _, rf := range rep.Refusals {
		fmt.Fprintf(a.io.Err, "%s: request %q not performed: %s\n", rf.Ledger, rf.Request, rf.Reason)
	}
	errs := rep.Diagnostics.Count(parse.SeverityError)
	if errs > 0 {
		fmt.Fprintf(a.io.Err, "%d documents have errors; run gallivant check\n", errs)
	}
	verb := "performed"
	if diff {
		verb = "due"
	}
	fmt.Fprintf(a.io.Err, "control %s: %d transitions %s\n", shortSHA(rep.Control), len(rep.Transitions), verb)
	if a.env("GITHUB_ACTIONS") == "true" {
		a.actions(rep)
	}
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
		fmt.Fprintf(a.io.Err, "gallivant: cannot write the job summary: %v\n", err)
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
}

// mdCell keeps untrusted text inert inside a markdown table or list.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}
