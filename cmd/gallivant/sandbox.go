package main

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/daemon"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/spf13/cobra"
)

type sandboxOptions struct {
	Dir       string
	Addr      string
	Repos     []string
	Users     []string
	Outsiders []string
	// Protects are branch protection specs (ghstandin.ParseProtect).
	Protects []string
	// EnvFile, when set, receives the printed lines once the sandbox
	// listens (see writeEnvFile).
	EnvFile   string
	RateLimit int
	// PublicURL is the base address behind a proxy (--public-url).
	PublicURL string
	// Webhooks are receivers of every repository's events (--webhook),
	// signed with the secret in the variable WebhookSecretEnv names.
	Webhooks         []string
	WebhookSecretEnv string
	// TLS serves HTTPS with a self-signed certificate (--tls).
	TLS bool
	// Faults, FaultSeed and FaultHold are the random fault mix of
	// --faults (see sandboxFaults).
	Faults    string
	FaultSeed uint64
	FaultHold time.Duration
	// Hold and HoldFile keep one API request waiting (see sandboxHold).
	Hold, HoldFile string
}

// publicURL checks a --public-url: an absolute http or https URL of a host,
// with no path beyond "/", query or fragment.
func publicURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q: %v (expected scheme://host[:port], e.g. https://sb.example.com)", raw, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return "", fmt.Errorf("%q: expected an http or https URL of a host, e.g. https://sb.example.com", raw)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("%q: expected scheme://host[:port] with no path, query, fragment or credentials, e.g. https://sb.example.com", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

// loginRE is GitHub's login syntax: letters, digits and single inner
// hyphens, at most 39 characters.
var loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$`)

func (a *app) newSandboxCmd() *cobra.Command {
	opts := &sandboxOptions{}
	cmd := &cobra.Command{
		Use:   "sandbox --dir DIR [--addr 127.0.0.1:0] [--repo owner/name ...] [--user LOGIN ...] [--outsider LOGIN ...] [--protect owner/name:branch[,option...] ...] [--env-file FILE] [--public-url URL] [--webhook URL ...] [--tls] [--rate-limit 5000] [--faults KIND=RATE,... [--fault-seed N] [--fault-hold 10s]]",
		Short: "Run a local GitHub stand-in to try gallivant without touching GitHub",
		Long: `sandbox serves a stateful stand-in for GitHub's REST API on a loopback
address, with real git repositories served over smart HTTP. It creates the
repositories named with --repo (each with a main branch holding one commit),
prints shell-sourceable lines

  GITHUB_API_URL=<url>
  GITHUB_TOKEN=<token>
  GIT_URL_<OWNER>_<NAME>=<clone url>
  GITHUB_TOKEN_<LOGIN>=<token>     (one per --user and --outsider)

and serves until interrupted. Everything persists under --dir across restarts.

Git over HTTP authenticates as on GitHub: anyone may fetch, a push needs a
token with push access (the token as the password, any user name), and
--protect owner/name:branch protects a branch the way GitHub does, for the
API's merges and for git pushes: options reviews=N (1 by default), check=NAME,
strict, ruleset, bypass=APP (an App slug on the ruleset's bypass list),
enforce-admins and allow-force-push.

--webhook URL delivers every repository's events (push, pull_request,
pull_request_review, issue_comment, check_run, check_suite, status) to URL, a loopback
address such as gallivant daemon's http://127.0.0.1:9402/hooks/github, with
GitHub's headers and X-Hub-Signature-256 made with the secret in
$GALLIVANT_WEBHOOK_SECRET (--webhook-secret-env names another variable; the
secret never goes on the command line). Repositories can also get hooks
through POST /repos/{owner}/{repo}/hooks, as on GitHub.

--tls serves HTTPS instead, with a self-signed certificate for localhost,
127.0.0.1 and ::1 kept in DIR/tls (a restart keeps it), and also prints
SSL_CERT_FILE and GIT_SSL_CAINFO (the certificate), GH_HOST and
GH_ENTERPRISE_TOKEN, so that after sourcing the lines the GitHub CLI's
gh api and git reach the sandbox as an Enterprise host. SSL_CERT_FILE
replaces the system's roots in that shell.

--env-file FILE writes the same lines to FILE once the sandbox listens. FILE
is removed at start and appears whole (written aside, then renamed), so a
script can wait for it to exist and then source it. The API answers under
both <url>/api/v3/ and <url>/api/v3 (so "$GITHUB_API_URL/repos/…" works).

--faults KIND=RATE,... fails API requests at random, as GitHub fails them:
5xx (500, 502 or 503), timeout (held for --fault-hold, then 504), 403 and
429 (primary rate limit: X-RateLimit-Remaining 0 and a reset time),
secondary (403 with Retry-After: 1), malformed (200 with a truncated body)
and lost (a write performed, then answered 502). Each rate is from 0 to 1,
their sum at most 1. The draws are seeded (--fault-seed): the same requests
meet the same faults. The sandbox prints what it injected, by kind, when it
stops.

--hold METHOD:PATH-REGEXP --hold-file FILE keeps the first API request
that matches (its path after /api/v3) waiting: the sandbox writes FILE,
holding that request's method and path, and serves the request once FILE
is removed; if the client goes away first, the request is dropped unserved
and FILE removed. A test kills a client at a known point this way.`,
		Example: `  gallivant sandbox --dir /tmp/sb --repo acme/api --env-file /tmp/sb.env > /dev/null &
  while [ ! -f /tmp/sb.env ]; do sleep 0.1; done
  set -a; . /tmp/sb.env; set +a
  curl -H "Authorization: Bearer $GITHUB_TOKEN" "$GITHUB_API_URL/repos/acme/api"
  gallivant sandbox --dir /tmp/sb --repo acme/api --user reviewer --outsider mallory
  gallivant sandbox --dir /tmp/sb --repo acme/control --protect acme/control:main,ruleset,bypass=gallivant
  GALLIVANT_WEBHOOK_SECRET=s3cret gallivant sandbox --dir /tmp/sb --repo acme/api --webhook http://127.0.0.1:9402/hooks/github
  gallivant sandbox --dir /tmp/sb --repo acme/api --faults 5xx=0.02,timeout=0.01,429=0.01,lost=0.01 --fault-seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Dir == "" {
				return usageError("sandbox needs --dir, the directory that holds its state")
			}
			if opts.RateLimit < 1 {
				return usageError("--rate-limit must be at least 1, got %d", opts.RateLimit)
			}
			public, err := publicURL(opts.PublicURL)
			if err != nil {
				return usageError("--public-url %v", err)
			}
			var tlsCfg *tls.Config
			var certFile string
			if opts.TLS {
				if tlsCfg, certFile, err = ghstandin.SelfSigned(filepath.Join(opts.Dir, "tls"), time.Now()); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--tls: %w", err)}
				}
			}
			s, err := ghstandin.New(ghstandin.Options{Dir: opts.Dir, RateLimit: opts.RateLimit, PublicURL: public, TLS: tlsCfg})
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			for _, r := range opts.Repos {
				if err := s.CreateRepo(r, "main"); err != nil {
					return usageError("--repo %s: %v", r, err)
				}
			}
			if err := sandboxProtect(s, opts.Protects); err != nil {
				return err
			}
			if err := a.sandboxHooks(s, opts); err != nil {
				return err
			}
			if err := sandboxFaults(s, opts); err != nil {
				return err
			}
			if err := sandboxUsers(s, opts); err != nil {
				return err
			}
			if err := sandboxHold(s, opts); err != nil {
				return err
			}
			if err := removeEnvFile(opts.EnvFile); err != nil {
				return usageError("--env-file: %v", err)
			}
			var envErr error
			err = s.Serve(cmd.Context(), opts.Addr, func(url string) {
				env := sandboxEnv(s, certFile)
				fmt.Fprint(a.io.Out, env)
				if envErr = writeEnvFile(opts.EnvFile, env); envErr != nil {
					fmt.Fprintf(a.io.Err, "gallivant: --env-file: %v\n", envErr)
				}
				if opts.PublicURL != "" {
					fmt.Fprintf(a.io.Err, "sandbox serving on %s as %s; interrupt to stop\n", url, s.URL())
				} else {
					fmt.Fprintf(a.io.Err, "sandbox serving on %s; interrupt to stop\n", url)
				}
			})
			if err != nil {
				return &exitError{code: exitFindings, err: err}
			}
			if opts.Faults != "" {
				fmt.Fprintf(a.io.Err, "sandbox faults injected: %s\n", faultCounts(s.FaultsInjected()))
			}
			fmt.Fprintln(a.io.Err, "sandbox stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory holding the repositories and state (required)")
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to listen on")
	cmd.Flags().StringArrayVar(&opts.Repos, "repo", nil, "repository to create, owner/name (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Users, "user", nil, "another user with write access to every repository; prints GITHUB_TOKEN_<LOGIN> (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Outsiders, "outsider", nil, "a read-only user: may comment, review and open pull requests; prints GITHUB_TOKEN_<LOGIN> (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Protects, "protect", nil, "protect a branch, "+ghstandin.ProtectSyntax+"; alone: one approving review and no force-push (repeatable)")
	cmd.Flags().StringVar(&opts.EnvFile, "env-file", "", "also write the printed lines to this file, atomically, once listening")
	cmd.Flags().StringVar(&opts.PublicURL, "public-url", "", "the base URL clients reach the sandbox at, behind a proxy (scheme://host[:port]); every absolute URL it answers uses it")
	cmd.Flags().IntVar(&opts.RateLimit, "rate-limit", 5000, "primary rate limit per user and hour, as on GitHub")
	cmd.Flags().StringArrayVar(&opts.Webhooks, "webhook", nil, "deliver every repository's events to this loopback URL, signed (repeatable)")
	cmd.Flags().BoolVar(&opts.TLS, "tls", false, "serve HTTPS with a self-signed certificate kept under --dir/tls, and print SSL_CERT_FILE, GIT_SSL_CAINFO, GH_HOST and GH_ENTERPRISE_TOKEN for gh and git")
	cmd.Flags().StringVar(&opts.Faults, "faults", "", "fail API and git requests at random, KIND=RATE pairs of 5xx, timeout, 403, 429, secondary, malformed, lost, git-5xx, git-timeout, git-lost and git-reset, e.g. 5xx=0.02,lost=0.01,git-lost=0.05")
	cmd.Flags().Uint64Var(&opts.FaultSeed, "fault-seed", 1, "the seed of --faults' draws")
	cmd.Flags().DurationVar(&opts.FaultHold, "fault-hold", 10*time.Second, "how long a --faults timeout or git-timeout holds a request before answering 504")
	cmd.Flags().StringVar(&opts.WebhookSecretEnv, "webhook-secret-env", daemon.WebhookSecretEnv, "the environment variable holding the webhook secret")
	cmd.Flags().StringVar(&opts.Hold, "hold", "", "hold the first API request that matches METHOD:PATH-REGEXP until --hold-file is removed, or drop it when its client goes away")
	cmd.Flags().StringVar(&opts.HoldFile, "hold-file", "", "the file --hold writes while it holds the request; remove it to release the request")
	return cmd
}

// sandboxHooks subscribes each --webhook to every repository of s. The
// secret comes from the environment: a delivery without a signature is
// one gallivant's daemon refuses, so it is required.
func (a *app) sandboxHooks(s *ghstandin.Server, opts *sandboxOptions) error {
	if len(opts.Webhooks) == 0 {
		return nil
	}
	secret := a.env(opts.WebhookSecretEnv)
	if secret == "" {
		return usageError("--webhook needs the webhook secret in $%s (gallivant daemon refuses unsigned deliveries), e.g. %s=$(openssl rand -hex 20)",
			opts.WebhookSecretEnv, opts.WebhookSecretEnv)
	}
	for _, u := range opts.Webhooks {
		if err := ghstandin.CheckHookURL(u); err != nil {
			return usageError("--webhook %v", err)
		}
		for _, r := range s.Repos() {
			if _, err := s.AddHook(r, u, secret); err != nil {
				return usageError("--webhook %s: %v", u, err)
			}
		}
	}
	return nil
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
