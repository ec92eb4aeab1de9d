package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type gatekeepOptions struct {
	Repo    string
	Format  string
	Control string
}

func (a *app) newGatekeepCmd() *cobra.Command {
	opts := &gatekeepOptions{}
	cmd := &cobra.Command{
		Use:   "gatekeep PR... [--repo owner/name] [--format markdown|json]",
		Short: "Judge pull requests: mergeable, fixable, blocked or waiting",
		Long: `gatekeep reads pull requests from GitHub and judges each one: CI-first
evidence on the exact head, review clearance, merge state and, for a
pull request gallivant delivered, the completion gate (the receipt attests
every acceptance criterion of the approved contract). It only reads; it never
writes to GitHub.

A pull request is owner/name#N, #N (or N) with --repo, or a pull request URL.
With two or more it prints a summary line per pull request, in the order
given, and the files two or more of them change. It refuses, before any
request, duplicates, pull requests of different repositories (unless the
control repository's ledgers record them as legs of one coordinated
delivery), and more than gatekeep.max_prs (8 by default).

The control repository (--control, default: the one holding the current
directory, if any) supplies gallivant.yaml (reviewer, max_prs) and the
ledgers and specs the completion gate compares against. Without one the gate
is not run and the report says so.

Exit status: 0 when every pull request is mergeable, 1 otherwise, 2 on an
error.`,
		Example: `  gallivant gatekeep acme/api#42
  gallivant gatekeep --repo acme/api '#42' '#43' https://github.com/acme/api/pull/44`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.gatekeepRun(cmd, opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "repository (owner/name) for pull requests given by number")
	cmd.Flags().StringVar(&opts.Format, "format", "markdown", "output format: markdown or json")
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository checkout (default: found from the current directory)")
	return cmd
}

// gatekeepResult is one pull request in the JSON output.
type gatekeepResult struct {
	PR      string            `json:"pr"`
	Error   string            `json:"error,omitempty"`
	Digest  *gatekeep.Digest  `json:"digest,omitempty"`
	Verdict *gatekeep.Verdict `json:"verdict,omitempty"`
	Line    string            `json:"line,omitempty"`
}

func (a *app) gatekeepRun(cmd *cobra.Command, opts *gatekeepOptions, args []string) error {
	if opts.Format != "markdown" && opts.Format != "json" {
		return usageError("--format must be markdown or json, got %q", opts.Format)
	}
	if opts.Repo != "" && !specs.ValidRepo(opts.Repo) {
		return usageError("--repo %q is not owner/name", opts.Repo)
	}
	cfg, repo, err := a.gatekeepControl(opts.Control)
	if err != nil {
		return err
	}
	prs, err := gatekeep.AdmitLegs(args, opts.Repo, cfg.Gatekeep.MaxPRs, legsOfOneDelivery(repo))
	if err != nil {
		return usageError("%v", err)
	}
	ctx := cmd.Context()
	// An App's installation is found on the repository of the first pull
	// request judged; its tokens read, and only the repositories judged.
	var repos []string
	for _, pr := range prs {
		repos = append(repos, pr.Repo)
	}
	creds, err := a.githubCredentialsFor(ctx, cfg, prs[0].Repo, nil, purposeJudge, repos)
	if err != nil {
		return err
	}
	gh, err := githubapi.New(creds.options(a.apiURL(cfg), githubapi.Options{Logger: a.logger()}))
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	self, err := gh.CurrentUser(ctx)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	in := gatekeep.Input{Self: self, NoCI: len(prs) > 0 && cfg.Checks.NoCI(prs[0].Repo)}
	if cfg.Reviewer != nil {
		in.Reviewer = cfg.Reviewer.Login
	}
	var judged []gatekeep.Judged
	for _, pr := range prs {
		in.NoCI = cfg.Checks.NoCI(pr.Repo)
		judged = append(judged, a.judgePR(ctx, gh, pr, in, repo))
	}
	if err := a.printJudged(judged, opts.Format); err != nil {
		return err
	}
	failed, mergeable := false, true
	for _, j := range judged {
		failed = failed || j.Err != nil
		mergeable = mergeable && j.Verdict != nil && j.Verdict.Kind == gatekeep.Mergeable
	}
	switch {
	case failed:
		return silent(exitUsage)
	case !mergeable:
		return silent(exitFindings)
	}
	return nil
}

// judgePR reads one pull request, re-polls a mergeability GitHub is still
// computing once (G-22), and judges it, binding a gallivant delivery's
// identity to the pull request it is on.
func (a *app) judgePR(ctx context.Context, gh *githubapi.Client, pr gatekeep.PR, in gatekeep.Input, repo *ledger.Repo) gatekeep.Judged {
	j := gatekeep.Judged{PR: pr}
	d, err := reconcile.FetchDigest(ctx, gh, pr, time.Time{})
	if err == nil && d.Mergeable == nil && d.State == gatekeep.PROpen {
		var again githubapi.PullRequest
		if again, err = reconcile.RepollMergeable(ctx, gh, pr, a.mergePoll(), 1); err == nil {
			d.Mergeable, d.MergeState = again.Mergeable, again.MergeableState
		}
	}
	if err != nil {
		j.Err = err
		return j
	}
	in.Repolled = true
	in.Gate = gateInput(d, repo)
	v := gatekeep.Judge(d, in)
	if b, ok := gateBinding(d, repo); ok && in.Gate != nil {
		v = gatekeep.BindVerdict(v, gatekeep.Bind(d, b))
	}
	j.Digest, j.Verdict = &d, &v
	return j
}

// printJudged prints the verdicts as markdown reports or one JSON document,
// with the batch summary when there are several.
func (a *app) printJudged(judged []gatekeep.Judged, format string) error {
	if format == "json" {
		var out struct {
			PRs     []gatekeepResult `json:"prs"`
			Summary string           `json:"summary,omitempty"`
		}
		for _, j := range judged {
			r := gatekeepResult{PR: j.PR.String(), Digest: j.Digest, Verdict: j.Verdict}
			if j.Err != nil {
				r.Error = j.Err.Error()
			} else {
				r.Line = j.Verdict.Line()
			}
			out.PRs = append(out.PRs, r)
		}
		if len(judged) > 1 {
			out.Summary = gatekeep.Summary(judged)
		}
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, j := range judged {
		if i > 0 {
			fmt.Fprintln(a.io.Out)
		}
		if j.Err != nil {
			fmt.Fprintf(a.io.Out, "# %s\n\nfailed - %v\n", j.PR, j.Err)
			continue
		}
		fmt.Fprint(a.io.Out, gatekeep.Report(*j.Digest, *j.Verdict))
	}
	if len(judged) > 1 {
		fmt.Fprintf(a.io.Out, "\n## Summary\n\n%s", gatekeep.Summary(judged))
	}
	return nil
}

// gatekeepControl reads the control repository checkout gatekeep compares
// against: its configuration always (defaults when there is none), its
// specs and ledgers when there is one.
func (a *app) gatekeepControl(dir string) (*specs.Config, *ledger.Repo, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		root, ok := findRoot(wd)
		if !ok {
			return specs.DefaultConfig(), nil, nil
		}
		dir = root
	}
	data, err := os.ReadFile(filepath.Join(dir, specs.ConfigFile))
	if err != nil {
		return nil, nil, usageError("--control %s: %v", dir, err)
	}
	cfg, ds := specs.ParseConfig(specs.ConfigFile, data)
	if ds.HasErrors() {
		writeDiagnostics(a.io.Err, "text", ds)
		return nil, nil, usageError("%s has errors; fix them (gallivant check) first", filepath.Join(dir, specs.ConfigFile))
	}
	files, _ := readTree(dir, cfg, nil)
	repo, _ := ledger.LoadWith(cfg, files, ledger.Parsers{Parsers: specs.Parsers{Source: diskSources(dir)}})
	return cfg, repo, nil
}

// gateBinding reads, from the control repository at hand, what the pull
// request carrying d's identity block must be: the entry's repository and
// work branch, and the ledger's pr: and head.
func gateBinding(d gatekeep.Digest, repo *ledger.Repo) (gatekeep.Binding, bool) {
	if repo == nil {
		return gatekeep.Binding{}, false
	}
	id, err := gatekeep.ParseIdentity(d.Body)
	if err != nil {
		return gatekeep.Binding{}, false
	}
	sp, l := repo.Specs[id.Spec], repo.Ledgers[id.Spec]
	if sp == nil || l == nil {
		return gatekeep.Binding{}, false
	}
	if sp.Coordinated() {
		l = l.LegView(id.Member)
	}
	member, ok := sp.MemberRepo(id.Member)
	if !ok {
		member = sp.Repo
	}
	adopted := !sp.PR.IsZero() && sp.PR.String() == l.Delivery.PRText()
	return gatekeep.Binding{Repo: member, Branch: l.WorkBranch(), PR: l.Delivery.PRText(), Head: l.Delivery.Head, Adopted: adopted}, true
}

// gateInput builds the completion gate's input for a pull request whose
// body names a gallivant entry of the control repository at hand.
func gateInput(d gatekeep.Digest, repo *ledger.Repo) *gatekeep.GateInput {
	if repo == nil {
		return nil
	}
	id, err := gatekeep.ParseIdentity(d.Body)
	if err != nil {
		return nil
	}
	sp, l := repo.Specs[id.Spec], repo.Ledgers[id.Spec]
	if sp == nil || l == nil {
		return nil
	}
	if sp.Coordinated() {
		// A leg's pull request is judged against that leg's view: its
		// receipt, its head, its verification command.
		l = gatekeep.LegViewFor(l, sp, id.Member)
	}
	// The control name is the block's own: this checkout cannot know the
	// name the reconciler wrote; everything else must be this entry's.
	want := gatekeep.IdentityFor(id.Control, id.Spec, repo.LedgerPaths[id.Spec], l)
	return &gatekeep.GateInput{Identity: want, Spec: sp, Ledger: l, RequireProof: gatekeep.ProofRequired(repo.Config, sp),
		CheckProof: gatekeep.ProofCheckFor(repo.Config, sp)}
}

// legsOfOneDelivery admits pull requests of different repositories when one
// ledger of the control repository at hand records both as legs of its
// coordinated delivery (`pr <leg>:` keys): read from the checkout, so the
// refusal of anything else still happens before any request (G-91).
func legsOfOneDelivery(repo *ledger.Repo) func(a, b gatekeep.PR) bool {
	if repo == nil {
		return nil
	}
	return func(a, b gatekeep.PR) bool {
		for _, l := range repo.Ledgers {
			found := 0
			for _, m := range l.Delivery.Legs() {
				v := l.Delivery.PerMember[m].PRText()
				if strings.EqualFold(v, a.String()) || strings.EqualFold(v, b.String()) {
					found++
				}
			}
			if found >= 2 {
				return true
			}
		}
		return false
	}
}
