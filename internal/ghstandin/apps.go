package ghstandin

import (
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultAppTokenTTL is how long an installation token lives, as on GitHub.
const DefaultAppTokenTTL = time.Hour

// apps is the stand-in's GitHub Apps: their public keys, installations and
// the installation tokens minted so far. In memory only: a restarted
// sandbox forgets them, as tokens that expire anyway.
type apps struct {
	byID   map[int64]*app
	inst   map[int64]*installation
	tokens map[string]*installationToken
	ttl    time.Duration
}

type app struct {
	id   int64
	slug string
	key  *rsa.PublicKey
}

type installation struct {
	id      int64
	appID   int64
	account string // the owner whose repositories it covers
}

type installationToken struct {
	login   string
	expires time.Time
	// permissions is what the token was minted with: the installation's
	// unless the request narrowed them.
	permissions map[string]string
	// repositories are the repositories (owner/name) the request narrowed
	// the token to; nil is every repository of the installation.
	repositories []string
}

// InstallationTokenPermissions returns the permissions each installation
// token minted so far was asked for (nil: all the installation's), in no
// particular order.
func (s *Server) InstallationTokenPermissions() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]string
	for _, t := range s.appsLocked().tokens {
		out = append(out, t.permissions)
	}
	return out
}

// RegisterApp registers a GitHub App: its id, its slug (its bot user is
// "<slug>[bot]") and the public half of the key its JWTs are signed with.
func (s *Server) RegisterApp(id int64, slug string, key *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appsLocked().byID[id] = &app{id: id, slug: slug, key: key}
}

// InstallApp installs a registered App on an account, covering all of its
// repositories, and returns the installation id.
func (s *Server) InstallApp(appID int64, account string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.id()
	s.appsLocked().inst[id] = &installation{id: id, appID: appID, account: account}
	return id
}

// InstallationTokens returns how many installation tokens were minted.
func (s *Server) InstallationTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.appsLocked().tokens)
}

// appsLocked returns the apps registry, creating it. The caller holds s.mu.
func (s *Server) appsLocked() *apps {
	if s.apps == nil {
		s.apps = &apps{byID: map[int64]*app{}, inst: map[int64]*installation{}, tokens: map[string]*installationToken{}, ttl: DefaultAppTokenTTL}
	}
	return s.apps
}

// appLoginPrefix marks the login of a request authenticated by an App's
// JWT, which may only call the App endpoints.
const appLoginPrefix = "app/"

var jwtPaths = regexp.MustCompile(`^/api/v3/(app|app/installations/[0-9]+(/access_tokens)?|repos/[^/]+/[^/]+/installation)$`)

// authenticateApp authenticates a request the token table does not know:
// an unexpired installation token (as its bot user), or, on the App
// endpoints only, a JWT signed by a registered App. The caller holds s.mu.
func (s *Server) authenticateApp(r *http.Request, tok string) (string, bool) {
	a := s.appsLocked()
	if it, ok := a.tokens[tok]; ok {
		if !s.clock().Before(it.expires) {
			return "", false
		}
		return it.login, true
	}
	if !jwtPaths.MatchString(r.URL.Path) || strings.Count(tok, ".") != 2 {
		return "", false
	}
	id, err := s.verifyAppJWT(tok)
	if err != nil {
		return "", false
	}
	return appLoginPrefix + strconv.FormatInt(id, 10), true
}

// verifyAppJWT checks a JWT as GitHub does: RS256, signed by the App its
// iss names, issued no later than now (60 seconds of skew allowed), not
// expired, and living at most ten minutes.
func (s *Server) verifyAppJWT(tok string) (int64, error) {
	now := s.clock()
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(tok, &claims, func(t *jwt.Token) (any, error) {
		iss, err := t.Claims.GetIssuer()
		if err != nil {
			return nil, err
		}
		id, err := strconv.ParseInt(iss, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("iss %q is not an app id", iss)
		}
		a, ok := s.appsLocked().byID[id]
		if !ok {
			return nil, fmt.Errorf("no app %d", id)
		}
		return a.key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(func() time.Time { return now }), jwt.WithIssuedAt(), jwt.WithExpirationRequired(),
		jwt.WithLeeway(60*time.Second))
	if err != nil {
		return 0, err
	}
	if claims.IssuedAt == nil || claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute+time.Minute {
		return 0, errors.New("a JWT lives at most ten minutes")
	}
	id, _ := strconv.ParseInt(claims.Issuer, 10, 64)
	return id, nil
}

// isInstallationLogin reports whether login is an App's bot user, which
// installation tokens act as. The caller holds s.mu.
func (s *Server) isInstallationLogin(login string) bool {
	if !strings.HasSuffix(login, "[bot]") || s.apps == nil {
		return false
	}
	for _, a := range s.apps.byID {
		if a.slug+"[bot]" == login {
			return true
		}
	}
	return false
}

// appOf returns the App a JWT-authenticated request acts as, or writes
// GitHub's answer to any other credential and returns nil.
func (c *ctx) appOf() *app {
	id, ok := strings.CutPrefix(c.login, appLoginPrefix)
	if ok {
		n, _ := strconv.ParseInt(id, 10, 64)
		if a := c.s.appsLocked().byID[n]; a != nil {
			return a
		}
	}
	writeError(c.w, http.StatusUnauthorized, "A JSON web token could not be decoded")
	return nil
}

func (s *Server) appRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("GET "+p+"/app", s.handle(false, getApp))
	mux.HandleFunc("GET "+p+"/repos/{owner}/{repo}/installation", s.handle(true, getRepoInstallation))
	mux.HandleFunc("POST "+p+"/app/installations/{id}/access_tokens", s.handle(false, createInstallationToken))
	mux.HandleFunc("GET "+p+"/app/installations/{id}", s.handle(false, getInstallation))
}

func getInstallation(c *ctx) {
	a := c.appOf()
	if a == nil {
		return
	}
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	in, ok := c.s.appsLocked().inst[id]
	if !ok || in.appID != a.id {
		writeError(c.w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(c.w, http.StatusOK, c.installationJSON(a, in))
}

// getUser answers GET /user; an installation token is not a user, and
// GitHub refuses it there.
func getUser(c *ctx) {
	if c.s.isInstallationLogin(c.login) {
		writeError(c.w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	writeJSON(c.w, 200, c.s.privateUser(c.login))
}

var appEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func getApp(c *ctx) {
	a := c.appOf()
	if a == nil {
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": a.id, "slug": a.slug, "node_id": "A_" + a.slug, "owner": c.s.user(DefaultLogin), "name": a.slug, "description": nil,
		"external_url": "https://example.com/" + a.slug, "html_url": c.s.url + "/apps/" + a.slug, "created_at": appEpoch, "updated_at": appEpoch,
		"permissions": appPermissions, "events": []string{},
	})
}

// appPermissions are what every stand-in installation is granted: what
// docs/github.md asks a gallivant App for.
var appPermissions = map[string]string{"contents": "write", "pull_requests": "write", "issues": "write", "checks": "read", "statuses": "read", "actions": "write", "metadata": "read"}

func (c *ctx) installationJSON(a *app, in *installation) map[string]any {
	api := c.s.url + "/api/v3"
	return map[string]any{
		"id": in.id, "app_id": a.id, "app_slug": a.slug, "target_id": c.s.user(in.account).ID, "target_type": "Organization",
		"single_file_name": nil, "repository_selection": "all", "access_tokens_url": fmt.Sprintf("%s/app/installations/%d/access_tokens", api, in.id),
		"html_url": fmt.Sprintf("%s/organizations/%s/settings/installations/%d", c.s.url, in.account, in.id), "repositories_url": api + "/installation/repositories",
		"events": []string{}, "account": c.s.user(in.account), "permissions": appPermissions, "created_at": appEpoch, "updated_at": appEpoch,
		"suspended_by": nil, "suspended_at": nil,
	}
}

func getRepoInstallation(c *ctx) {
	a := c.appOf()
	if a == nil {
		return
	}
	for _, in := range c.s.appsLocked().inst {
		if in.appID == a.id && strings.EqualFold(in.account, c.repo.Owner) {
			writeJSON(c.w, http.StatusOK, c.installationJSON(a, in))
			return
		}
	}
	writeError(c.w, http.StatusNotFound, "Not Found")
}

func createInstallationToken(c *ctx) {
	a := c.appOf()
	if a == nil {
		return
	}
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	reg := c.s.appsLocked()
	in, ok := reg.inst[id]
	if !ok || in.appID != a.id {
		writeError(c.w, http.StatusNotFound, "Not Found")
		return
	}
	// GitHub narrows a token to the permissions asked for, and refuses
	// one asked for more than the installation was granted.
	var body struct {
		Permissions  map[string]string `json:"permissions"`
		Repositories []string          `json:"repositories"`
	}
	if data, _ := io.ReadAll(io.LimitReader(c.r.Body, 1<<20)); len(data) > 0 {
		if err := json.Unmarshal(data, &body); err != nil {
			writeError(c.w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
	}
	perms := appPermissions
	if body.Permissions != nil {
		level := map[string]int{"read": 1, "write": 2, "admin": 3}
		for k, v := range body.Permissions {
			if level[v] == 0 || level[v] > level[appPermissions[k]] {
				writeError(c.w, http.StatusUnprocessableEntity, "The permissions requested are not granted to this installation.")
				return
			}
		}
		perms = body.Permissions
	}
	// GitHub narrows a token to the repositories named, each one of the
	// installation's account's.
	var repos []string
	selection := "all"
	if body.Repositories != nil {
		var ok bool
		if repos, ok = c.s.scopeRepositories(in, body.Repositories); !ok {
			writeError(c.w, http.StatusUnprocessableEntity, "There is at least one repository that does not exist or is not accessible to the parent installation.")
			return
		}
		selection = "selected"
	}
	tok := newToken()
	expires := c.s.clock().Add(reg.ttl).UTC().Truncate(time.Second)
	reg.tokens[tok] = &installationToken{login: a.slug + "[bot]", expires: expires, permissions: body.Permissions, repositories: repos}
	writeJSON(c.w, http.StatusCreated, map[string]any{"token": tok, "expires_at": expires, "permissions": perms, "repository_selection": selection})
}
