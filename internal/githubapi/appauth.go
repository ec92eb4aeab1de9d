package githubapi

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v66/github"
)

// AppOptions configure GitHub App authentication.
type AppOptions struct {
	// APIURL is the REST base URL; https://api.github.com/ when empty.
	APIURL string
	// AppID is the App's numeric id (its settings page shows it).
	AppID int64
	// Key is the App's private key; ParseAppKey reads its PEM.
	Key *rsa.PrivateKey
	// InstallationID is the installation whose tokens are minted; when 0
	// it is looked up as the installation on Repo.
	InstallationID int64
	// Repo (owner/name) finds the installation when InstallationID is 0:
	// the control repository, which the App must be installed on.
	Repo string
	// Repositories (owner/name) narrow every installation token to those
	// repositories: the ones gallivant uses. Empty leaves tokens covering
	// every repository of the installation. SetRepositories changes them.
	Repositories []string
	// ReadOnly asks every permission at read: for a command that only
	// judges (gallivant gatekeep), so that its tokens can write nothing.
	ReadOnly bool
	// Transport is the network transport; http.DefaultTransport when nil.
	Transport http.RoundTripper
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger receives refresh failures; slog.Default when nil.
	Logger *slog.Logger
}

// refreshMargin is how long before its expiry an installation token is
// replaced: long enough that a request started with it, or a git push
// that takes minutes, never carries an expired one.
const refreshMargin = 10 * time.Minute

// AppTokens mints installation tokens for a GitHub App and keeps the
// current one: each is used until refreshMargin before it expires (GitHub
// gives them an hour), then replaced. It is safe for concurrent use. The
// key and the tokens never appear in logs or errors.
type AppTokens struct {
	opts AppOptions
	api  *github.Client // authenticated with a fresh JWT per request

	mu           sync.Mutex
	installation int64
	slug         string
	token        string
	expires      time.Time
	// granted is what the installation was granted, perms what its
	// tokens ask for (scopePermissions).
	granted, perms *github.InstallationPermissions
	// account is the installation's account (the owner of every
	// repository its tokens can reach), "" until read; repos the
	// repositories tokens are narrowed to (normalizeRepos).
	account string
	repos   []string
}

// neededPermissions are the permissions gallivant uses, at the level it
// uses them: pushing work branches and merging (contents), pull requests,
// their labels and comments (issues), gatekeep's check run and statuses,
// workflow dispatches and runs (actions), required checks of branch
// protection (administration, read), and commits that change workflow
// files (workflows).
var neededPermissions = []struct {
	name  string
	level string
	field func(*github.InstallationPermissions) **string
}{
	{"contents", "write", func(p *github.InstallationPermissions) **string { return &p.Contents }},
	{"pull_requests", "write", func(p *github.InstallationPermissions) **string { return &p.PullRequests }},
	{"issues", "write", func(p *github.InstallationPermissions) **string { return &p.Issues }},
	{"checks", "write", func(p *github.InstallationPermissions) **string { return &p.Checks }},
	{"statuses", "write", func(p *github.InstallationPermissions) **string { return &p.Statuses }},
	{"actions", "write", func(p *github.InstallationPermissions) **string { return &p.Actions }},
	{"administration", "read", func(p *github.InstallationPermissions) **string { return &p.Administration }},
	{"workflows", "write", func(p *github.InstallationPermissions) **string { return &p.Workflows }},
	{"metadata", "read", func(p *github.InstallationPermissions) **string { return &p.Metadata }},
}

// scopePermissions is what an installation token asks for: each
// permission gallivant needs, at the lower of its level and the one the
// installation was granted; nothing else the installation may hold
// (members, secrets, administration beyond reading, …). GitHub refuses a
// token asked for more than was granted, hence the intersection. readOnly
// asks each at read.
func scopePermissions(granted *github.InstallationPermissions, readOnly bool) *github.InstallationPermissions {
	level := map[string]int{"read": 1, "write": 2, "admin": 3}
	out := &github.InstallationPermissions{}
	if granted == nil {
		granted = &github.InstallationPermissions{}
	}
	for _, n := range neededPermissions {
		g := *n.field(granted)
		if g == nil || level[*g] == 0 {
			continue
		}
		v := n.level
		if readOnly {
			v = "read"
		}
		if level[*g] < level[v] {
			v = *g
		}
		*n.field(out) = github.String(v)
	}
	return out
}

// ErrAppAuth marks a failure to authenticate as the GitHub App: a key
// GitHub does not accept, an App not installed on the repository, a
// refused token. Callers stop: no request can succeed without a token.
var ErrAppAuth = errors.New("github app authentication failed")

// NewAppTokens returns the token source of an App. It does not call
// GitHub: the first Token or Login does.
func NewAppTokens(opts AppOptions) (*AppTokens, error) {
	if opts.AppID <= 0 {
		return nil, fmt.Errorf("%w: the app id must be a positive number", ErrAppAuth)
	}
	if opts.Key == nil {
		return nil, fmt.Errorf("%w: no private key", ErrAppAuth)
	}
	if opts.InstallationID == 0 && !strings.Contains(opts.Repo, "/") {
		return nil, fmt.Errorf("%w: neither an installation id nor a repository to find the installation on", ErrAppAuth)
	}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	a := &AppTokens{opts: opts, installation: opts.InstallationID, repos: normalizeRepos(opts.Repositories)}
	c := github.NewClient(&http.Client{Transport: &jwtTransport{app: a, next: opts.Transport}})
	if opts.APIURL != "" && strings.TrimRight(opts.APIURL, "/") != "https://api.github.com" {
		var err error
		if c, err = c.WithEnterpriseURLs(opts.APIURL, opts.APIURL); err != nil {
			return nil, fmt.Errorf("github api_url %q: %w", opts.APIURL, err)
		}
	}
	a.api = c
	return a, nil
}

// ParseAppKey parses an App's private key from PEM, as GitHub hands it out
// (PKCS#1, "RSA PRIVATE KEY") or converted to PKCS#8 ("PRIVATE KEY").
// Literal \n sequences are read as newlines, as CI secret stores sometimes
// flatten a PEM into one line.
func ParseAppKey(data []byte) (*rsa.PrivateKey, error) {
	if !strings.Contains(string(data), "\n") {
		data = []byte(strings.ReplaceAll(string(data), `\n`, "\n"))
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: the private key is not PEM", ErrAppAuth)
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: the private key is neither PKCS#1 nor PKCS#8 RSA", ErrAppAuth)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: the private key is not an RSA key", ErrAppAuth)
	}
	return rk, nil
}

// jwt returns a JWT for the App: issued a minute in the past, against
// clock drift, and valid nine minutes, under GitHub's limit of ten.
func (a *AppTokens) jwt() (string, error) {
	now := a.opts.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(a.opts.AppID, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.opts.Key)
}

// jwtTransport authenticates the App's own requests with a fresh JWT.
type jwtTransport struct {
	app  *AppTokens
	next http.RoundTripper
}

func (t *jwtTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.app.jwt()
	if err != nil {
		return nil, fmt.Errorf("%w: sign the JWT: %v", ErrAppAuth, err)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.next.RoundTrip(r)
}

// appError turns a GitHub answer to the App into an ErrAppAuth that says
// what GitHub said, never a credential.
func appError(op string, err error) error {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return fmt.Errorf("%w: %s: %d %s", ErrAppAuth, op, ge.Response.StatusCode, ge.Message)
	}
	return fmt.Errorf("%w: %s: %v", ErrAppAuth, op, err)
}

// Token returns an installation token valid for at least refreshMargin,
// minting one when the current one is older.
func (a *AppTokens) Token(ctx context.Context) (string, error) {
	return a.TokenFor(ctx, refreshMargin)
}

// TokenFor returns an installation token valid for at least d, minting one
// when the current one is older; for a holder that cannot refresh it, such
// as a git process that runs as long as an agent may. GitHub's tokens live
// an hour, so a d beyond that is met as far as a new token can meet it.
func (a *AppTokens) TokenFor(ctx context.Context, d time.Duration) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" && a.opts.Now().Add(max(d, refreshMargin)).Before(a.expires) {
		return a.token, nil
	}
	if a.installation == 0 {
		owner, name, _ := strings.Cut(a.opts.Repo, "/")
		in, _, err := a.api.Apps.FindRepositoryInstallation(ctx, owner, name)
		if err != nil {
			return "", appError(fmt.Sprintf("find app %d's installation on %s (install the app on it)", a.opts.AppID, a.opts.Repo), err)
		}
		a.installation = in.GetID()
		a.granted = in.GetPermissions()
		a.account = in.GetAccount().GetLogin()
	}
	if a.perms == nil || (a.account == "" && len(a.repos) > 0) {
		granted := a.granted
		if granted == nil || a.account == "" {
			in, _, err := a.api.Apps.GetInstallation(ctx, a.installation)
			if err != nil {
				return "", appError(fmt.Sprintf("read app %d's installation %d", a.opts.AppID, a.installation), err)
			}
			granted = in.GetPermissions()
			a.account = in.GetAccount().GetLogin()
		}
		a.perms = scopePermissions(granted, a.opts.ReadOnly)
	}
	names, other := repoNames(a.account, a.repos)
	if len(other) > 0 {
		a.opts.Logger.Warn("repositories outside the app installation's account are left out of its tokens; install the app on their owner and run a reconciler per account",
			"app", a.opts.AppID, "installation", a.installation, "account", a.account, "repositories", strings.Join(other, " "))
	}
	if len(a.repos) > 0 && len(names) == 0 {
		return "", fmt.Errorf("%w: app %d, installation %d of %s covers none of the repositories gallivant uses (%s)", ErrAppAuth, a.opts.AppID, a.installation, a.account, strings.Join(a.repos, ", "))
	}
	it, _, err := a.api.Apps.CreateInstallationToken(ctx, a.installation, &github.InstallationTokenOptions{Permissions: a.perms, Repositories: names})
	if err != nil {
		return "", appError(fmt.Sprintf("create an installation token for app %d, installation %d", a.opts.AppID, a.installation), err)
	}
	if it.GetToken() == "" {
		return "", fmt.Errorf("%w: GitHub returned an empty installation token", ErrAppAuth)
	}
	a.token, a.expires = it.GetToken(), it.GetExpiresAt().Time
	a.opts.Logger.Debug("minted installation token", "app", a.opts.AppID, "installation", a.installation, "expires", a.expires, "repositories", len(names))
	return a.token, nil
}

// SetRepositories narrows the installation tokens minted from now on to
// repos (owner/name): the repositories gallivant uses, which a changed
// configuration or a new spec can change. When they differ from the
// current ones, the current token is dropped, so that the next Token mints
// one that reaches them. Empty lifts the narrowing.
func (a *AppTokens) SetRepositories(repos []string) {
	n := normalizeRepos(repos)
	a.mu.Lock()
	defer a.mu.Unlock()
	if slices.Equal(n, a.repos) {
		return
	}
	a.repos = n
	a.token, a.expires = "", time.Time{}
}

// Repositories returns the repositories (owner/name) tokens are narrowed
// to; nil when they are not.
func (a *AppTokens) Repositories() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.repos)
}

// normalizeRepos sorts repos and drops duplicates (names compare without
// case, as on GitHub) and empty names.
func normalizeRepos(repos []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range repos {
		k := strings.ToLower(strings.TrimSpace(r))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(r))
	}
	slices.SortFunc(out, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) })
	return out
}

// repoNames turns owner/name repositories into the names an access-token
// request takes. GitHub narrows a token to repositories of the
// installation's account only (it refuses the request otherwise), so a
// repository of another owner is left out and returned in other: this
// installation's tokens cannot write to it either way.
func repoNames(account string, repos []string) (names, other []string) {
	for _, r := range repos {
		owner, name, ok := strings.Cut(r, "/")
		if !ok || name == "" || strings.Contains(name, "/") || (account != "" && !strings.EqualFold(owner, account)) {
			other = append(other, r)
			continue
		}
		names = append(names, name)
	}
	return names, other
}

// Login returns the login the App's installation tokens act as,
// "<slug>[bot]": pull requests, reviews and comments it writes carry it.
// GitHub refuses GET /user to an installation token, so the reconciler is
// told this login instead of asking (Options.Login).
func (a *AppTokens) Login(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.slug == "" {
		app, _, err := a.api.Apps.Get(ctx, "")
		if err != nil {
			return "", appError(fmt.Sprintf("read app %d", a.opts.AppID), err)
		}
		if app.GetSlug() == "" {
			return "", fmt.Errorf("%w: GitHub reported no slug for app %d", ErrAppAuth, a.opts.AppID)
		}
		a.slug = app.GetSlug()
	}
	return a.slug + "[bot]", nil
}

// Transport returns a transport that authenticates each request with the
// current installation token, refreshed as it nears expiry. Use it as
// Options.Transport: the adapter's ETag cache sits above it and so
// keys entries without the token, and keeps them across refreshes.
func (a *AppTokens) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &installationTransport{app: a, next: next}
}

type installationTransport struct {
	app  *AppTokens
	next http.RoundTripper
}

func (t *installationTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.app.Token(r.Context())
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+tok)
	return t.next.RoundTrip(r)
}

// GitAuth returns go-git credentials for git over HTTPS that carry the
// current installation token (user x-access-token), refreshed as it nears
// expiry, so that a long-lived store never pushes with an expired one.
func (a *AppTokens) GitAuth() githttp.AuthMethod { return &appGitAuth{app: a} }

type appGitAuth struct{ app *AppTokens }

var _ transport.AuthMethod = (*appGitAuth)(nil)

func (g *appGitAuth) Name() string { return "http-basic-auth" }
func (g *appGitAuth) String() string {
	return "http-basic-auth - x-access-token:<github app installation token>"
}

// SetAuth cannot return an error: when no token can be had, the request
// goes without one, GitHub answers 401, and the fetch or push fails with
// "authentication required"; the reason is logged.
func (g *appGitAuth) SetAuth(r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	tok, err := g.app.Token(ctx)
	if err != nil {
		g.app.opts.Logger.Warn("no installation token for git", "app", g.app.opts.AppID, "err", err)
		return
	}
	r.SetBasicAuth("x-access-token", tok)
}
