package ghstandin

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultLogin is the login of the server's main token.
const DefaultLogin = "gallivant-bot"

// Options configure a Server.
type Options struct {
	// Dir holds the bare repositories and state.json. State persists there
	// across restarts.
	Dir string
	// Token is the main token; a random one is made when empty.
	Token string
	// Login is the main token's user, DefaultLogin when empty.
	Login string
	// Clock is the server's time source; time.Now when nil.
	Clock func() time.Time
	// RateLimit is the primary rate limit per user and hour, 5000 when 0.
	RateLimit int
	// PublicURL, when set, is the base address clients reach the server
	// at (behind a proxy): every absolute URL in answers uses it, and
	// Serve does not replace it with the listen address.
	PublicURL string
	// TLS, when set, makes Serve answer HTTPS (SelfSigned makes one).
	TLS *tls.Config
}

// Server is the GitHub stand-in. Create it with New, serve Handler, and set
// its URL with SetURL (Start does both for tests).
type Server struct {
	dir   string
	clock func() time.Time
	git   *gitBackend

	mu      sync.Mutex
	st      *state
	url     string
	faults  []*activeFault
	random  *faultRates // SetFaultRates' mix; nil when off
	hold    *hold       // SetHold's (hold.go); nil when off or spent
	log     []Request
	limit   int
	rates   map[string]*rate
	mergeAt int // null reads before mergeability is computed
	// updateWait is how many requests to a repository still see the old
	// head after an update-branch is accepted.
	updateWait int
	publicURL  string // Options.PublicURL
	dirty      bool
	apps       *apps       // GitHub Apps (apps.go); nil until one is registered
	tls        *tls.Config // Options.TLS
	// outbox holds the webhook deliveries of the request under way, sent
	// once it is answered; deliveries records those sent (webhooks.go).
	outbox     []outgoing
	deliveries []Delivery

	// objs are the repositories' in-process object readers
	// (objects.go), one per repository directory, kept for the server's
	// life: objects never change.
	objsMu sync.Mutex
	objs   map[string]*objectStore
}

// state is everything that persists in state.json.
type state struct {
	NextID int64             `json:"next_id"`
	Tokens map[string]string `json:"tokens"` // token → login
	Repos  map[string]*repo  `json:"repos"`  // owner/name → repo
	// Roles are users' permissions on every repository (login → admin,
	// write or read); a user with a token and no role has write.
	Roles map[string]string `json:"roles,omitempty"`
	// Scopes are the classic OAuth scopes a login's token reports in
	// X-OAuth-Scopes (scopes.go); a login without an entry reports none,
	// as a fine-grained token does.
	Scopes map[string][]string `json:"scopes,omitempty"`
}

type repo struct {
	ID            int64                  `json:"id"`
	Owner         string                 `json:"owner"`
	Name          string                 `json:"name"`
	DefaultBranch string                 `json:"default_branch"`
	NextNumber    int                    `json:"next_number"`
	Pulls         []*pull                `json:"pulls"`
	Comments      []*issueComment        `json:"comments"`
	Issues        []*issue               `json:"issues,omitempty"` // issues that are not pull requests (issues.go)
	Reactions     []*reaction            `json:"reactions,omitempty"`
	ReviewCmts    []*reviewComment       `json:"review_comments"`
	Reviews       []*review              `json:"reviews"`
	Labels        map[string][]string    `json:"labels"` // issue number → names
	Statuses      []*commitStatus        `json:"statuses"`
	CheckRuns     []*checkRun            `json:"check_runs"`
	Dispatches    []*Dispatch            `json:"dispatches"`
	WorkflowRuns  []*WorkflowRun         `json:"workflow_runs,omitempty"`
	Protection    map[string]*Protection `json:"protection"` // branch → rules
	LabelIDs      map[string]int64       `json:"label_ids"`
	// ActionsDisabled turns GitHub Actions off for the repository
	// (scopes.go).
	ActionsDisabled bool `json:"actions_disabled,omitempty"`
	// Hooks are the repository's webhooks (webhooks.go).
	Hooks []*hook `json:"hooks,omitempty"`
	// Parent is the repository this one is a fork of (forks.go).
	Parent string `json:"parent,omitempty"`
}

// Protection is a branch's protection: the status contexts and check names
// that must pass, and whether the head must contain the base.
type Protection struct {
	RequiredContexts []string `json:"required_contexts"`
	Strict           bool     `json:"strict"`
	// Ruleset makes the rules a repository ruleset rather than classic
	// branch protection: any reader sees them through GET
	// /repos/{o}/{r}/rules/branches/{branch}, and the admin-only branch
	// protection endpoint answers 404, as on GitHub.
	Ruleset bool `json:"ruleset,omitempty"`
	// RequiredReviews is how many approving reviews a pull request into
	// the branch needs; above 0 the branch also takes changes through
	// pull requests only, so a direct push to it is refused.
	RequiredReviews int `json:"required_reviews,omitempty"`
	// AllowForcePushes lets a push rewrite the branch. GitHub's classic
	// protection refuses force-pushes and deletions unless it is set; a
	// ruleset without it carries the non_fast_forward and deletion rules.
	AllowForcePushes bool `json:"allow_force_pushes,omitempty"`
	// EnforceAdmins applies classic protection to administrators too;
	// without it an admin's push is let through, as on GitHub.
	EnforceAdmins bool `json:"enforce_admins,omitempty"`
	// BypassApps are the slugs of the GitHub Apps on the ruleset's bypass
	// list: their installation tokens push past every rule. Nobody else
	// bypasses a ruleset, administrators included.
	BypassApps []string `json:"bypass_apps,omitempty"`
}

// Dispatch is a recorded workflow_dispatch.
type Dispatch struct {
	Workflow string            `json:"workflow"`
	Ref      string            `json:"ref"`
	Inputs   map[string]string `json:"inputs"`
	At       time.Time         `json:"at"`
	Login    string            `json:"login"`
}

type pull struct {
	ID             int64      `json:"id"`
	Number         int        `json:"number"`
	Title          string     `json:"title"`
	Body           string     `json:"body"`
	User           string     `json:"user"`
	Head           string     `json:"head"`
	Base           string     `json:"base"`
	HeadSHA        string     `json:"head_sha"`
	BaseSHA        string     `json:"base_sha"`
	State          string     `json:"state"`
	Draft          bool       `json:"draft"`
	Merged         bool       `json:"merged"`
	MergedBy       string     `json:"merged_by,omitempty"`
	MergeCommitSHA string     `json:"merge_commit_sha,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	ClosedAt       *time.Time `json:"closed_at,omitempty"`
	MergedAt       *time.Time `json:"merged_at,omitempty"`
	MergeKey       string     `json:"merge_key,omitempty"`
	MergeWait      int        `json:"merge_wait,omitempty"`
	Conflict       *bool      `json:"conflict,omitempty"`
	// Update is an accepted update-branch not yet run.
	Update *branchUpdate `json:"update,omitempty"`
	// HeadRepo is the fork the head branch is in, "" for this repository;
	// MaintainerCanModify lets the parent's writers push to it (forks.go).
	HeadRepo            string `json:"head_repo,omitempty"`
	MaintainerCanModify bool   `json:"maintainer_can_modify,omitempty"`
}

type issueComment struct {
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	User      string    `json:"user"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type reviewComment struct {
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	ReviewID  int64     `json:"review_id"`
	User      string    `json:"user"`
	Body      string    `json:"body"`
	Path      string    `json:"path"`
	Line      int       `json:"line"`
	CommitID  string    `json:"commit_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type review struct {
	ID          int64      `json:"id"`
	Number      int        `json:"number"`
	User        string     `json:"user"`
	Body        string     `json:"body"`
	State       string     `json:"state"`
	CommitID    string     `json:"commit_id"`
	SubmittedAt *time.Time `json:"submitted_at,omitempty"`
}

type commitStatus struct {
	ID          int64     `json:"id"`
	SHA         string    `json:"sha"`
	State       string    `json:"state"`
	Context     string    `json:"context"`
	Description string    `json:"description"`
	TargetURL   string    `json:"target_url"`
	Creator     string    `json:"creator"`
	CreatedAt   time.Time `json:"created_at"`
}

type checkRun struct {
	ID          int64      `json:"id"`
	HeadSHA     string     `json:"head_sha"`
	Name        string     `json:"name"`
	Status      string     `json:"status"`
	Conclusion  string     `json:"conclusion,omitempty"`
	DetailsURL  string     `json:"details_url"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	// Output and JobLog: see joblogs.go.
	Output *checkOutput `json:"output,omitempty"`
	JobLog string       `json:"job_log,omitempty"`
}

type rate struct {
	used  int
	reset time.Time
}

// New creates a server over dir, loading its state when dir already holds one.
func New(opts Options) (*Server, error) {
	if opts.Dir == "" {
		return nil, errors.New("ghstandin: Options.Dir is required")
	}
	// git runs in the repository's directory, so a relative --dir
	// would send git over HTTP somewhere else than the API.
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("ghstandin: %w", err)
	}
	opts.Dir = dir
	if err := os.MkdirAll(filepath.Join(opts.Dir, "repos"), 0o755); err != nil {
		return nil, err
	}
	if err := writeHooks(opts.Dir); err != nil {
		return nil, err
	}
	s := &Server{dir: opts.Dir, clock: opts.Clock, limit: opts.RateLimit, rates: map[string]*rate{}, mergeAt: 1, updateWait: 1,
		publicURL: strings.TrimRight(opts.PublicURL, "/"), tls: opts.TLS}
	s.url = s.publicURL
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.limit == 0 {
		s.limit = 5000
	}
	st, err := loadState(filepath.Join(opts.Dir, "state.json"))
	if err != nil {
		return nil, err
	}
	s.st = st
	login := opts.Login
	if login == "" {
		login = DefaultLogin
	}
	if opts.Token != "" {
		s.st.Tokens[opts.Token] = login
	} else if s.tokenOf(login) == "" {
		s.st.Tokens[newToken()] = login
	}
	backend, err := httpBackend()
	if err != nil {
		return nil, err
	}
	// Git is served where GitHub Enterprise serves it, next to the API:
	// http://host/owner/name.git, so clients derive it from the API URL.
	env := append([]string{"GIT_PROJECT_ROOT=" + filepath.Join(opts.Dir, "repos"), "GIT_HTTP_EXPORT_ALL=1",
		// Every repository's pushes go through the protection hook.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=" + filepath.Join(opts.Dir, "hooks")}, gitEnv...)
	s.git = &gitBackend{root: filepath.Join(opts.Dir, "repos"), env: env, cgi: &cgi.Handler{Path: backend, Root: "/", Env: env}}
	return s, s.save()
}

// httpBackend is git-http-backend's path, asked of git once per process:
// every Server of a test binary serves with the same git.
var httpBackend = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("ghstandin: git is required: %w", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("ghstandin: git-http-backend not found: %w", err)
	}
	return p, nil
})

func newToken() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "ghs_" + hex.EncodeToString(b)
}

func loadState(path string) (*state, error) {
	st := &state{NextID: 1000, Tokens: map[string]string{}, Repos: map[string]*repo{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("ghstandin: %s: %w", path, err)
	}
	return st, nil
}

// save writes state.json atomically. The caller holds s.mu.
func (s *Server) save() error {
	data, err := json.MarshalIndent(s.st, "", "  ")
	if err != nil {
		return err
	}
	// state.json holds every token: readable by its owner only, from the
	// moment it exists (CreateTemp makes it 0600).
	f, err := os.CreateTemp(s.dir, ".state.json.*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(s.dir, "state.json"))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (s *Server) id() int64 { s.st.NextID++; return s.st.NextID }

func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

func (s *Server) tokenOf(login string) string {
	for t, l := range s.st.Tokens {
		if l == login {
			return t
		}
	}
	return ""
}

// SetURL records the address the server is reachable at (http://host:port).
func (s *Server) SetURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.url = strings.TrimRight(u, "/")
}

// URL returns the server's base address.
func (s *Server) URL() string { s.mu.Lock(); defer s.mu.Unlock(); return s.url }

// APIURL returns the REST base URL for clients: <url>/api/v3/.
func (s *Server) APIURL() string { return s.URL() + "/api/v3/" }

// GitURL returns the smart-HTTP clone URL of a repository, laid out as on
// GitHub Enterprise: <url>/owner/name.git.
func (s *Server) GitURL(fullName string) string { return s.URL() + "/" + fullName + ".git" }

// GitURLWithToken returns the clone URL of a repository carrying token as
// its credentials (user x-access-token), as a person or CI job embeds an
// installation token on GitHub; git over HTTP needs a token to push.
func (s *Server) GitURLWithToken(fullName, token string) string {
	return strings.Replace(s.GitURL(fullName), "://", "://x-access-token:"+token+"@", 1)
}

// RepoDir returns the bare repository's directory, for file:// remotes.
func (s *Server) RepoDir(fullName string) string {
	return filepath.Join(s.dir, "repos", filepath.FromSlash(fullName)+".git")
}

// repoGit is the git of a repository by its full name, with the
// repository's in-process object reader.
func (s *Server) repoGit(fullName string) gitRepo {
	dir := s.RepoDir(fullName)
	s.objsMu.Lock()
	defer s.objsMu.Unlock()
	if s.objs == nil {
		s.objs = map[string]*objectStore{}
	}
	o := s.objs[dir]
	if o == nil {
		o = openObjects(dir)
		s.objs[dir] = o
	}
	return gitRepo{dir: dir, objs: o}
}

// Token returns the token of login, creating the user when it is new.
func (s *Server) Token(login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tokenOf(login); t != "" {
		return t
	}
	t := newToken()
	s.st.Tokens[t] = login
	_ = s.save()
	return t
}

// Permission levels a user can hold on a repository, as GitHub's
// collaborator-permission endpoint reports them.
const (
	RoleAdmin = "admin"
	RoleWrite = "write"
	RoleRead  = "read"
	RoleNone  = "none"
)

// SetRole gives login (creating it when new) the role admin, write or read
// on every repository and returns its token. An outsider holds read: it can
// comment, review and open pull requests, but not push, label, merge, set
// statuses or dispatch workflows.
func (s *Server) SetRole(login, role string) (string, error) {
	switch role {
	case RoleAdmin, RoleWrite, RoleRead:
	default:
		return "", fmt.Errorf("ghstandin: role %q is not admin, write or read", role)
	}
	t := s.Token(login)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Roles == nil {
		s.st.Roles = map[string]string{}
	}
	s.st.Roles[login] = role
	return t, s.save()
}

// roleOf is login's permission on r: the owner and the main token are admin, a user with a
// token and no role has write, an unknown login none. The caller holds s.mu.
func (s *Server) roleOf(r *repo, login string) string {
	if login == "" {
		return RoleNone
	}
	if strings.EqualFold(login, r.Owner) {
		return RoleAdmin
	}
	if r.Parent != "" {
		// A fork is its owner's: everyone else reads it (maintainers
		// may push to a pull request's head, see maintainerPush).
		if s.tokenOf(login) != "" || s.isInstallationLogin(login) {
			return RoleRead
		}
		return RoleNone
	}
	if strings.EqualFold(login, DefaultLogin) {
		// The main token administers every repository, as the account
		// that set the sandbox up would.
		return RoleAdmin
	}
	if role, ok := s.st.Roles[login]; ok {
		return role
	}
	if s.tokenOf(login) != "" || s.isInstallationLogin(login) {
		return RoleWrite
	}
	return RoleNone
}

// Users returns every login with a token other than the default one,
// sorted, with its token: the users a restarted sandbox still knows.
func (s *Server) Users() [][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := map[string]string{}
	for t, l := range s.st.Tokens {
		if l != DefaultLogin && (best[l] == "" || t < best[l]) {
			best[l] = t
		}
	}
	var out [][2]string
	for l, t := range best {
		out = append(out, [2]string{l, t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// MainToken returns the token of the default login.
func (s *Server) MainToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := ""
	for t, l := range s.st.Tokens {
		if l == DefaultLogin && (best == "" || t < best) {
			best = t
		}
	}
	return best
}

var repoNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)

// CreateRepo creates a repository whose default branch holds one commit. It
// is a no-op for a repository that exists.
func (s *Server) CreateRepo(fullName, defaultBranch string) error {
	if !repoNameRE.MatchString(fullName) || strings.Contains(fullName, "..") {
		return fmt.Errorf("ghstandin: %q is not owner/name", fullName)
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.st.Repos[fullName]; ok {
		return nil
	}
	owner, name, _ := strings.Cut(fullName, "/")
	if _, err := initBare(s.RepoDir(fullName), defaultBranch, owner, s.now()); err != nil {
		return err
	}
	s.st.Repos[fullName] = &repo{ID: s.id(), Owner: owner, Name: name, DefaultBranch: defaultBranch, NextNumber: 1,
		Labels: map[string][]string{}, Protection: map[string]*Protection{}, LabelIDs: map[string]int64{}}
	return s.save()
}

// Repos returns the repositories' full names, sorted.
func (s *Server) Repos() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.st.Repos {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Protect sets a branch's protection rules.
func (s *Server) Protect(fullName, branch string, p Protection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.st.Repos[fullName]; r != nil {
		r.Protection[branch] = &p
		_ = s.save()
	}
}

// SetMergeabilityDelay sets how many reads of a pull request return
// `mergeable: null` after its head or base moves (1 by default; a large
// number keeps it unknown).
func (s *Server) SetMergeabilityDelay(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mergeAt = n
}

// SetUpdateBranchDelay sets how many requests to a repository (1 by
// default) still see a pull request's old head after GitHub accepted an
// update-branch with 202; the merge lands on the request after them.
func (s *Server) SetUpdateBranchDelay(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updateWait = max(0, n)
}

// Dispatches returns the workflow dispatches recorded for a repository.
func (s *Server) Dispatches(fullName string) []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Dispatch
	if r := s.st.Repos[fullName]; r != nil {
		for _, d := range r.Dispatches {
			out = append(out, *d)
		}
	}
	return out
}

// SetRemaining sets a login's remaining primary rate limit for this hour.
func (s *Server) SetRemaining(login string, remaining int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rateOf(login)
	r.used = max(0, s.limit-remaining)
}

// anonymousRate keys the unauthenticated rate limit, anonymousLimit its
// requests an hour, as on GitHub.
const (
	anonymousRate  = "\x00anonymous"
	anonymousLimit = 60
)

func (s *Server) rateOf(login string) *rate {
	r := s.rates[login]
	now := s.now()
	if r == nil || !now.Before(r.reset) {
		r = &rate{reset: now.Add(time.Hour)}
		s.rates[login] = r
	}
	return r
}

// gitPathRE matches smart-HTTP git paths: /owner/name.git/...
var gitPathRE = regexp.MustCompile(`^/([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)\.git(/.*)?$`)

// Handler returns the server's HTTP handler: the REST API under /api/v3/,
// GraphQL at /api/graphql (as GitHub Enterprise serves them) and smart-HTTP
// git at /owner/name.git.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apiPrefix(r)
		switch {
		case gitPathRE.MatchString(r.URL.Path) && !strings.Contains(r.URL.Path, ".."):
			s.serveGit(w, r)
		case strings.HasPrefix(r.URL.Path, "/api/v3/"), r.URL.Path == "/api/graphql":
			s.serveAPI(mux, w, r)
		case strings.HasPrefix(r.URL.Path, jobLogPrefix):
			s.serveJobLog(w, r)
		default:
			writeError(w, http.StatusNotFound, "Not Found")
		}
	})
}

// apiPrefix lets clients join the base URL with or without its trailing
// slash: "$GITHUB_API_URL/repos/…" with GITHUB_API_URL=<url>/api/v3/ asks
// for /api/v3//repos/…, which the mux would otherwise answer with a
// redirect that curl does not follow.
func apiPrefix(r *http.Request) {
	const p = "/api/v3/"
	if !strings.HasPrefix(r.URL.Path, p+"/") {
		return
	}
	r.URL.Path = p + strings.TrimLeft(r.URL.Path[len(p):], "/")
	r.URL.RawPath = ""
}

// Request is one logged API request.
type Request struct {
	Method, Path, Query string
	Login               string
	Status              int
	// Counted reports that the request consumed rate limit; NotModified
	// that it was a conditional request answered 304.
	Counted, NotModified bool
	At                   time.Time
}

// Requests returns the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Counts summarizes the request log.
type Counts struct{ Total, Counted, NotModified, GraphQL int }

// Counts returns how many requests were served, consumed rate limit (the
// GraphQL budget's included), were answered 304, and were GraphQL
// requests (POST /api/graphql, never 304).
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c Counts
	for _, r := range s.log {
		c.Total++
		if r.Counted {
			c.Counted++
		}
		if r.NotModified {
			c.NotModified++
		}
		if r.Path == "/api/graphql" {
			c.GraphQL++
		}
	}
	return c
}

// ResetLog empties the request log.
func (s *Server) ResetLog() { s.mu.Lock(); defer s.mu.Unlock(); s.log = nil }

// recorder buffers a handler's response so the middleware can compute its
// ETag and answer 304 without consuming rate limit.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }

func (s *Server) serveAPI(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	login, ok := s.authenticate(r)
	entry := Request{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, "/api/v3"), Query: r.URL.RawQuery, Login: login, At: s.clock()}
	logIt := func(status int, counted, notModified bool) {
		s.mu.Lock()
		entry.Status, entry.Counted, entry.NotModified = status, counted, notModified
		s.log = append(s.log, entry)
		s.mu.Unlock()
	}
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	w.Header().Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
	w.Header().Set("X-GitHub-Request-Id", strconv.FormatInt(time.Now().UnixNano(), 36))
	if !ok {
		// GitHub answers a bad token with the unauthenticated limit's
		// headers: 60 requests an hour, this one among them.
		s.mu.Lock()
		anon := s.rateOf(anonymousRate)
		anon.used++
		w.Header().Set("X-RateLimit-Limit", strconv.Itoa(anonymousLimit))
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(max(0, anonymousLimit-anon.used)))
		w.Header().Set("X-RateLimit-Used", strconv.Itoa(anon.used))
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(anon.reset.Unix(), 10))
		w.Header().Set("X-RateLimit-Resource", "core")
		s.mu.Unlock()
		logIt(http.StatusUnauthorized, false, false)
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if s.awaitHold(r, entry.Path) {
		logIt(0, false, false) // no answer: the client went away
		return
	}
	counts := entry.Path != "/rate_limit"
	resource := rateResource(r.URL.Path)
	s.mu.Lock()
	s.setScopeHeaders(w.Header(), login)
	rl := s.rateOf(rateKey(login, resource))
	exhausted := counts && rl.used >= s.limit
	s.setRateHeaders(w.Header(), rl, resource)
	s.mu.Unlock()
	if exhausted {
		w.Header().Set("X-RateLimit-Remaining", "0")
		logIt(http.StatusForbidden, false, false)
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "API rate limit exceeded for user " + login + ".",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
		})
		return
	}
	f := s.matchFault(r.Method, entry.Path, false)
	if f == nil {
		f = s.drawFault(r.Method, entry.Path)
	}
	if f != nil && f.Kind != FaultLostResponse {
		status := s.applyFault(f, w, r, rl)
		logIt(status, false, false)
		return
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	mux.ServeHTTP(rec, r)
	if f != nil {
		logIt(http.StatusBadGateway, false, false)
		writeError(w, http.StatusBadGateway, "Bad Gateway")
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	if r.Method == http.MethodGet && rec.status == http.StatusOK {
		// GitHub's ETags vary with the token (Vary: Authorization): the
		// same answer to another token has another ETag.
		sum := sha256.Sum256(append([]byte(r.Header.Get("Authorization")+"\x00"), rec.body.Bytes()...))
		etag := `"` + hex.EncodeToString(sum[:20]) + `"`
		w.Header().Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
			// GitHub: a 304 does not count against the primary rate limit.
			logIt(http.StatusNotModified, false, true)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	counted := counts && rec.status < 500
	if counted {
		s.mu.Lock()
		rl.used++
		s.setRateHeaders(w.Header(), rl, resource)
		s.mu.Unlock()
	}
	// Logged before the answer is written: a client that reads the log
	// right after its response must find its request there.
	logIt(rec.status, counted, false)
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
	// Webhooks go out once the request that caused them is answered.
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.deliver(r.Context())
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func (s *Server) setRateHeaders(h http.Header, rl *rate, resource string) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, s.limit-rl.used)))
	h.Set("X-RateLimit-Used", strconv.Itoa(rl.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(rl.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
}

func (s *Server) authenticate(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	tok := ""
	switch {
	case strings.HasPrefix(h, "Bearer "):
		tok = strings.TrimPrefix(h, "Bearer ")
	case strings.HasPrefix(h, "token "):
		tok = strings.TrimPrefix(h, "token ")
	default:
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if login, ok := s.st.Tokens[tok]; ok {
		return login, ok
	}
	return s.authenticateApp(r, tok)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

// paginate writes a page of items with GitHub's Link header, whose URLs
// are absolute as GitHub's are.
func paginate[T any](c *ctx, items []T) {
	writeJSON(c.w, http.StatusOK, pageOf(c, items, 30, 100))
}

// pageOf cuts the page the request asks for (page, per_page with GitHub's
// default and maximum for the route) and sets the Link header for it.
func pageOf[T any](c *ctx, items []T, def, most int) []T {
	w, r := c.w, c.r
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = def
	}
	per = min(per, most)
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(p int, rel string) string {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = v
		}
		q2.Set("page", strconv.Itoa(p))
		q2.Set("per_page", strconv.Itoa(per))
		u := *r.URL
		u.RawQuery = q2.Encode()
		return fmt.Sprintf("<%s%s>; rel=%q", c.s.url, u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := min((page-1)*per, len(items))
	end := min(start+per, len(items))
	out := items[start:end]
	if out == nil {
		out = []T{}
	}
	return out
}
