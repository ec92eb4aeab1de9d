package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/daemon"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
)

// cacheDir is where gallivant keeps control clones, agent checkouts, task
// files and logs: $GALLIVANT_CACHE, else the user cache directory.
func (a *app) cacheDir() string {
	if d := a.env("GALLIVANT_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "gallivant")
	}
	return filepath.Join(os.TempDir(), "gallivant-cache")
}

// openStore opens the control repository named by --control.
func (a *app) openStore(ctx context.Context, control string) (*store.Store, error) {
	token := a.env("GITHUB_TOKEN")
	if token == "" {
		token = a.env("GH_TOKEN")
	}
	// An App named in the environment reads the control repository too;
	// one named only in gallivant.yaml takes over once that is read.
	apps, err := a.appTokensFor(nil, a.controlRepo(control), "store")
	if err != nil {
		return nil, err
	}
	if apps != nil {
		if r := a.controlRepo(control); specs.ValidRepo(r) {
			// This token reads and writes the control repository only.
			apps.SetRepositories([]string{r})
		}
		if token, err = apps.Token(ctx); err != nil {
			return nil, &exitError{code: exitCannotRun, err: err}
		}
	}
	// Credentials a restart took out of argv (reexecWithoutControlCredentials)
	// reach the store alone.
	st, err := store.Open(ctx, store.Options{Control: withControlCredentials(control, a.env(controlCredentialsEnv)), CacheDir: a.cacheDir(), Token: token, Log: a.logger(),
		AuthorName: a.env("GALLIVANT_AUTHOR_NAME"), AuthorEmail: a.env("GALLIVANT_AUTHOR_EMAIL")})
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	if apps != nil {
		st.UseGitAuth(apps.GitAuth())
	}
	return st, nil
}

// apiURL is the GitHub REST base URL: GITHUB_API_URL when set (GitHub
// Actions and `gallivant sandbox` set it), else github.api_url.
func (a *app) apiURL(cfg *specs.Config) string {
	if u := a.env("GITHUB_API_URL"); u != "" {
		return strings.TrimRight(u, "/") + "/"
	}
	return cfg.GitHub.APIURL
}

// checkAPIURL refuses a GitHub API URL that is not an absolute http(s)
// URL (GITHUB_API_URL=localhost:1234 parses as the scheme "localhost").
func checkAPIURL(api string) error {
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("the GitHub API URL %q (GITHUB_API_URL, else github.api_url) is not an http or https URL; expected one like https://api.github.com/ or https://github.example.com/api/v3/", api)
	}
	return nil
}

// cloneURL derives a repository's git URL from the API URL: github.com
// repositories clone from https://github.com, GitHub Enterprise (and the
// sandbox) from the API host.
func cloneURL(api string) func(string) string {
	host := strings.TrimSuffix(strings.TrimRight(api, "/"), "/api/v3")
	host = strings.Replace(host, "://api.github.com", "://github.com", 1)
	return func(repo string) string { return host + "/" + repo + ".git" }
}

// githubTokenFrom returns the GitHub token — github.token_env (GITHUB_TOKEN
// by default), else GH_TOKEN — and the variable it came from, so that a
// rejected token can be named without being printed.
func (a *app) githubTokenFrom(cfg *specs.Config) (token, from string, err error) {
	if t := a.env(cfg.GitHub.TokenEnv); t != "" {
		return t, cfg.GitHub.TokenEnv, nil
	}
	if t := a.env("GH_TOKEN"); t != "" {
		return t, "GH_TOKEN", nil
	}
	return "", "", &exitError{code: exitCannotRun, err: fmt.Errorf("no GitHub token: set $%s (github.token_env in gallivant.yaml) or $GH_TOKEN", cfg.GitHub.TokenEnv)}
}

// wired is a reconciler and what the CLI reports about it.
type wired struct {
	*reconcile.Reconciler
	store *store.Store
	// tokenVar names the variable the GitHub token came from.
	tokenVar string
	// gh and token are the GitHub client and token the executor was
	// wired with, for rewiring it when gallivant.yaml changes (daemon).
	gh    *githubapi.Client
	token string
	// apps is the App's token source the executor takes a current token
	// from before each run; nil with a personal token.
	apps *githubapi.AppTokens
}

// reconciler wires a reconciler for the control repository. Its errors
// mean the pass cannot run (exit 2).
func (a *app) reconciler(ctx context.Context, control string, dryRun bool) (*wired, error) {
	st, err := a.openStore(ctx, control)
	if err != nil {
		return nil, err
	}
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	a.warnNoConfig(snap)
	cfg := snap.Config
	if err := a.scopeAppTokens(cfg, control, snap); err != nil {
		return nil, err
	}
	creds, err := a.githubCredentials(ctx, cfg, a.controlRepo(control), st)
	if err != nil {
		return nil, err
	}
	token, tokenVar := creds.token, creds.from
	log := a.logger()
	api := a.apiURL(cfg)
	if err := checkAPIURL(api); err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	var transport http.RoundTripper
	if a.metrics != nil {
		transport = a.metrics.Transport(nil)
	}
	// The conditional state persists so that a one-shot pass starts warm.
	gh, err := githubapi.New(creds.options(api, githubapi.Options{Logger: log, Transport: transport, StateDir: filepath.Join(a.cacheDir(), "github")}))
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	exec, err := a.executor(cfg, gh, token, creds.apps, control, dryRun)
	if err != nil {
		return nil, err
	}
	r := reconcile.New(reconcile.Options{Store: st, GitHub: gh, Executor: exec, Log: log, DryRun: dryRun, CloneURL: cloneURL(api),
		ControlRepo: a.controlRepo(control), MergePoll: a.mergePoll(), KeepGoodConfig: a.keepGoodConfig})
	return &wired{Reconciler: r, store: st, tokenVar: tokenVar, gh: gh, token: token, apps: creds.apps}, nil
}

// executor wires the executor gallivant.yaml's executor: section asks for.
// With an App (apps not nil), the command executor's git takes a current
// installation token before each run instead of token, so that a daemon
// reaches the repositories its tokens are narrowed to now. Its error means
// no pass can dispatch (exit 2).
func (a *app) executor(cfg *specs.Config, gh *githubapi.Client, token string, apps *githubapi.AppTokens, control string, dryRun bool) (reconcile.Executor, error) {
	log := a.logger()
	var exec reconcile.Executor = agent.NoneExecutor{}
	switch cfg.Executor.Kind {
	case specs.ExecutorCommand, specs.ExecutorClaudeCode, specs.ExecutorCodex, specs.ExecutorAider:
		if cfg.Executor.RunAs != "" && os.Geteuid() != 0 && !dryRun {
			// Refused before any pass: every dispatch would fail the same way.
			return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("%w (it runs as uid %d); run gallivant as root, or remove executor.run_as from %s to run the agent as gallivant's own user",
				agent.ErrRunAsNeedsRoot, os.Geteuid(), specs.ConfigFile)}
		}
		var stream io.Writer
		if a.verbose {
			// -v: the agents' output as it comes, line by line.
			stream = a.io.Err
			if a.jsonLogs() {
				stream = newJSONLines(a.io.Err)
			}
		}
		ce := agent.CommandExecutor{Kind: cfg.Executor.Kind, Argv: cfg.Executor.Command, Stream: stream, Progress: a.progress(), Timeout: cfg.Executor.Timeout, ReplayBudget: cfg.Executor.ReplayBudget, WorkDir: filepath.Join(a.cacheDir(), "work"), Token: token,
			Env: cfg.Executor.Env, TokenEnv: cfg.GitHub.TokenEnv, RunAs: cfg.Executor.RunAs, Log: log}
		if apps != nil {
			ce.Tokens = apps
		}
		exec = ce
		if a.metrics != nil {
			exec = daemon.TimedCommand{CommandExecutor: ce, Metrics: a.metrics}
		}
	case specs.ExecutorWorkflow:
		exec = agent.WorkflowExecutor{GitHub: gh, Workflow: cfg.Executor.Workflow, Control: control}
	}
	return exec, nil
}

var nameUnsafe = regexp.MustCompile(`[^a-z0-9._-]+`)

// controlRepo names the control repository in pull request identity
// blocks: owner/name from a URL (https://host/owner/name.git), else
// $GITHUB_REPOSITORY (GitHub Actions sets it), else local/<directory name>.
func (a *app) controlRepo(control string) string {
	if u, err := url.Parse(control); err == nil && u.Host != "" {
		parts := strings.Split(strings.Trim(strings.TrimSuffix(u.Path, ".git"), "/"), "/")
		if len(parts) >= 2 {
			if r := parts[len(parts)-2] + "/" + parts[len(parts)-1]; specs.ValidRepo(r) {
				return r
			}
		}
	}
	if r := a.env("GITHUB_REPOSITORY"); specs.ValidRepo(r) {
		return r
	}
	dir := control
	if dir == "" || strings.HasPrefix(dir, "file://") {
		dir = strings.TrimPrefix(dir, "file://")
		if dir == "" {
			dir, _ = os.Getwd()
		}
	}
	name := strings.Trim(nameUnsafe.ReplaceAllString(strings.ToLower(strings.TrimSuffix(filepath.Base(dir), ".git")), "-"), "-.")
	if r := "local/" + name; name != "" && specs.ValidRepo(r) {
		return r
	}
	return "local/control"
}

// mergePoll is how long to wait before asking GitHub again for a
// mergeability it is still computing: $GALLIVANT_MERGE_POLL (a Go
// duration), else 2s.
func (a *app) mergePoll() time.Duration {
	if d, err := time.ParseDuration(a.env("GALLIVANT_MERGE_POLL")); err == nil && d > 0 {
		return d
	}
	return 2 * time.Second
}
