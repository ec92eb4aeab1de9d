package githubapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/wait"
)

// Options configure the GitHub adapter.
type Options struct {
	// APIURL is the REST base URL; https://api.github.com/ when empty.
	// Anything else is treated as GitHub Enterprise.
	APIURL string
	// Token authenticates every request. It never appears in logs or errors.
	Token string
	// Login, when set, is the login the credentials act as, answered by
	// CurrentUser without asking: a GitHub App's installation token acts
	// as "<slug>[bot]" and GitHub refuses it GET /user (AppTokens.Login).
	Login string
	// Transport is the network transport; http.DefaultTransport when nil.
	Transport http.RoundTripper
	// Attempts bounds tries per GET (5xx, timeouts, short secondary
	// limits); 4 when 0.
	Attempts int
	// Backoff is the first retry's wait, doubled each time with jitter;
	// 500ms when 0.
	Backoff time.Duration
	// MaxSecondaryWait is the longest Retry-After waited out within a pass;
	// 60s when 0. Longer ones return a *RateLimitedError.
	MaxSecondaryWait time.Duration
	// Timeout bounds each attempt; 30s when 0.
	Timeout time.Duration
	// CacheBytes bounds the ETag cache; 64 MiB when 0.
	CacheBytes int
	// Logger receives the adapter's narration; slog.Default when nil.
	Logger *slog.Logger
	// Sleep waits between retries; tests replace it. A real sleep when nil.
	Sleep func(context.Context, time.Duration) error
	// StateDir, when set, is where the ETag cache and discovery state
	// persist between processes (one file per credential, written by
	// SaveState); nothing persists when empty.
	StateDir string
	// Now is the adapter's clock (how long a hidden branch protection is
	// remembered); time.Now when nil. Tests replace it.
	Now func() time.Time
}

// Client is gallivant's view of GitHub: exactly the operations the
// reconciler needs, each returning plain values. Reads are conditional, so
// an unchanged resource costs no rate limit.
type Client struct {
	c     *github.Client
	cache *etagCache
	log   *slog.Logger

	mu    sync.Mutex
	known map[string]*discovery // per repository: what the last pass saw
	// protectionHidden remembers branches whose classic protection
	// answered 403 or 404 (unprotected, or not readable with this token):
	// no ETag makes such an answer free, so it is kept while the caller's
	// key for it holds (required.go), for at most protectionHiddenTTL. It
	// never means "unprotected": repository rules and the merge state are
	// still read. hiddenChanges counts its changes for SaveState.
	protectionHidden map[string]hiddenProtection
	hiddenChanges    int
	// protectionRead holds the branches whose classic protection last
	// answered its REST read with a 200, and since when (required.go
	// protectionReadable); hiddenChanges counts its changes too.
	protectionRead map[string]time.Time
	// graphQLRefused is a remembered refusal of GraphQL
	// (graphqlrefused.go); hiddenChanges counts its changes too.
	graphQLRefused *graphQLRefusal
	now            func() time.Time
	login          string // the token's login, once asked
	fixedLogin     string // Options.Login

	// seenRepos holds the repositories seen to exist (repomissing.go).
	seenRepos map[string]bool

	// quiet holds the callers' pull-request marks (marks.go), keyed
	// repo#number; quietChanges counts their changes for SaveState.
	quiet        map[string]json.RawMessage
	quietChanges int

	meter     *meter
	statePath string // "" when nothing persists
	// saved is set once the state file matches the adapter: after a load
	// or a save, at savedChanges cache changes and savedShape (discovered
	// repositories, hidden protections, quiet mark changes).
	saved        bool
	savedChanges int
	savedShape   [3]int
	// savedAt is when the file was written, and savedHits the cache's
	// hits then: reads answered 304 change nothing but when their entries
	// were last used, which the file learns at most every stateRefresh.
	savedAt   time.Time
	savedHits int
}

// protectionHiddenTTL bounds how long an unreadable branch protection is
// not asked again while its key holds: protection granted or added
// without a change of the base branch or the configuration is noticed
// within it.
const protectionHiddenTTL = 24 * time.Hour

// RateLimitedError reports that GitHub's rate limit is exhausted: the
// primary limit until Until, or a secondary limit asking to wait.
type RateLimitedError struct {
	Secondary bool
	Until     time.Time
	Op        string
}

func (e *RateLimitedError) Error() string {
	kind := "primary"
	if e.Secondary {
		kind = "secondary"
	}
	return fmt.Sprintf("github %s rate limit exhausted during %s; retry after %s", kind, e.Op, e.Until.UTC().Format(time.RFC3339))
}

// ErrCredentials is matched (errors.Is) by every error that means GitHub
// rejected the token: no pass can make progress with it, so callers stop
// the pass and say so rather than noting it per entry.
var ErrCredentials = errors.New("github rejected the credentials")

// ErrUnreachable is matched (errors.Is) by every error that means GitHub
// could not be reached at all: connection refused, a failed DNS lookup,
// after the adapter's retries.
var ErrUnreachable = errors.New("github unreachable")

// CredentialsError reports that GitHub answered 401 to Op. Message is what
// GitHub said ("Bad credentials"); the token is never part of it.
type CredentialsError struct {
	Op      string
	Status  int
	Message string
}

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("%s: github rejected the credentials: %d %s", e.Op, e.Status, e.Message)
}

// Is makes errors.Is(err, ErrCredentials) true.
func (e *CredentialsError) Is(target error) bool { return target == ErrCredentials }

// UnreachableError reports that Op could not reach GitHub; Err is the
// network error, whose text names the host but never the token.
type UnreachableError struct {
	Op  string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: github unreachable: %v", e.Op, e.Err)
}

// Unwrap returns the network error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnreachable) true.
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// unreachable reports whether err is a failure to reach the server at all:
// a refused or failed connection, a failed DNS lookup. A timeout or a
// reset connection means GitHub was reached but slow or flaky; that delays
// the entries it hits (a problem per entry) rather than the whole pass.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" && !op.Timeout()
}

// NotFoundError reports a resource GitHub does not have (or hides). What
// is the operation that looked for it; the error wrapping it already names
// the operation, so the message does not repeat it.
type NotFoundError struct{ What string }

func (e *NotFoundError) Error() string { return "not found on GitHub" }

// New returns an adapter over go-github with the ETag cache and retries.
func New(opts Options) (*Client, error) {
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.Attempts == 0 {
		opts.Attempts = 4
	}
	if opts.Backoff == 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.MaxSecondaryWait == 0 {
		opts.MaxSecondaryWait = 60 * time.Second
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = 64 << 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Sleep == nil {
		opts.Sleep = wait.For
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := newMeter(opts.Transport)
	retry := &retrying{next: m, attempts: opts.Attempts, base: opts.Backoff, maxWait: opts.MaxSecondaryWait,
		timeout: opts.Timeout, sleep: opts.Sleep, log: opts.Logger}
	cache := newETagCache(retry, opts.CacheBytes, opts.Now)
	c := github.NewClient(&http.Client{Transport: cache}).WithAuthToken(opts.Token)
	if opts.APIURL != "" && strings.TrimRight(opts.APIURL, "/") != "https://api.github.com" {
		var err error
		c, err = c.WithEnterpriseURLs(opts.APIURL, opts.APIURL)
		if err != nil {
			return nil, fmt.Errorf("github api_url %q: %w", opts.APIURL, err)
		}
	}
	g := &Client{c: c, cache: cache, log: opts.Logger, known: map[string]*discovery{}, protectionHidden: map[string]hiddenProtection{}, now: opts.Now, meter: m, fixedLogin: opts.Login}
	if opts.StateDir != "" {
		// Keyed by the credential: a token, or an App's bot login (its
		// installation tokens change every hour).
		g.statePath = statePath(opts.StateDir, c.BaseURL.String(), opts.Token+opts.Login)
		g.loadState()
	}
	return g, nil
}

// CacheHits returns how many reads were answered 304 and served from the cache.
func (g *Client) CacheHits() int {
	g.cache.mu.Lock()
	defer g.cache.mu.Unlock()
	return g.cache.hits
}

// classify turns go-github's errors into the adapter's typed ones. go-github
// v66 does not classify 429, so a 429 is read here: with remaining 0 it is
// the primary limit, with Retry-After a secondary one.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var rle *github.RateLimitError
	if errors.As(err, &rle) {
		return &RateLimitedError{Until: rle.Rate.Reset.Time, Op: op}
	}
	var are *github.AbuseRateLimitError
	if errors.As(err, &are) {
		until := time.Now().Add(time.Minute)
		if are.RetryAfter != nil {
			until = time.Now().Add(*are.RetryAfter)
		}
		return &RateLimitedError{Secondary: true, Until: until, Op: op}
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusTooManyRequests:
			h := er.Response.Header
			if h.Get("X-RateLimit-Remaining") == "0" {
				reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
				return &RateLimitedError{Until: time.Unix(reset, 0), Op: op}
			}
			until := time.Now().Add(time.Minute)
			if ra := retryAfter(er.Response); ra > 0 {
				until = time.Now().Add(ra)
			}
			return &RateLimitedError{Secondary: true, Until: until, Op: op}
		case http.StatusNotFound:
			return fmt.Errorf("%s: %w", op, &NotFoundError{What: op})
		case http.StatusUnauthorized:
			return &CredentialsError{Op: op, Status: er.Response.StatusCode, Message: er.Message}
		}
	}
	if unreachable(err) {
		return &UnreachableError{Op: op, Err: err}
	}
	return fmt.Errorf("%s: %w", op, err)
}

func splitRepo(repo string) (string, string) {
	owner, name, _ := strings.Cut(repo, "/")
	return owner, name
}

// self returns the token's login, asked once: a token's owner does not
// change while the adapter lives.
func (g *Client) self(ctx context.Context) (string, error) {
	g.mu.Lock()
	login := g.login
	g.mu.Unlock()
	if login != "" {
		return login, nil
	}
	login, err := g.CurrentUser(ctx)
	if err != nil {
		return "", err
	}
	if login == "" {
		return "", errors.New("github reported no login for the token")
	}
	g.mu.Lock()
	g.login = login
	g.mu.Unlock()
	return login, nil
}

// perPage is the page size of every list read: GitHub's maximum, so a
// list costs as few requests as it can.
const perPage = 100

// readPages reads a list page by page, following GitHub's Link header,
// and is the adapter's one pagination loop. fetch reads page n (1-based;
// it sets the page in its own options); more, when not nil, may end the
// read early after a page. Errors are classified under op.
func readPages[T any](op string, fetch func(page int) ([]T, *github.Response, error), more func(page []T) bool) ([]T, error) {
	var out []T
	for page := 1; ; {
		items, resp, err := fetch(page)
		if err != nil {
			return out, classify(op, err)
		}
		out = append(out, items...)
		// more sees every page, the last one too.
		keep := more == nil || more(items)
		if resp == nil || resp.NextPage == 0 || !keep {
			return out, nil
		}
		page = resp.NextPage
	}
}

// CurrentUser returns the login the token belongs to.
func (g *Client) CurrentUser(ctx context.Context) (string, error) {
	if g.fixedLogin != "" {
		return g.fixedLogin, nil
	}
	u, _, err := g.c.Users.Get(ctx, "")
	return u.GetLogin(), classify("get the authenticated user", err)
}

// Permission is a login's access to a repository in GitHub's legacy
// permission names.
type Permission string

// Permissions.
const (
	PermAdmin Permission = "admin"
	PermWrite Permission = "write"
	PermRead  Permission = "read"
	PermNone  Permission = "none"
)

// Writes reports whether the permission includes write access: admin or
// write (maintain folds into write).
func (p Permission) Writes() bool { return p == PermAdmin || p == PermWrite }

// Permission returns login's permission on repo as GitHub's legacy
// permission names it: admin, write, read or none. GitHub's finer roles
// fold into these (maintain is write, triage is read), and a login GitHub
// does not know, or hides, is none. Callers decide who may steer from it;
// the answer is read fresh, so callers cache it per pass.
func (g *Client) Permission(ctx context.Context, repo, login string) (Permission, error) {
	o, n := splitRepo(repo)
	p, _, err := g.c.Repositories.GetPermissionLevel(ctx, o, n, login)
	if err != nil {
		err = classify("read the permission of "+login+" on "+repo, err)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			return PermNone, nil
		}
		return "", err
	}
	switch perm := Permission(p.GetPermission()); perm {
	case PermAdmin, PermWrite, PermRead:
		return perm, nil
	case "maintain":
		return PermWrite, nil
	case "triage":
		return PermRead, nil
	}
	return PermNone, nil
}

// BranchHead returns a branch's head commit, or ok false when the branch
// does not exist.
func (g *Client) BranchHead(ctx context.Context, repo, branch string) (sha string, ok bool, err error) {
	o, n := splitRepo(repo)
	ref, _, err := g.c.Git.GetRef(ctx, o, n, "heads/"+branch)
	if err != nil {
		err = classify("read branch "+branch+" of "+repo, err)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			if merr := g.repoMissing(ctx, repo); merr != nil {
				return "", false, merr
			}
			return "", false, nil
		}
		return "", false, err
	}
	g.sawRepo(repo)
	return ref.GetObject().GetSHA(), true, nil
}

// CreateBranch creates a branch at sha. An existing branch at the same sha
// is not an error, so the call is idempotent.
func (g *Client) CreateBranch(ctx context.Context, repo, branch, sha string) error {
	o, n := splitRepo(repo)
	_, _, err := g.c.Git.CreateRef(ctx, o, n, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: &sha}})
	if err == nil {
		return nil
	}
	if head, ok, rerr := g.BranchHead(ctx, repo, branch); rerr == nil && ok && head == sha {
		return nil
	}
	return classify("create branch "+branch+" in "+repo, err)
}

// Commit is one commit as the reconciler needs it.
type Commit struct {
	SHA     string
	Subject string
	Body    string
	Parents []string
	// CommittedAt is the committer date.
	CommittedAt time.Time
}

// CompareStatus is how head relates to base in a comparison.
type CompareStatus string

// Comparison statuses: GitHub's four, and CompareUnrelated when GitHub
// answers the comparison 404 because the two share no history (an
// unrelated force-push) or base is no commit of the repository any more.
// In every status but ahead and identical, head does not contain base.
const (
	CompareAhead     CompareStatus = "ahead"
	CompareBehind    CompareStatus = "behind"
	CompareDiverged  CompareStatus = "diverged"
	CompareIdentical CompareStatus = "identical"
	CompareUnrelated CompareStatus = "unrelated"
)

// Contains reports whether head contains base: head is base or ahead of it.
func (s CompareStatus) Contains() bool { return s == CompareAhead || s == CompareIdentical }

// Comparison is base...head: the commits head adds since their merge base.
type Comparison struct {
	Status  CompareStatus
	AheadBy int
	// Commits are the commits after the merge base, oldest first.
	Commits []Commit
	// Files is how many files the commits change together.
	Files int
	// Paths are the files the commits change together, a renamed file
	// under both its names. GitHub lists at most CompareFilesCap files.
	Paths []string
}

// CompareFilesCap is the most files GitHub lists in a comparison: a
// comparison of that many may change more.
const CompareFilesCap = 300

// Compare returns the commits head has that base lacks. A comparison
// GitHub answers 404 is CompareUnrelated, with no commits: the callers
// compare commits they read from the repository moments before (a head,
// a merge commit), so what is missing is their shared history. An answer
// other than GitHub's four statuses is an error.
func (g *Client) Compare(ctx context.Context, repo, base, head string) (Comparison, error) {
	o, n := splitRepo(repo)
	var out Comparison
	// Paginated, the commits come a page at a time; the status, counts
	// and files come with the first page.
	commits, err := readPages("compare "+base+"..."+head+" in "+repo, func(page int) ([]*github.RepositoryCommit, *github.Response, error) {
		cmp, resp, err := g.c.Repositories.CompareCommits(ctx, o, n, base, head, &github.ListOptions{PerPage: perPage, Page: page})
		if err != nil {
			return nil, resp, err
		}
		if page == 1 {
			out = Comparison{Status: CompareStatus(cmp.GetStatus()), AheadBy: cmp.GetAheadBy(), Files: len(cmp.Files)}
			for _, f := range cmp.Files {
				out.Paths = append(out.Paths, f.GetFilename())
				if prev := f.GetPreviousFilename(); prev != "" {
					out.Paths = append(out.Paths, prev)
				}
			}
		}
		return cmp.Commits, resp, nil
	}, nil)
	if nf := (*NotFoundError)(nil); errors.As(err, &nf) {
		return Comparison{Status: CompareUnrelated}, nil
	}
	if err != nil {
		return Comparison{}, err
	}
	switch out.Status {
	case CompareAhead, CompareBehind, CompareDiverged, CompareIdentical:
	default:
		return Comparison{}, fmt.Errorf("compare %s...%s in %s: GitHub answered the status %.40q, want ahead, behind, diverged or identical", short(base), short(head), repo, string(out.Status))
	}
	for _, c := range commits {
		subject, body, _ := strings.Cut(c.GetCommit().GetMessage(), "\n")
		var parents []string
		for _, p := range c.Parents {
			parents = append(parents, p.GetSHA())
		}
		out.Commits = append(out.Commits, Commit{SHA: c.GetSHA(), Subject: subject, Body: strings.TrimLeft(body, "\n"),
			Parents: parents, CommittedAt: c.GetCommit().GetCommitter().GetDate().Time})
	}
	return out, nil
}

// CommitInfo is one commit's committer date and how many files it changes.
type CommitInfo struct {
	CommittedAt time.Time
	Files       int
}

// GetCommit reads one commit. Commits are immutable, so after the first
// read the ETag cache answers it without rate limit.
func (g *Client) GetCommit(ctx context.Context, repo, sha string) (CommitInfo, error) {
	o, n := splitRepo(repo)
	var out CommitInfo
	// GitHub pages a commit's files and repeats the commit on each page.
	files, err := readPages("read commit "+short(sha)+" of "+repo, func(page int) ([]*github.CommitFile, *github.Response, error) {
		c, resp, err := g.c.Repositories.GetCommit(ctx, o, n, sha, &github.ListOptions{PerPage: perPage, Page: page})
		if err != nil {
			return nil, resp, err
		}
		out.CommittedAt = c.GetCommit().GetCommitter().GetDate().Time
		return c.Files, resp, nil
	}, nil)
	if err != nil {
		return CommitInfo{}, err
	}
	out.Files = len(files)
	return out, nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// PullRequest is a pull request as the reconciler and gatekeep read it.
type PullRequest struct {
	Repo   string
	Number int
	// NodeID is GitHub's global id, which GraphQL mutations take.
	NodeID string
	// State is open or closed (gatekeep.PROpen, PRClosed): a merged pull
	// request is closed, with Merged set.
	State          gatekeep.PRState
	Merged         bool
	MergeCommitSHA string
	Draft          bool
	Title, Body    string
	Author         string
	HeadRef        string
	// HeadRepo is the repository the head branch lives in (owner/name): a
	// fork's for a pull request from a fork; "" when GitHub omits it.
	HeadRepo string
	// MaintainerCanModify: the author of a fork's pull request lets the
	// base repository's writers push to its head branch.
	MaintainerCanModify bool
	HeadSHA             string
	BaseRef             string
	BaseSHA             string
	// Mergeable is nil while GitHub computes it.
	Mergeable      *bool
	MergeableState gatekeep.MergeState
	Labels         []string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Ref renders owner/name#n.
func (p PullRequest) Ref() string { return p.Repo + "#" + strconv.Itoa(p.Number) }

// prState types GitHub's pull-request state: anything but open reads as
// closed.
func prState(s string) gatekeep.PRState {
	if s == string(gatekeep.PROpen) {
		return gatekeep.PROpen
	}
	return gatekeep.PRClosed
}

func toPR(repo string, p *github.PullRequest) PullRequest {
	out := PullRequest{Repo: repo, Number: p.GetNumber(), NodeID: p.GetNodeID(), State: prState(p.GetState()), Merged: p.GetMerged() || p.MergedAt != nil,
		MergeCommitSHA: p.GetMergeCommitSHA(), Draft: p.GetDraft(), Title: p.GetTitle(), Body: p.GetBody(), Author: p.GetUser().GetLogin(),
		HeadRef: p.GetHead().GetRef(), HeadRepo: p.GetHead().GetRepo().GetFullName(), MaintainerCanModify: p.GetMaintainerCanModify(), HeadSHA: p.GetHead().GetSHA(), BaseRef: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(),
		Mergeable: p.Mergeable, MergeableState: gatekeep.MergeState(strings.ToLower(p.GetMergeableState())), CreatedAt: p.GetCreatedAt().Time, UpdatedAt: p.GetUpdatedAt().Time}
	for _, l := range p.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

// GetPullRequest reads one pull request with its mergeability.
func (g *Client) GetPullRequest(ctx context.Context, repo string, number int) (PullRequest, error) {
	o, n := splitRepo(repo)
	p, _, err := g.c.PullRequests.Get(ctx, o, n, number)
	if err != nil {
		return PullRequest{}, classify(fmt.Sprintf("read pull request %s#%d", repo, number), err)
	}
	return toPR(repo, p), nil
}

// FindPullRequest returns the newest pull request from head into base in
// any state, or ok false. It recovers a pull request the ledger lost.
func (g *Client) FindPullRequest(ctx context.Context, repo, head, base string) (PullRequest, bool, error) {
	o, n := splitRepo(repo)
	ps, err := readPages("list pull requests of "+repo, func(page int) ([]*github.PullRequest, *github.Response, error) {
		return g.c.PullRequests.List(ctx, o, n, &github.PullRequestListOptions{State: "all", Head: o + ":" + head, Base: base, ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	}, nil)
	if err != nil {
		return PullRequest{}, false, err
	}
	if len(ps) == 0 {
		return PullRequest{}, false, nil
	}
	best := ps[0]
	for _, p := range ps {
		if p.GetNumber() > best.GetNumber() {
			best = p
		}
	}
	return toPR(repo, best), true, nil
}

// CreatePullRequest opens a pull request.
func (g *Client) CreatePullRequest(ctx context.Context, repo, head, base, title, body string) (PullRequest, error) {
	o, n := splitRepo(repo)
	p, _, err := g.c.PullRequests.Create(ctx, o, n, &github.NewPullRequest{Title: &title, Head: &head, Base: &base, Body: &body})
	if err != nil {
		return PullRequest{}, classify("create a pull request from "+head+" in "+repo, err)
	}
	return toPR(repo, p), nil
}

// EditPullRequestBody replaces a pull request's body.
func (g *Client) EditPullRequestBody(ctx context.Context, repo string, number int, body string) error {
	o, n := splitRepo(repo)
	_, _, err := g.c.PullRequests.Edit(ctx, o, n, number, &github.PullRequest{Body: &body})
	return classify(fmt.Sprintf("edit the body of %s#%d", repo, number), err)
}

// PullRequestFiles returns the paths a pull request changes.
func (g *Client) PullRequestFiles(ctx context.Context, repo string, number int) ([]string, error) {
	o, n := splitRepo(repo)
	fs, err := readPages(fmt.Sprintf("list files of %s#%d", repo, number), func(page int) ([]*github.CommitFile, *github.Response, error) {
		return g.c.PullRequests.ListFiles(ctx, o, n, number, &github.ListOptions{PerPage: perPage, Page: page})
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.GetFilename())
	}
	return out, nil
}

// Review is one submitted review.
type Review struct {
	ID          int64
	User        string
	State       gatekeep.ReviewState
	Body        string
	CommitID    string
	SubmittedAt time.Time
}

// Reviews lists a pull request's reviews in order.
func (g *Client) Reviews(ctx context.Context, repo string, number int) ([]Review, error) {
	o, n := splitRepo(repo)
	rs, err := readPages(fmt.Sprintf("list reviews of %s#%d", repo, number), func(page int) ([]*github.PullRequestReview, *github.Response, error) {
		return g.c.PullRequests.ListReviews(ctx, o, n, number, &github.ListOptions{PerPage: perPage, Page: page})
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []Review
	for _, r := range rs {
		out = append(out, Review{ID: r.GetID(), User: r.GetUser().GetLogin(), State: gatekeep.ReviewState(r.GetState()), Body: r.GetBody(), CommitID: r.GetCommitID(), SubmittedAt: r.GetSubmittedAt().Time})
	}
	return out, nil
}

// Comment is an issue comment or an inline review comment.
type Comment struct {
	ID        int64
	User      string
	Body      string
	Path      string // inline comments only
	Line      int
	ReviewID  int64 // inline comments only
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IssueComments lists a pull request's conversation comments updated at or
// after since (all when since is zero).
func (g *Client) IssueComments(ctx context.Context, repo string, number int, since time.Time) ([]Comment, error) {
	o, n := splitRepo(repo)
	cs, err := readPages(fmt.Sprintf("list comments of %s#%d", repo, number), func(page int) ([]*github.IssueComment, *github.Response, error) {
		opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage, Page: page}}
		if !since.IsZero() {
			opts.Since = &since
		}
		return g.c.Issues.ListComments(ctx, o, n, number, opts)
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []Comment
	for _, c := range cs {
		out = append(out, Comment{ID: c.GetID(), User: c.GetUser().GetLogin(), Body: c.GetBody(), CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time})
	}
	return out, nil
}

// ReviewComments lists a pull request's inline review comments updated at
// or after since.
func (g *Client) ReviewComments(ctx context.Context, repo string, number int, since time.Time) ([]Comment, error) {
	o, n := splitRepo(repo)
	cs, err := readPages(fmt.Sprintf("list review comments of %s#%d", repo, number), func(page int) ([]*github.PullRequestComment, *github.Response, error) {
		opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage, Page: page}}
		if !since.IsZero() {
			opts.Since = since
		}
		return g.c.PullRequests.ListComments(ctx, o, n, number, opts)
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []Comment
	for _, c := range cs {
		out = append(out, Comment{ID: c.GetID(), User: c.GetUser().GetLogin(), Body: c.GetBody(), Path: c.GetPath(), Line: c.GetLine(),
			ReviewID: c.GetPullRequestReviewID(), CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time})
	}
	return out, nil
}

// Marker returns the hidden marker that makes a comment idempotent.
func Marker(key string) string { return "<!-- gallivant:" + key + " -->" }

// EnsureComment posts body (which must contain marker) unless a comment
// of gallivant's own login carrying marker already exists, so a comment
// that reached GitHub under a failed response is never posted twice.
// Anyone can type a marker: one in another user's comment is ignored, so
// pre-posting it cannot suppress gallivant's notice. created reports a new
// post that stands.
//
// Two reconcilers on other caches may both find the marker missing and
// both post; so after posting it reads the comments again and deletes
// every comment of its own carrying the marker but the oldest. Whichever
// post completes last sees both, and every reconciler keeps the same one,
// so the pull request converges on one comment (a person may have been
// notified of the other before it went).
func (g *Client) EnsureComment(ctx context.Context, repo string, number int, marker, body string) (created bool, err error) {
	if !strings.Contains(body, marker) {
		return false, fmt.Errorf("comment body lacks its marker %s", marker)
	}
	self, err := g.self(ctx)
	if err != nil {
		return false, err
	}
	mine, err := g.markedComments(ctx, repo, number, self, marker)
	if err != nil || len(mine) > 0 {
		if err == nil {
			err = g.keepOldest(ctx, repo, number, mine) // duplicates a failed deletion left
		}
		return false, err
	}
	o, n := splitRepo(repo)
	posted, _, err := g.c.Issues.CreateComment(ctx, o, n, number, &github.IssueComment{Body: &body})
	if err != nil {
		return false, classify(fmt.Sprintf("comment on %s#%d", repo, number), err)
	}
	if mine, err = g.markedComments(ctx, repo, number, self, marker); err != nil {
		return true, err
	}
	if err := g.keepOldest(ctx, repo, number, mine); err != nil {
		return true, err
	}
	return len(mine) == 0 || mine[0].ID == posted.GetID(), nil
}

// keepOldest deletes every comment of mine (oldest first) but the first;
// one another reconciler deleted already is gone as asked.
func (g *Client) keepOldest(ctx context.Context, repo string, number int, mine []Comment) error {
	o, n := splitRepo(repo)
	for _, c := range mine[min(1, len(mine)):] {
		resp, err := g.c.Issues.DeleteComment(ctx, o, n, c.ID)
		if err != nil && (resp == nil || resp.StatusCode != http.StatusNotFound) {
			return classify(fmt.Sprintf("delete duplicate comment %d on %s#%d", c.ID, repo, number), err)
		}
	}
	return nil
}

// markedComments lists the comments of self on the pull request carrying
// marker, oldest (lowest id) first.
func (g *Client) markedComments(ctx context.Context, repo string, number int, self, marker string) ([]Comment, error) {
	cs, err := g.IssueComments(ctx, repo, number, time.Time{})
	if err != nil {
		return nil, err
	}
	var out []Comment
	for _, c := range cs {
		if strings.EqualFold(c.User, self) && strings.Contains(c.Body, marker) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Comment) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Labels lists a pull request's labels.
func (g *Client) Labels(ctx context.Context, repo string, number int) ([]string, error) {
	o, n := splitRepo(repo)
	ls, err := readPages(fmt.Sprintf("list labels of %s#%d", repo, number), func(page int) ([]*github.Label, *github.Response, error) {
		return g.c.Issues.ListLabelsByIssue(ctx, o, n, number, &github.ListOptions{PerPage: perPage, Page: page})
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out, nil
}

// AddLabel adds a label unless the pull request already has it.
func (g *Client) AddLabel(ctx context.Context, repo string, number int, label string) error {
	have, err := g.Labels(ctx, repo, number)
	if err != nil {
		return err
	}
	for _, l := range have {
		if l == label {
			return nil
		}
	}
	o, n := splitRepo(repo)
	_, _, err = g.c.Issues.AddLabelsToIssue(ctx, o, n, number, []string{label})
	return classify(fmt.Sprintf("add label %s to %s#%d", label, repo, number), err)
}

// RemoveLabel removes a label; a label that is already absent is not an
// error. Any other refusal is, so that a refused write never looks like
// success.
func (g *Client) RemoveLabel(ctx context.Context, repo string, number int, label string) error {
	o, n := splitRepo(repo)
	resp, err := g.c.Issues.RemoveLabelForIssue(ctx, o, n, number, label)
	if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
		var er *github.ErrorResponse
		if errors.As(err, &er) && strings.Contains(er.Message, "Label does not exist") {
			return nil
		}
	}
	return classify(fmt.Sprintf("remove label %s from %s#%d", label, repo, number), err)
}

// CheckRun is one check run on a commit.
type CheckRun struct {
	ID         int64
	Name       string
	Status     gatekeep.CheckStatus
	Conclusion gatekeep.CheckConclusion // "" while running
	URL        string
}

// Status is the newest commit status of one context.
type Status struct {
	Context string
	State   gatekeep.StatusState
	URL     string
}

// Checks is the CI evidence on one commit.
type Checks struct {
	// Runs are the latest check run of each name (GitHub's filter=latest):
	// a re-run replaces the run it repeats.
	Runs     []CheckRun
	Statuses []Status
	// Required lists the status contexts and check names the base branch
	// requires, from the repository rules any reader may query and from
	// branch protection when the token can read it (it needs
	// administration permission). Hidden protection is not "none": the
	// pull request's merge state (blocked) still reports unmet checks.
	Required []string
	// RequiredApprovals is how many approving reviews the base branch
	// requires (the larger of its rulesets' pull_request rule and its
	// branch protection, when the token can read it); 0 when none or
	// unreadable.
	RequiredApprovals int
}

// GetChecks reads check runs, commit statuses and the base branch's
// required checks for a commit.
func (g *Client) GetChecks(ctx context.Context, repo, sha, base string) (Checks, error) {
	out, err := g.CheckEvidence(ctx, repo, sha)
	if err != nil {
		return out, err
	}
	out.Required, out.RequiredApprovals, _, err = g.requiredChecks(ctx, repo, base, "")
	return out, err
}

// requiredChecks gathers what a branch requires — its checks and how many
// approving reviews — from the two places GitHub keeps it: repository
// rules (readable with read access) and classic branch protection
// (readable with administration permission only). A source that answers
// 403 or 404 (the token may not read it, or this GitHub does not serve
// it) contributes nothing; any other failure is an error, so that a
// transient fault never reads as "nothing required".
//
// key is the caller's name for what a hidden protection's answer depends
// on (RequiredChecks): an answer of 403 or 404 is not asked again while
// the key is the same.
func (g *Client) requiredChecks(ctx context.Context, repo, base, key string) (out []string, approvals int, prot []string, err error) {
	rules, err := g.RulesetRequirements(ctx, repo, base)
	if err != nil {
		return nil, 0, nil, err
	}
	p, err := g.ProtectionRequirements(ctx, repo, base, key)
	if err != nil {
		return nil, 0, nil, err
	}
	merged := MergeRequired(rules, p)
	return merged.Checks, merged.Approvals, merged.Protection, nil
}

// MergeRequired is what a base requires under its rulesets (rules) and
// its classic protection (prot) together: the rulesets' check names
// first, then the protection's not among them, the larger approval count,
// and the protection's names as Protection.
func MergeRequired(rules, prot Required) Required {
	out := Required{Checks: slices.Clone(rules.Checks), Approvals: max(rules.Approvals, prot.Approvals), Protection: slices.Clone(prot.Protection)}
	for _, c := range prot.Protection {
		if !slices.Contains(out.Checks, c) {
			out.Checks = append(out.Checks, c)
		}
	}
	return out
}

// RulesetRequirements reads what the rulesets that apply to base in repo
// require (GET rules/branches, conditional: a 304 when unchanged is free).
// A refused read (403, 404) requires nothing.
func (g *Client) RulesetRequirements(ctx context.Context, repo, base string) (Required, error) {
	o, n := splitRepo(repo)
	var out Required
	rules, err := readPages("read the rules of branch "+base+" in "+repo, func(page int) ([]*github.RepositoryRule, *github.Response, error) {
		req, err := g.c.NewRequest("GET", fmt.Sprintf("repos/%s/%s/rules/branches/%s?per_page=%d&page=%d", o, n, base, perPage, page), nil)
		if err != nil {
			return nil, nil, err
		}
		var rs []*github.RepositoryRule
		resp, err := g.c.Do(ctx, req, &rs)
		return rs, resp, err
	}, nil)
	if err != nil && !refused(err) {
		return Required{}, err
	}
	for _, r := range rules {
		if r.Parameters == nil {
			continue
		}
		switch r.Type {
		case "required_status_checks":
			var p github.RequiredStatusChecksRuleParameters
			if json.Unmarshal(*r.Parameters, &p) == nil {
				for _, c := range p.RequiredStatusChecks {
					if c.Context != "" && !slices.Contains(out.Checks, c.Context) {
						out.Checks = append(out.Checks, c.Context)
					}
				}
			}
		case "pull_request":
			var p struct {
				Count int `json:"required_approving_review_count"`
			}
			if json.Unmarshal(*r.Parameters, &p) == nil {
				out.Approvals = max(out.Approvals, p.Count)
			}
		}
	}
	return out, nil
}

// ProtectionRequirements reads what base's classic branch protection in
// repo requires (Checks and Protection both name its required checks).
// A readable protection is read conditionally, so an unchanged one is a
// free 304. Branch protection answers 404 both when the branch is
// unprotected and when the token lacks administration permission, and a
// 404 is never free, so such an answer is remembered under key: a
// protection that answered 403 or 404 under the same key, within
// protectionHiddenTTL, is not asked again and requires nothing (a
// different key, or "" after one was given, asks).
func (g *Client) ProtectionRequirements(ctx context.Context, repo, base, key string) (Required, error) {
	var out Required
	if g.protectionStillHidden(repo, base, key) {
		return out, nil
	}
	o, n := splitRepo(repo)
	bp, _, err := g.c.Repositories.GetBranchProtection(ctx, o, n, base)
	if err != nil {
		err = classify("read the protection of branch "+base+" in "+repo, err)
		if !refused(err) {
			return Required{}, err
		}
		g.hideProtection(repo, base, key)
		return out, nil
	}
	g.unhideProtection(repo, base)
	add := func(c string) {
		if c != "" && !slices.Contains(out.Protection, c) {
			out.Protection = append(out.Protection, c)
		}
	}
	if req := bp.GetRequiredStatusChecks(); req != nil {
		for _, c := range req.GetContexts() {
			add(c)
		}
		for _, c := range req.GetChecks() {
			add(c.Context)
		}
	}
	if rv := bp.GetRequiredPullRequestReviews(); rv != nil {
		out.Approvals = rv.RequiredApprovingReviewCount
	}
	out.Checks = slices.Clone(out.Protection)
	return out, nil
}

// refused reports a classified error that says "not for this token" or "not
// here": a 404, or a 403 that is not a rate limit.
func refused(err error) bool {
	var nf *NotFoundError
	// go-github turns protection's 404 "Branch not protected" into a
	// sentinel.
	if errors.As(err, &nf) || errors.Is(err, github.ErrBranchNotProtected) {
		return true
	}
	var rl *RateLimitedError
	var er *github.ErrorResponse
	return !errors.As(err, &rl) && errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}

// DispatchWorkflow triggers a workflow_dispatch event.
func (g *Client) DispatchWorkflow(ctx context.Context, repo, workflow, ref string, inputs map[string]string) error {
	o, n := splitRepo(repo)
	in := map[string]any{}
	for k, v := range inputs {
		in[k] = v
	}
	_, err := g.c.Actions.CreateWorkflowDispatchEventByFileName(ctx, o, n, workflow, github.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: in})
	return classify("dispatch workflow "+workflow+" in "+repo, err)
}

// discovery remembers what the last pass saw of one repository's pull
// requests.
type discovery struct {
	prs      map[int]PullRequest
	newest   time.Time
	complete bool
}

// DiscoverPullRequests returns every pull request of a repository, reading
// the list sorted by update time, newest first, and stopping at the first
// page that holds nothing updated since the last pass (the way Renovate and
// Prow's Tide avoid polling each pull request). With the ETag cache, an
// unchanged repository costs one conditional request and no rate limit.
func (g *Client) DiscoverPullRequests(ctx context.Context, repo string) ([]PullRequest, error) {
	g.mu.Lock()
	d := g.known[repo]
	if d == nil {
		d = &discovery{prs: map[int]PullRequest{}}
		g.known[repo] = d
	}
	since := d.newest
	complete := d.complete
	g.mu.Unlock()
	o, n := splitRepo(repo)
	seen := map[int]PullRequest{}
	newest := since
	// A page with nothing updated since the last pass ends the read.
	fresh := func(ps []*github.PullRequest) bool {
		found := !complete
		for _, p := range ps {
			pr := toPR(repo, p)
			if !pr.UpdatedAt.Before(since) {
				found = true
			}
			seen[pr.Number] = pr
			if pr.UpdatedAt.After(newest) {
				newest = pr.UpdatedAt
			}
		}
		return found
	}
	_, err := readPages("list pull requests of "+repo, func(page int) ([]*github.PullRequest, *github.Response, error) {
		return g.c.PullRequests.List(ctx, o, n, &github.PullRequestListOptions{State: "all", Sort: "updated", Direction: "desc",
			ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	}, fresh)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for num, pr := range seen {
		d.prs[num] = pr
	}
	d.newest, d.complete = newest, true
	out := make([]PullRequest, 0, len(d.prs))
	for _, pr := range d.prs {
		out = append(out, pr)
	}
	return out, nil
}

// statuses reads every commit status of sha in repo (o/n), all pages of the
// combined status.
func (g *Client) statuses(ctx context.Context, repo, o, n, sha string) ([]*github.RepoStatus, error) {
	return readPages("read the combined status of "+short(sha)+" in "+repo, func(page int) ([]*github.RepoStatus, *github.Response, error) {
		cs, resp, err := g.c.Repositories.GetCombinedStatus(ctx, o, n, sha, &github.ListOptions{PerPage: perPage, Page: page})
		if err != nil {
			return nil, resp, err
		}
		return cs.Statuses, resp, nil
	}, nil)
}

// checkRuns reads the latest check run of each name on sha in repo (o/n),
// every page.
func (g *Client) checkRuns(ctx context.Context, repo, o, n, sha string) ([]*github.CheckRun, error) {
	latest := "latest"
	return readPages("list check runs of "+short(sha)+" in "+repo, func(page int) ([]*github.CheckRun, *github.Response, error) {
		res, resp, err := g.c.Checks.ListCheckRunsForRef(ctx, o, n, sha, &github.ListCheckRunsOptions{Filter: &latest, ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
		if err != nil {
			return nil, resp, err
		}
		return res.CheckRuns, resp, nil
	}, nil)
}
