package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	Control string
	Format  string
}

func (a *app) snapshot(cmd *cobra.Command, control string) (*reconcile.Snapshot, *reconcile.Store, error) {
	st, err := a.openStore(cmd.Context(), control)
	if err != nil {
		return nil, nil, err
	}
	snap, err := reconcile.Load(cmd.Context(), st)
	if err != nil {
		return nil, nil, &exitError{code: exitFindings, err: err}
	}
	return snap, st, nil
}

// resolveSpec opens the control repository and resolves a SPEC argument
// (a spec path, a ledger path or a spec's file name).
func (a *app) resolveSpec(cmd *cobra.Command, control, arg string) (*reconcile.Snapshot, *reconcile.Store, string, error) {
	snap, st, err := a.snapshot(cmd, control)
	if err != nil {
		return nil, nil, "", err
	}
	sp, err := snap.Resolve(arg)
	if err != nil {
		return nil, nil, "", usageError("%v", err)
	}
	return snap, st, sp, nil
}

func (a *app) newStatusCmd() *cobra.Command {
	opts := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status [SPEC] [--format text|json]",
		Short: "Show each spec's phase, rows, stop and requests",
		Long: `status reads the control branch head (no GitHub access) and shows, per spec,
its phase, its rows (✓ done, ✗ failed, ○ open, ⊘ cut, → pending), the stop
reason with the requests that clear it, and requests that are not accepted.

SPEC is a spec path, a ledger path or a spec's file name.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "text" && opts.Format != "json" {
				return usageError("--format must be text or json, got %q", opts.Format)
			}
			snap, _, err := a.snapshot(cmd, opts.Control)
			if err != nil {
				return err
			}
			var out []reconcile.EntryStatus
			if len(args) == 1 {
				sp, err := snap.Resolve(args[0])
				if err != nil {
					return usageError("%v", err)
				}
				out = append(out, snap.Status(sp))
			} else {
				out = snap.Statuses()
			}
			if opts.Format == "json" {
				if out == nil {
					out = []reconcile.EntryStatus{}
				}
				enc := json.NewEncoder(a.io.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			for _, es := range out {
				a.printStatus(es)
			}
			chains(a, snap)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func (a *app) printStatus(es reconcile.EntryStatus) {
	rows := ""
	if es.Rows.Total > 0 {
		rows = fmt.Sprintf("  %s  %d/%d done", es.Glyphs, es.Rows.Done, es.Rows.Total-es.Rows.Cut)
	}
	status := ""
	if es.Status != string(specs.StatusActive) {
		status = " (" + es.Status + ")"
	}
	fmt.Fprintf(a.io.Out, "%s%s  %s%s", es.Spec, status, es.Phase, rows)
	if es.PR != "" {
		fmt.Fprintf(a.io.Out, "  %s", es.PR)
	}
	fmt.Fprintln(a.io.Out)
	if es.Pending != "" {
		fmt.Fprintf(a.io.Out, "  pending: %s\n", es.Pending)
	}
	if es.Stop != nil {
		fmt.Fprintf(a.io.Out, "  stopped: %s: %s\n", es.Stop.Reason, es.Stop.Detail)
		if len(es.Stop.Clear) > 0 {
			fmt.Fprintf(a.io.Out, "  cleared by: %s\n", strings.Join(es.Stop.Clear, " or "))
		}
	}
	for _, r := range es.Requests {
		if r.State != "accepted" {
			fmt.Fprintf(a.io.Out, "  request %q %s: %s\n", r.Line, r.State, r.Why)
		}
	}
	if es.Problem != "" {
		fmt.Fprintf(a.io.Out, "  problem: %s\n", es.Problem)
	}
}

// chains prints each chain's progress.
func chains(a *app, snap *reconcile.Snapshot) {
	for _, c := range snap.Repo.Chains {
		var parts []string
		for k, m := range c.Milestones {
			phase := "not seeded"
			if l := snap.Repo.Ledgers[m.Path]; l != nil {
				phase = string(l.Phase())
				if r, _, stopped := l.Stop(); stopped {
					phase = "stopped " + string(r)
				}
			}
			parts = append(parts, fmt.Sprintf("%d. %s (%s)", k+1, m.Path, phase))
		}
		fmt.Fprintf(a.io.Out, "chain %s (%s): %s\n", c.Path, c.Status, strings.Join(parts, ", "))
	}
}

func (a *app) newWhyCmd() *cobra.Command {
	var control string
	cmd := &cobra.Command{
		Use:   "why SPEC",
		Short: "Explain what a spec's entry is doing, what it waits for and what comes next",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, _, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			for _, line := range snap.Explain(sp) {
				fmt.Fprintln(a.io.Out, line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	return cmd
}

func (a *app) newLogCmd() *cobra.Command {
	var control string
	var limit int
	cmd := &cobra.Command{
		Use:   "log SPEC",
		Short: "Show a spec's loop: history from git, one line per transition",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, st, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			lp := snap.Repo.LedgerPaths[sp]
			if lp == "" {
				lp = snap.Config.LedgerPath(sp)
			}
			entries, err := st.Log(lp, limit)
			if err != nil {
				return &exitError{code: exitFindings, err: err}
			}
			for i := len(entries) - 1; i >= 0; i-- {
				e := entries[i]
				if !strings.HasPrefix(e.Subject, "loop:") {
					continue
				}
				var trailers []string
				for _, line := range strings.Split(e.Message, "\n") {
					if strings.HasPrefix(line, "Gallivant-") && !strings.HasPrefix(line, ledger.TrailerSpec+":") {
						k, v, _ := strings.Cut(line, ": ")
						trailers = append(trailers, strings.TrimPrefix(k, "Gallivant-")+"="+shortTrailer(v))
					}
				}
				fmt.Fprintf(a.io.Out, "%s %s %s", shortSHA(e.SHA), e.When.UTC().Format("2006-01-02 15:04"), e.Subject)
				if len(trailers) > 0 {
					fmt.Fprintf(a.io.Out, "  [%s]", strings.Join(trailers, " "))
				}
				fmt.Fprintln(a.io.Out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().IntVar(&limit, "limit", 0, "show at most this many commits (0 for all)")
	return cmd
}

func shortTrailer(v string) string {
	if len(v) == 40 && strings.Trim(v, "0123456789abcdef") == "" {
		return v[:7]
	}
	return v
}

func (a *app) newTaskCmd() *cobra.Command {
	var control string
	cmd := &cobra.Command{
		Use:   "task SPEC",
		Short: "Print the outstanding task brief of a spec",
		Long: `task prints the task brief of a spec's outstanding dispatch, the same
document the command executor hands its agent. An agent run by the none or
workflow executor reads it here. Exit status 1 when no dispatch is outstanding.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, _, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			l, spec := snap.Repo.Ledgers[sp], snap.Repo.Specs[sp]
			if l == nil || l.Pending == nil || spec == nil {
				return &exitError{code: exitFindings, err: fmt.Errorf("%s has no outstanding dispatch", sp)}
			}
			repo, _ := spec.MemberRepo(l.Pending.Member)
			brief, err := ledger.Brief(ledger.BriefInput{Ledger: l, Spec: spec, LedgerPath: snap.Repo.LedgerPaths[sp], Repo: repo,
				Branch: l.WorkBranch(), Model: l.Delivery.Get(ledger.KeyModel), Plan: snap.Repo.PlanPathFor(sp)})
			if err != nil {
				return &exitError{code: exitFindings, err: err}
			}
			_, err = fmt.Fprint(a.io.Out, brief)
			return err
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	return cmd
}

func loadSnapshot(ctx context.Context, st *reconcile.Store) (*reconcile.Snapshot, error) {
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		return nil, &exitError{code: exitFindings, err: err}
	}
	return snap, nil
}
