package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	Control string
	Format  string
}

func (a *app) snapshot(cmd *cobra.Command, control string) (*reconcile.Snapshot, *store.Store, error) {
	st, err := a.openStore(cmd.Context(), control)
	if err != nil {
		return nil, nil, err
	}
	snap, err := reconcile.Load(cmd.Context(), st)
	if err != nil {
		return nil, nil, &exitError{code: exitCannotRun, err: err}
	}
	a.warnNoConfig(snap)
	return snap, st, nil
}

// resolveSpec opens the control repository and resolves a SPEC argument
// (a spec path, a ledger path or a spec's file name).
func (a *app) resolveSpec(cmd *cobra.Command, control, arg string) (*reconcile.Snapshot, *store.Store, string, error) {
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
its phase, its rows (✓ done, ✗ failed, ○ open, ⊘ cut, → pending), a planned
entry's waves of tasks (one line a wave, with the same glyphs), the stop
reason with the requests that clear it, and requests that are not accepted.

SPEC is a spec path, a ledger path or a spec's file name.`,
		Example: `  gallivant status
  gallivant status greeting
  gallivant status --format json | jq -r '.[] | select(.stop) | "\(.spec): \(.stop.clear | join(" or "))"'`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeSpecs(&opts.Control),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "text" && opts.Format != "json" {
				return usageError("--format must be text or json, got %q", opts.Format)
			}
			snap, st, err := a.snapshot(cmd, opts.Control)
			if err != nil {
				return err
			}
			var out []reconcile.EntryStatus
			if len(args) == 1 {
				sp, err := snap.Resolve(args[0])
				if err != nil {
					return usageError("%v", err)
				}
				es := snap.Status(sp)
				if es.Ledger != "" {
					if es.Performed, err = performedRequests(cmd.Context(), st, es.Ledger, performedShown); err != nil {
						return &exitError{code: exitCannotRun, err: err}
					}
				}
				out = append(out, es)
			} else {
				out = snap.Statuses()
			}
			if opts.Format == "json" {
				if out == nil {
					out = []reconcile.EntryStatus{}
				}
				return a.encodeJSON(out)
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
	for _, ls := range es.Legs {
		fmt.Fprintf(a.io.Out, "  %s\n", ls)
	}
	for _, w := range es.Waves {
		fmt.Fprintf(a.io.Out, "  %s\n", w)
	}
	if es.Pending != "" {
		fmt.Fprintf(a.io.Out, "  pending: %s\n", es.Pending)
	}
	if s := es.SpendLine(); s != "" {
		fmt.Fprintf(a.io.Out, "  spent: %s\n", s)
	}
	if es.Paused != "" {
		fmt.Fprintf(a.io.Out, "  %s\n", es.Paused)
	}
	if es.Lessons != nil {
		fmt.Fprintf(a.io.Out, "  lessons: %s\n", es.Lessons.Words)
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
	if len(es.Performed) > 0 {
		fmt.Fprintf(a.io.Out, "  requests performed, newest first:\n")
		for _, r := range es.Performed {
			fmt.Fprintf(a.io.Out, "    %s %s\n", shortSHA(r.Commit), originWords(r))
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

// glossary is where the words the output uses are explained; `why` and
// the demo point to it so that a newcomer meeting "allowance" or
// "iteration" can look it up.
const glossary = docsURL + "concepts.md"

// checkFormat validates a --format flag of text or json.
func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return usageError("--format must be text or json, got %q", f)
	}
	return nil
}

// encodeJSON writes v as indented JSON, the shape every --format json
// uses. Nothing here is embedded in HTML, so <why> stays <why>.
func (a *app) encodeJSON(v any) error {
	enc := json.NewEncoder(a.io.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// whyJSON is `why --format json`: the entry's status (as in status
// --format json) and the explanation, one sentence per element.
type whyJSON struct {
	Spec     string                `json:"spec"`
	Status   reconcile.EntryStatus `json:"status"`
	Explain  []string              `json:"explain"`
	Glossary string                `json:"glossary"`
	// Decision is the next pass's pull-request decision, with --live.
	Decision *reconcile.Decision `json:"decision,omitempty"`
}

func (a *app) newWhyCmd() *cobra.Command {
	var control, format string
	var live bool
	cmd := &cobra.Command{
		Use:   "why SPEC [--live] [--format text|json]",
		Short: "Explain what a spec's entry is doing, what it waits for and what comes next",
		Long: `why reads the control branch head (no GitHub access) and explains one entry:
its rows and attempts against their allowances, its last decisions, its stop
and the request that clears it, the state of each request, and the next
action a pass takes. Once every row is closed it says where the pull request
stands: without --live that is the last recorded state, and it says so.
The last line points to the glossary of the words it uses.

--live observes GitHub read-only, as a pass does (the token of reconcile),
and takes the pull-request decision the next pass takes, with the pass's
own looks: the step, a stop's reason and what a wait waits for, in words.
Nothing is written.

SPEC is a spec path, a ledger path or a spec's file name.`,
		Example: `  gallivant why greeting
  gallivant why greeting --live
  gallivant why specs/greeting.md --control https://github.com/acme/control.git
  gallivant why greeting --format json | jq -r '.status.stop.clear[]'`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSpecs(&control),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			snap, st, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			var decision *reconcile.Decision
			lines := snap.Explain(sp)
			if live {
				if decision, err = a.liveDecision(cmd, control, sp); err != nil {
					return err
				}
				lines = snap.ExplainDecided(sp, decision, "observed now")
			}
			if lp := snap.Repo.LedgerPaths[sp]; lp != "" {
				line, err := lastRequest(cmd.Context(), st, lp)
				if err != nil {
					return &exitError{code: exitCannotRun, err: err}
				}
				if line != "" {
					lines = append(lines, line)
				}
			}
			if format == "json" {
				if lines == nil {
					lines = []string{}
				}
				return a.encodeJSON(whyJSON{Spec: sp, Status: snap.Status(sp), Explain: lines, Glossary: glossary, Decision: decision})
			}
			for _, line := range lines {
				fmt.Fprintln(a.io.Out, line)
			}
			fmt.Fprintf(a.io.Out, "words: %s\n", glossary)
			return nil
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().BoolVar(&live, "live", false, "observe GitHub read-only and take the pull-request decision the next pass takes")
	return cmd
}

// liveDecision takes, read-only, the pull-request decision the next pass
// takes on spec (reconcile.Reconciler.Decide); nil when it takes none.
func (a *app) liveDecision(cmd *cobra.Command, control, spec string) (*reconcile.Decision, error) {
	w, err := a.reconciler(cmd.Context(), control, true)
	if err != nil {
		return nil, err
	}
	d, ok, err := w.Decide(cmd.Context(), spec)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("observe %s on GitHub: %w", spec, err)}
	}
	if !ok {
		return nil, nil
	}
	return &d, nil
}

// logJSON is one element of `log --format json`.
type logJSON struct {
	Commit   string            `json:"commit"`
	Time     string            `json:"time"` // RFC 3339, UTC
	Subject  string            `json:"subject"`
	Trailers map[string]string `json:"trailers"`
	// Verified and Violations are set by --verify (log_verify.go).
	Verified   *bool    `json:"verified,omitempty"`
	Violations []string `json:"violations,omitempty"`
}

func (a *app) newLogCmd() *cobra.Command {
	var control, format string
	var limit int
	var verify bool
	cmd := &cobra.Command{
		Use:   "log SPEC [--limit N] [--verify] [--format text|json]",
		Short: "Show a spec's loop: history from git, one line per transition",
		Long: `log prints the entry's loop: commits from the control repository's history,
oldest first, one line per transition: the commit, its time (UTC), its
subject and its Gallivant- trailers (Control, Head, Chain, …). Commits a
person made to the ledger (a request line, say) are not transitions and are
not shown.

--limit N shows the newest N transitions (after that filtering); 0 shows all.

--verify proves each line as gallivant verify does and marks it verified or
NOT VERIFIED with the reason; a person's commit that changed a
reconciler-owned section is then shown too, marked. Exit status 1 when a
line is not verified, unless a later loop: accept took that edit on
(marked "accepted later").

SPEC is a spec path, a ledger path or a spec's file name.`,
		Example: `  gallivant log greeting
  gallivant log greeting --limit 3
  gallivant log specs/greeting.md --format json | jq -r '.[].subject'`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSpecs(&control),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if limit < 0 {
				return usageError("--limit must be 0 or more, got %d", limit)
			}
			snap, st, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			lp := snap.Repo.LedgerPaths[sp]
			if lp == "" {
				lp = snap.Config.LedgerPath(sp)
			}
			// The limit counts transitions, so the whole history is read
			// and filtered first.
			entries, err := st.Log(cmd.Context(), lp, 0)
			if err != nil {
				return &exitError{code: exitCannotRun, err: err}
			}
			var verdicts map[string][]string
			if verify {
				if verdicts, err = logVerdicts(cmd.Context(), st, lp); err != nil {
					return &exitError{code: exitCannotRun, err: err}
				}
			}
			out, order := logLines(entries, verify, verdicts)
			if limit > 0 && len(out) > limit {
				out, order = out[len(out)-limit:], order[len(order)-limit:]
			}
			if format == "json" {
				if out == nil {
					out = []logJSON{}
				}
				if err := a.encodeJSON(out); err != nil {
					return err
				}
				return logExit(out)
			}
			a.printLog(out, order)
			return logExit(out)
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().IntVar(&limit, "limit", 0, "show the newest N transitions (0 for all)")
	cmd.Flags().BoolVar(&verify, "verify", false, "prove each line a legal transition and mark it (as gallivant verify does)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func shortTrailer(v string) string {
	if len(v) == 40 && strings.Trim(v, "0123456789abcdef") == "" {
		return v[:7]
	}
	// A lessons file version, path@blob (Gallivant-Lessons).
	if p, blob, ok := strings.Cut(v, "@"); ok && len(blob) == 40 && strings.Trim(blob, "0123456789abcdef") == "" {
		return p + "@" + blob[:7]
	}
	return v
}

// taskJSON is `task --format json`: the outstanding dispatch and its brief.
type taskJSON struct {
	Spec    string `json:"spec"`
	Ledger  string `json:"ledger"`
	Pending string `json:"pending"`
	Branch  string `json:"branch"`
	Repo    string `json:"repo"`
	Brief   string `json:"brief"`
}

func (a *app) newTaskCmd() *cobra.Command {
	var control, format, taskID string
	cmd := &cobra.Command{
		Use:   "task SPEC [--task ID] [--format text|json]",
		Short: "Print the outstanding task brief of a spec",
		Long: `task prints the task brief of a spec's outstanding dispatch, the same
document the command executor hands its agent. An agent run by the none or
workflow executor reads it here. Exit status 1 when no dispatch is outstanding.

--task ID prints the brief of a pending task of the spec's plan instead
(docs/plans.md, wave execution); exit status 1 when that task is not pending.

For a done entry whose learn task is dispatched it prints that learn task's
brief (docs/learning.md).

SPEC is a spec path, a ledger path or a spec's file name.`,
		Example: `  gallivant task greeting > /tmp/brief.md
  gallivant task greeting --format json | jq -r .pending`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSpecs(&control),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			snap, st, sp, err := a.resolveSpec(cmd, control, args[0])
			if err != nil {
				return err
			}
			l, spec := snap.Repo.Ledgers[sp], snap.Repo.Specs[sp]
			if taskID != "" {
				return a.printTaskBrief(snap, sp, taskID, format)
			}
			if learn, ok, err := reconcile.LearnTaskBrief(cmd.Context(), st, snap, sp, a.controlRepo(control)); err != nil {
				return &exitError{code: exitCannotRun, err: err}
			} else if ok {
				// A done entry's dispatched learn task (docs/learning.md).
				if format == "json" {
					repo := a.controlRepo(control)
					if lc := snap.Config.Learning; lc != nil && lc.ControlRepo != "" {
						repo = lc.ControlRepo
					}
					return a.encodeJSON(taskJSON{Spec: sp, Ledger: snap.Repo.LedgerPaths[sp], Pending: "learn", Branch: gatekeep.LessonsBranch(l.Delivery.PR.Repo), Repo: repo, Brief: learn})
				}
				_, err = fmt.Fprint(a.io.Out, learn)
				return err
			}
			if l == nil || l.Pending == nil || spec == nil {
				return &exitError{code: exitFindings, err: fmt.Errorf("%s has no outstanding dispatch", sp)}
			}
			repo, _ := spec.MemberRepo(l.Pending.Member)
			lessons, _, err := reconcile.RowLessons(cmd.Context(), st, snap.Commit, spec, l)
			if err != nil {
				return &exitError{code: exitCannotRun, err: err}
			}
			brief, err := ledger.Brief(ledger.BriefInput{Ledger: l, Spec: spec, LedgerPath: snap.Repo.LedgerPaths[sp], Repo: repo,
				Branch: l.WorkBranch(), Model: l.Delivery.Model, Plan: snap.Repo.PlanPathFor(sp), Lessons: lessons})
			if err != nil {
				return &exitError{code: exitFindings, err: err}
			}
			if format == "json" {
				return a.encodeJSON(taskJSON{Spec: sp, Ledger: snap.Repo.LedgerPaths[sp], Pending: l.Pending.String(), Branch: l.WorkBranch(), Repo: repo, Brief: brief})
			}
			_, err = fmt.Fprint(a.io.Out, brief)
			return err
		},
	}
	cmd.Flags().StringVar(&control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&taskID, "task", "", "print the brief of this pending plan task")
	return cmd
}

// printTaskBrief prints the brief of a pending plan task of spec sp.
func (a *app) printTaskBrief(snap *reconcile.Snapshot, sp, id, format string) error {
	l, spec := snap.Repo.Ledgers[sp], snap.Repo.Specs[sp]
	if l == nil || spec == nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("%s has no ledger", sp)}
	}
	repo, _ := spec.MemberRepo(specs.HomeMember)
	lp := snap.Repo.LedgerPaths[sp]
	brief, err := ledger.TaskBrief(ledger.TaskBriefInput{Ledger: l, Spec: spec, Plan: snap.Repo.PlanFor(sp), LedgerPath: lp, Repo: repo, Branch: l.WorkBranch(), Task: id})
	if err != nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: %w", sp, err)}
	}
	if format == "json" {
		t, _ := l.Task(id)
		return a.encodeJSON(taskJSON{Spec: sp, Ledger: lp, Pending: "task " + ledger.TaskTuple(*t), Branch: l.WorkBranch(), Repo: repo, Brief: brief})
	}
	_, err = fmt.Fprint(a.io.Out, brief)
	return err
}

func loadSnapshot(ctx context.Context, st *store.Store) (*reconcile.Snapshot, error) {
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	return snap, nil
}

// warnNoConfig says so when the control repository has no gallivant.yaml:
// a git repository that is no control repository (a clone of some project)
// would otherwise be read with the defaults without a word.
func (a *app) warnNoConfig(snap *reconcile.Snapshot) {
	if !snap.NoConfig {
		return
	}
	msg := fmt.Sprintf("the control repository has no %s at %s, so the defaults apply; if this is not a control repository, name one with --control (gallivant init creates one)",
		specs.ConfigFile, shortSHA(snap.Commit))
	a.narrate(slog.LevelWarn, specs.ConfigFile+": warning: "+msg, "no configuration", "commit", snap.Commit, "message", msg)
}
