package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/specs"
)

// App authentication's environment (docs/github.md). GALLIVANT_ variables
// never reach an agent (specs.SecretEnv).
const (
	envAppID      = "GALLIVANT_APP_ID"
	envAppKey     = "GALLIVANT_APP_PRIVATE_KEY"
	envAppKeyFile = "GALLIVANT_APP_PRIVATE_KEY_FILE"
)

// appTokens returns the GitHub App token source when an App is
// configured — $GALLIVANT_APP_ID, else github.app_id (cfg is nil before
// the control repository is read) — and nil, nil when none is. The key is
// $GALLIVANT_APP_PRIVATE_KEY, else the file $GALLIVANT_APP_PRIVATE_KEY_FILE,
// else github.app_private_key_file. repo (owner/name) finds the
// installation unless github.app_installation_id names it. The source is
// kept for the process, so the daemon's passes share its tokens.
func (a *app) appTokens(cfg *specs.Config, repo string) (*githubapi.AppTokens, error) {
	return a.appTokensFor(cfg, repo, "")
}

// purposeJudge is the token source of gallivant gatekeep, which only
// reads: its tokens ask every permission at read and name only the
// repositories of the pull requests it judges.
const purposeJudge = "judge"

// appTokensFor is appTokens, with a source of its own for each purpose:
// "store" is the one that fetches the control repository before
// gallivant.yaml is read, narrowed to that repository alone, so that it
// never narrows the source a command then talks to GitHub with;
// purposeJudge is gatekeep's, read-only.
func (a *app) appTokensFor(cfg *specs.Config, repo, purpose string) (*githubapi.AppTokens, error) {
	if cfg == nil {
		cfg = specs.DefaultConfig()
	}
	id := int64(cfg.GitHub.AppID)
	if v := a.env(envAppID); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("$%s must be a GitHub App's numeric id, got %q", envAppID, v)}
		}
		id = n
	}
	if id == 0 {
		return nil, nil
	}
	api := a.apiURL(cfg)
	cacheKey := fmt.Sprint(id, " ", api, " ", repo, " ", cfg.GitHub.AppInstallationID, " ", purpose)
	if apps := a.apps[cacheKey]; apps != nil {
		return apps, nil
	}
	pemData := []byte(a.env(envAppKey))
	from := "$" + envAppKey
	if len(pemData) == 0 {
		path := a.env(envAppKeyFile)
		from = "$" + envAppKeyFile
		if path == "" {
			path, from = cfg.GitHub.AppPrivateKeyFile, "github.app_private_key_file"
		}
		if path == "" {
			return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("GitHub App %d has no private key: set $%s to its PEM, or $%s or github.app_private_key_file to the file", id, envAppKey, envAppKeyFile)}
		}
		var err error
		if pemData, err = os.ReadFile(path); err != nil {
			return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("GitHub App %d: read the private key (%s): %w", id, from, err)}
		}
	}
	key, err := githubapi.ParseAppKey(pemData)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: fmt.Errorf("GitHub App %d: the private key in %s: %w", id, from, err)}
	}
	apps, err := githubapi.NewAppTokens(githubapi.AppOptions{APIURL: api, AppID: id, Key: key, InstallationID: int64(cfg.GitHub.AppInstallationID),
		Repo: repo, Logger: a.logger(), ReadOnly: purpose == purposeJudge})
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	if a.apps == nil {
		a.apps = map[string]*githubapi.AppTokens{}
	}
	a.apps[cacheKey] = apps
	return apps, nil
}

// githubCreds are the credentials one command talks to GitHub with.
type githubCreds struct {
	// token is a personal token, or an App installation token that lives
	// at least executor.timeout + grace (for the command executor's git,
	// which takes a string and cannot refresh it).
	token string
	// from names the credential's source in messages, never its value.
	from string
	// apps is the App's token source; nil with a personal token.
	apps  *githubapi.AppTokens
	login string // the App's bot login
}

// githubCredentials returns the App's credentials when an App is
// configured, else the token (githubTokenFrom). When st is not nil and an
// App is used, the store fetches and pushes with its tokens from now on.
func (a *app) githubCredentials(ctx context.Context, cfg *specs.Config, repo string, st *store.Store) (*githubCreds, error) {
	return a.githubCredentialsFor(ctx, cfg, repo, st, "", nil)
}

// githubCredentialsFor is githubCredentials for a purpose (appTokensFor),
// with an App's tokens narrowed to repos when repos is not empty.
func (a *app) githubCredentialsFor(ctx context.Context, cfg *specs.Config, repo string, st *store.Store, purpose string, repos []string) (*githubCreds, error) {
	apps, err := a.appTokensFor(cfg, repo, purpose)
	if err != nil {
		return nil, err
	}
	if apps != nil && len(repos) > 0 {
		apps.SetRepositories(repos)
	}
	if apps == nil {
		token, from, err := a.githubTokenFrom(cfg)
		if err != nil {
			return nil, err
		}
		return &githubCreds{token: token, from: from}, nil
	}
	// The command executor's git takes the token as a string for as long
	// as an agent may run: hand it one that lives that long.
	token, err := apps.TokenFor(ctx, cfg.Executor.Timeout+cfg.Executor.Grace)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	login, err := apps.Login(ctx)
	if err != nil {
		return nil, &exitError{code: exitCannotRun, err: err}
	}
	if st != nil {
		st.UseGitAuth(apps.GitAuth())
	}
	return &githubCreds{token: token, from: envAppKey, apps: apps, login: login}, nil
}

// options returns the GitHub adapter's options for these credentials: an
// App's requests carry its current installation token through a transport
// that refreshes it; a personal token is set once.
func (c *githubCreds) options(api string, opts githubapi.Options) githubapi.Options {
	opts.APIURL = api
	if c.apps == nil {
		opts.Token = c.token
		return opts
	}
	base := opts.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	opts.Transport = c.apps.Transport(base)
	opts.Login = c.login
	return opts
}
