package reconcile

import (
	"context"
	"strings"
	"sync"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
)

// The request model (docs/reconcile.md): a pass observes per repository and
// acts per entry. One conditional matching-refs read per repository answers
// every work branch's head for the row loop, and a base branch is read once
// per repository per pass, so an idle pass costs one request per repository,
// answered 304 and free of rate limit, however many specs it holds. Pull
// requests in delivery are listed once per repository per pass, and one
// that did not change since its last full read is not read again
// (quiet.go); the checks and comments of those whose marks watch them
// are read in one GraphQL query per repository (rollup.go).

// workBranchPrefix is the prefix every default work branch carries
// (specs.Branch): one matching-refs read of it lists them all.
const workBranchPrefix = "gallivant/"

// observer is one pass's view of GitHub: the client, with branch heads
// answered per repository. A work branch's first read in the pass comes
// from its repository's snapshot (one matching-refs read); any later read
// of the same branch in the pass asks GitHub, because by then the pass
// itself may have moved it (an executor's push, an update-branch); a
// branch the pass created is answered with the commit it created it on
// until the pass moves it again. Base branches only move by people and GitHub, never by
// the pass, so each is read once per pass. Safe for concurrent use.
type observer struct {
	GitHubClient

	mu    sync.Mutex
	snaps map[string]*branchSnapshot      // per repository
	used  map[string]bool                 // repo + " " + branch served from a snapshot
	stale map[string]bool                 // repositories whose work branches the pass moved through the API
	bases map[string]baseHead             // repo + " " + branch
	prs   map[prKey]githubapi.PullRequest // pull requests read this pass, mergeability known

	lists map[string]*prList // per repository, read once per pass
	// rollups holds each repository's rollup answer, asked at the start
	// of the pass for the pull requests whose marks watch their checks
	// (rollup.go).
	rollups map[string]*rollupRead
	wrote   map[prKey]bool  // pull requests the pass wrote to
	pushed  map[string]bool // repositories whose work branches the pass moved
	// created holds the work branches the pass created, at the commit it
	// created them on, until the pass moves them again (moved): reading
	// one back would only tell the pass what it just wrote.
	created map[string]string // repo + " " + branch

	// reqs holds what each base requires, read once per pass
	// (required.go), keyed repo + " " + base; config names the pass's
	// gallivant.yaml in the keys of those reads.
	reqs   map[string]*requiredRead
	config string
	// recreated holds the work branches an earlier attempt of the same
	// Pass created and did not move, at the commit it created them on
	// (replan.go): creating one there again asks GitHub nothing.
	recreated map[string]string
}

type prKey struct {
	repo   string
	number int
}

type branchSnapshot struct {
	once  sync.Once
	heads map[string]string
	err   error
}

type baseHead struct {
	sha string
	ok  bool
}

// observe returns the pass's view of c.
func observe(c GitHubClient) *observer {
	return &observer{GitHubClient: c, snaps: map[string]*branchSnapshot{}, used: map[string]bool{}, stale: map[string]bool{}, bases: map[string]baseHead{}, prs: map[prKey]githubapi.PullRequest{},
		lists: map[string]*prList{}, wrote: map[prKey]bool{}, pushed: map[string]bool{}, created: map[string]string{},
		reqs: map[string]*requiredRead{}, recreated: map[string]string{}, rollups: map[string]*rollupRead{}}
}

// prefetch reads the work-branch snapshots of repos concurrently, at most
// width at a time. A failed read is not kept as the answer's cause here:
// the entry that needs the snapshot reports it.
func (o *observer) prefetch(ctx context.Context, repos []string, width int) {
	eachBounded(repos, width, func(repo string) { _, _ = o.snapshot(ctx, repo) })
}

// eachBounded calls read for every repository, at most width at a time, and
// returns when all have returned; reads cache their own answers.
func eachBounded(repos []string, width int, read func(repo string)) {
	sem := make(chan struct{}, width)
	var wg sync.WaitGroup
	for _, repo := range repos {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			read(repo)
		}()
	}
	wg.Wait()
}

func (o *observer) snapshot(ctx context.Context, repo string) (map[string]string, error) {
	o.mu.Lock()
	s := o.snaps[repo]
	if s == nil {
		s = &branchSnapshot{}
		o.snaps[repo] = s
	}
	o.mu.Unlock()
	s.once.Do(func() { s.heads, s.err = o.MatchingBranches(ctx, repo, workBranchPrefix) })
	if s.err != nil {
		// Not kept: the next read asks again.
		o.mu.Lock()
		if o.snaps[repo] == s {
			delete(o.snaps, repo)
		}
		o.mu.Unlock()
	}
	return s.heads, s.err
}

// BranchHead answers from the pass's snapshots where that is still the
// truth, and asks GitHub otherwise.
func (o *observer) BranchHead(ctx context.Context, repo, branch string) (string, bool, error) {
	key := repo + " " + branch
	if strings.HasPrefix(branch, workBranchPrefix) {
		o.mu.Lock()
		if sha, ok := o.created[key]; ok {
			o.mu.Unlock()
			return sha, true, nil
		}
		first := !o.used[key] && !o.stale[repo]
		o.used[key] = true
		o.mu.Unlock()
		if first {
			heads, err := o.snapshot(ctx, repo)
			if err != nil {
				return "", false, err
			}
			sha, ok := heads[branch]
			o.confirmRecreated(key, sha, ok)
			return sha, ok, nil
		}
		return o.GitHubClient.BranchHead(ctx, repo, branch)
	}
	o.mu.Lock()
	b, seen := o.bases[key]
	o.mu.Unlock()
	if seen {
		return b.sha, b.ok, nil
	}
	sha, ok, err := o.GitHubClient.BranchHead(ctx, repo, branch)
	if err != nil {
		return "", false, err
	}
	o.mu.Lock()
	o.bases[key] = baseHead{sha: sha, ok: ok}
	o.mu.Unlock()
	return sha, ok, nil
}

// confirmRecreated makes a branch an earlier attempt of the Pass created
// one this attempt created too, once GitHub's snapshot shows it still at
// the commit it was created on (replan.go).
func (o *observer) confirmRecreated(key, sha string, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if had, was := o.recreated[key]; was {
		delete(o.recreated, key)
		if ok && had == sha {
			o.created[key] = sha
		}
	}
}

// CreateBranch creates the branch. Until the pass moves it again, the
// pass's reads of it are answered with sha: GitHub created it there. A
// branch an earlier attempt of the same Pass created at sha is not
// created again when this attempt's snapshot of the repository's work
// branches still has it there (replan.go).
func (o *observer) CreateBranch(ctx context.Context, repo, branch, sha string) error {
	key := repo + " " + branch
	o.mu.Lock()
	had, ok := o.recreated[key]
	delete(o.recreated, key)
	o.mu.Unlock()
	if ok && had == sha {
		if heads, err := o.snapshot(ctx, repo); err == nil && heads[branch] == sha {
			o.mu.Lock()
			o.created[key] = sha
			o.used[key] = true
			o.mu.Unlock()
			return nil
		}
	}
	o.moved(repo, branch)
	if err := o.GitHubClient.CreateBranch(ctx, repo, branch, sha); err != nil {
		return err
	}
	o.mu.Lock()
	o.created[repo+" "+branch] = sha
	o.mu.Unlock()
	return nil
}

// observeWidth bounds the concurrent reads of a pass's prefetch: enough
// to hide GitHub's latency, few enough not to trip its secondary limits.
const observeWidth = 4

// observe makes the pass read GitHub through an observer, and reads the
// work-branch snapshots of every repository with an outstanding dispatch
// up front, concurrently: those are the reads an idle pass consists of.
func (p *passState) observe(ctx context.Context, entries []*entry) {
	o := observe(p.GitHub)
	p.GitHub = o
	o.config = configKey(p.docs)
	p.replan.inherit(o)
	seen := map[string]bool{}
	var repos, reviewed []string
	for _, e := range entries {
		if e.l == nil || e.spec == nil {
			continue
		}
		if pr, ok := prOf(e.l); ok && !seen["pr "+pr.Repo] {
			if ph := e.l.Phase(); ph == ledger.PhaseReview || ph == ledger.PhaseReady {
				seen["pr "+pr.Repo] = true
				reviewed = append(reviewed, pr.Repo)
			}
		}
		if e.spec == nil || e.l == nil || e.l.Pending == nil {
			continue
		}
		if !strings.HasPrefix(p.branch(e), workBranchPrefix) {
			continue
		}
		repo, _ := p.member(e, e.l.Pending.Member)
		if repo != "" && !seen[repo] {
			seen[repo] = true
			repos = append(repos, repo)
		}
	}
	o.prefetch(ctx, repos, observeWidth)
	o.prefetchPulls(ctx, reviewed, observeWidth)
	o.prefetchRollups(ctx, entries, p.now, observeWidth)
}

// moved tells the pass's observer that the pass itself may have pushed
// branch (an executor ran on it, or recovered a dead run's commits): its
// next read asks GitHub rather than the pass's snapshot.
func (p *passState) moved(repo, branch string) {
	if o, ok := p.GitHub.(*observer); ok {
		o.moved(repo, branch)
	}
}

// reread makes the next read of a work branch ask GitHub rather than the
// pass's snapshot, as a decision on what the branch holds now needs. A
// branch the pass created and has not moved since is still answered from
// what it created: nothing but this pass can have pushed to it.
func (p *passState) reread(repo, branch string) {
	if o, ok := p.GitHub.(*observer); ok {
		o.mu.Lock()
		o.used[repo+" "+branch] = true
		o.mu.Unlock()
	}
}

func (o *observer) moved(repo, branch string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.created, repo+" "+branch)
	o.used[repo+" "+branch] = true
	o.pushed[repo] = true
	delete(o.bases, repo+" "+branch)
	// A pushed head changes its pull request (head, mergeability).
	for k := range o.prs {
		if k.repo == repo {
			delete(o.prs, k)
		}
	}
}

// GetPullRequest reads a pull request once per pass: a review reads it,
// then its digest reads it again. A read whose mergeability GitHub is still
// computing is not kept, so that asking again (RepollMergeable) asks
// GitHub; any write to the pull request forgets it.
func (o *observer) GetPullRequest(ctx context.Context, repo string, number int) (githubapi.PullRequest, error) {
	k := prKey{repo, number}
	o.mu.Lock()
	pr, ok := o.prs[k]
	o.mu.Unlock()
	if ok {
		return pr, nil
	}
	pr, err := o.GitHubClient.GetPullRequest(ctx, repo, number)
	if err == nil && pr.Mergeable != nil {
		o.mu.Lock()
		o.prs[k] = pr
		o.mu.Unlock()
	}
	return pr, err
}

func (o *observer) forget(repo string, number int) {
	o.mu.Lock()
	delete(o.prs, prKey{repo, number})
	o.wrote[prKey{repo, number}] = true
	o.mu.Unlock()
}

// EditPullRequestBody writes through and forgets the pull request.
func (o *observer) EditPullRequestBody(ctx context.Context, repo string, number int, body string) error {
	defer o.forget(repo, number)
	return o.GitHubClient.EditPullRequestBody(ctx, repo, number, body)
}

// ReopenPullRequest writes through and forgets the pull request.
func (o *observer) ReopenPullRequest(ctx context.Context, repo string, number int) error {
	defer o.forget(repo, number)
	return o.GitHubClient.ReopenPullRequest(ctx, repo, number)
}

// MarkReadyForReview writes through and forgets the pull request.
func (o *observer) MarkReadyForReview(ctx context.Context, repo string, number int, nodeID string) error {
	defer o.forget(repo, number)
	return o.GitHubClient.MarkReadyForReview(ctx, repo, number, nodeID)
}

// EnsureComment writes through and forgets the pull request.
func (o *observer) EnsureComment(ctx context.Context, repo string, number int, marker, body string) (bool, error) {
	defer o.forget(repo, number)
	return o.GitHubClient.EnsureComment(ctx, repo, number, marker, body)
}

// AddLabel writes through and forgets the pull request.
func (o *observer) AddLabel(ctx context.Context, repo string, number int, label string) error {
	defer o.forget(repo, number)
	return o.GitHubClient.AddLabel(ctx, repo, number, label)
}

// RemoveLabel writes through and forgets the pull request.
func (o *observer) RemoveLabel(ctx context.Context, repo string, number int, label string) error {
	defer o.forget(repo, number)
	return o.GitHubClient.RemoveLabel(ctx, repo, number, label)
}

// UpdateBranch merges the base into a pull request's head branch; which
// branch that is the observer does not know, so every work branch of the
// repository is read from GitHub for the rest of the pass.
func (o *observer) UpdateBranch(ctx context.Context, repo string, number int, expectedHead string) error {
	o.mu.Lock()
	o.stale[repo] = true
	o.mu.Unlock()
	defer o.forget(repo, number)
	return o.GitHubClient.UpdateBranch(ctx, repo, number, expectedHead)
}
