package main

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/reconcile/githubtest"
	"github.com/spf13/cobra"
)

type sandboxOptions struct {
	Dir       string
	Addr      string
	Repos     []string
	RateLimit int
}

func (a *app) newSandboxCmd() *cobra.Command {
	opts := &sandboxOptions{}
	cmd := &cobra.Command{
		Use:   "sandbox --dir DIR [--addr 127.0.0.1:0] [--repo owner/name ...] [--rate-limit 5000]",
		Short: "Run a local GitHub stand-in to try gallivant without touching GitHub",
		Long: `sandbox serves a stateful stand-in for GitHub's REST API on a loopback
address, with real git repositories served over smart HTTP. It creates the
repositories named with --repo (each with a main branch holding one commit),
prints shell-sourceable lines

  GITHUB_API_URL=<url>
  GITHUB_TOKEN=<token>
  GIT_URL_<OWNER>_<NAME>=<clone url>

and serves until interrupted. Everything persists under --dir across restarts.`,
		Example: `  gallivant sandbox --dir /tmp/sb --repo acme/api > /tmp/sb.env &
  set -a; . /tmp/sb.env; set +a
  curl -H "Authorization: Bearer $GITHUB_TOKEN" "$GITHUB_API_URL"repos/acme/api`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Dir == "" {
				return usageError("sandbox needs --dir, the directory that holds its state")
			}
			if opts.RateLimit < 1 {
				return usageError("--rate-limit must be at least 1, got %d", opts.RateLimit)
			}
			s, err := githubtest.New(githubtest.Options{Dir: opts.Dir, RateLimit: opts.RateLimit})
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			for _, r := range opts.Repos {
				if err := s.CreateRepo(r, "main"); err != nil {
					return usageError("--repo %s: %v", r, err)
				}
			}
			err = s.Serve(cmd.Context(), opts.Addr, func(url string) {
				fmt.Fprintf(a.io.Out, "GITHUB_API_URL=%s\n", s.APIURL())
				fmt.Fprintf(a.io.Out, "GITHUB_TOKEN=%s\n", s.MainToken())
				for _, r := range s.Repos() {
					fmt.Fprintf(a.io.Out, "GIT_URL_%s=%s\n", envName(r), s.GitURL(r))
				}
				fmt.Fprintf(a.io.Err, "sandbox serving on %s; interrupt to stop\n", url)
			})
			if err != nil {
				return &exitError{code: exitFindings, err: err}
			}
			fmt.Fprintln(a.io.Err, "sandbox stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory holding the repositories and state (required)")
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to listen on")
	cmd.Flags().StringArrayVar(&opts.Repos, "repo", nil, "repository to create, owner/name (repeatable)")
	cmd.Flags().IntVar(&opts.RateLimit, "rate-limit", 5000, "primary rate limit per user and hour, as on GitHub")
	return cmd
}

// envName turns owner/name into OWNER_NAME with every other character as _.
func envName(repo string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, repo)
}
