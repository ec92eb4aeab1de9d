package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/spf13/cobra"
)

type verifyOptions struct {
	Control string
	Since   string
	Format  string
}

// verifyJSON is `verify --format json`: the summary line and the report.
type verifyJSON struct {
	Summary string `json:"summary"`
	Legal   bool   `json:"legal"`
	audit.Report
}

func (a *app) newVerifyCmd() *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [--since REV] [SPEC...] [--format text|json|github]",
		Short: "Prove every ledger commit of the control branch a legal transition",
		Long: `verify walks the control branch's first-parent history, oldest first, and for
every commit that changes a ledger proves the change legal: a loop: commit
must be exactly what its transition writes (the transition is replayed on the
parent ledger and the results compared section by section, with its subject
and trailers); anyone else's commit may change only the ledger's
## Requests. Each violation names the commit, its author, the ledger, the
section and a short diff. A person's edit of a reconciler-owned section is
legal once a later loop: accept of that ledger took it on.

--since REV verifies only the commits after REV (a SHA, a branch or a tag),
as CI does for what a push added; an all-zero SHA (GitHub's "before" of a
branch's first push) means the whole history. SPEC limits the check to those specs'
ledgers (a spec path, a ledger path or a spec's file name).

Exit status 0 when the history is legal, 1 when it holds a violation, 2
when it cannot be verified (no repository, an unknown revision). The last
line is a summary: commits verified, transitions by kind, violations.
docs/verify.md says what is proven and what is not.`,
		Example: `  gallivant verify
  gallivant verify --since 3f9c2e7
  gallivant verify --since ${{ github.event.before }} --format github
  gallivant verify greeting --format json | jq '.violations'`,
		ValidArgsFunction: a.completeSpecs(&opts.Control),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat(opts.Format)
			if err != nil {
				return err
			}
			st, err := a.openStore(cmd.Context(), opts.Control)
			if err != nil {
				return err
			}
			var only map[string]bool
			if len(args) > 0 {
				snap, err := loadSnapshot(cmd.Context(), st)
				if err != nil {
					return err
				}
				only = map[string]bool{}
				for _, arg := range args {
					sp, err := snap.Resolve(arg)
					if err != nil {
						return usageError("%v", err)
					}
					lp := snap.Repo.LedgerPaths[sp]
					if lp == "" {
						lp = snap.Config.LedgerPath(sp)
					}
					only[lp] = true
				}
			}
			since := opts.Since
			if since != "" && strings.Trim(since, "0") == "" {
				// GitHub's "before" of a branch's first push: no history
				// before it, so everything is new.
				since = ""
			}
			v := audit.NewVerifier()
			err = st.History(cmd.Context(), since, only, func(c audit.Commit) error {
				v.Add(c)
				return cmd.Context().Err()
			})
			if errors.Is(err, store.ErrUnknownRevision) {
				return &exitError{code: exitCannotRun, err: fmt.Errorf("--since: %w", err)}
			}
			if err != nil {
				return &exitError{code: exitCannotRun, err: err}
			}
			rep := v.Report()
			if err := a.printVerify(rep, format); err != nil {
				return err
			}
			if !rep.Legal() {
				return silent(exitFindings)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "verify only the commits after this revision (default: the whole history)")
	cmd.Flags().StringVar(&opts.Format, "format", "", "output format: text, json or github (default text; github when GITHUB_ACTIONS=true)")
	return cmd
}

func (a *app) printVerify(rep audit.Report, format string) error {
	switch format {
	case "json":
		return a.encodeJSON(verifyJSON{Summary: rep.Summary(), Legal: rep.Legal(), Report: rep})
	case "github":
		for _, v := range rep.Violations {
			fmt.Fprintf(a.io.Out, "::error file=%s,title=verify/%s::%s\n", ghEscapeProp(v.Path), ghEscapeProp(v.Section), ghEscape(violationText(v)))
		}
		for _, v := range rep.Accepted {
			fmt.Fprintf(a.io.Out, "::notice file=%s,title=verify/accepted::%s\n", ghEscapeProp(v.Path), ghEscape("accepted later: "+violationText(v)))
		}
	default:
		for _, v := range rep.Violations {
			fmt.Fprintln(a.io.Out, violationText(v))
		}
		for _, v := range rep.Accepted {
			fmt.Fprintln(a.io.Out, "accepted later: "+violationText(v))
		}
	}
	_, err := fmt.Fprintln(a.io.Out, rep.Summary())
	return err
}

// violationText is one violation in text form: where, who, what, then
// the excerpt indented.
func violationText(v audit.Violation) string {
	where := v.Path
	if where == "" {
		where = "(no ledger)"
	}
	s := fmt.Sprintf("%s %s: %s: %s (author %s, subject %q)", shortSHA(v.Commit), where, v.Section, v.Message, v.Author, v.Subject)
	if v.Excerpt != "" {
		s += "\n    " + strings.ReplaceAll(v.Excerpt, "\n", "\n    ")
	}
	return s
}

// ghEscape encodes a GitHub workflow command's message.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProp encodes a workflow command property.
func ghEscapeProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
