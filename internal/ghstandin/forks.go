package ghstandin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Forks and refs/pull/N/head (issue 30 item 7). A fork is a repository of
// its own, owned by the user who forked it, with the parent's branches at
// the time of the fork. A pull request into the parent may have its head
// in a fork ("owner:branch"); its head commits are copied into the parent
// as refs/pull/N/head, as GitHub keeps that ref for every pull request,
// so the parent can compare, merge and be fetched at it. Only the fork's
// owner pushes to a fork, and — when the pull request allows maintainer
// edits — those with write access to the parent push to its head branch.

// Fork makes owner's fork of the repository parent, named like it, as
// POST /repos/{o}/{r}/forks does, and returns its full name. Forking again
// returns the fork that exists.
func (s *Server) Fork(parent, owner string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full, r := s.lookupRepo(parent)
	if r == nil {
		return "", fmt.Errorf("ghstandin: no repository %s", parent)
	}
	return s.fork(full, r, owner)
}

// fork makes the fork. The caller holds s.mu.
func (s *Server) fork(parentFull string, parent *repo, owner string) (string, error) {
	name := owner + "/" + parent.Name
	if !repoNameRE.MatchString(name) {
		return "", fmt.Errorf("ghstandin: %q is not owner/name", name)
	}
	if existing, r := s.lookupRepo(name); r != nil {
		if !strings.EqualFold(r.Parent, parentFull) {
			return "", fmt.Errorf("ghstandin: %s exists and is not a fork of %s", existing, parentFull)
		}
		return existing, nil
	}
	g := gitRepo{dir: "."}
	if _, err := g.exec(nil, nil, "clone", "--quiet", "--bare", "--", s.RepoDir(parentFull), s.RepoDir(name)); err != nil {
		return "", err
	}
	if _, err := (gitRepo{dir: s.RepoDir(name)}).exec(nil, nil, "config", "http.receivepack", "true"); err != nil {
		return "", err
	}
	s.st.Repos[name] = &repo{ID: s.id(), Owner: owner, Name: parent.Name, DefaultBranch: parent.DefaultBranch, NextNumber: 1,
		Labels: map[string][]string{}, Protection: map[string]*Protection{}, LabelIDs: map[string]int64{}, Parent: parentFull}
	s.dirty = true
	return name, s.save()
}

func (s *Server) forkRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("POST "+r+"/forks", s.handle(true, createFork))
}

// createFork serves POST /repos/{o}/{r}/forks: GitHub answers 202 with the
// fork, owned by the caller (organizations are not modelled).
func createFork(c *ctx) {
	var in struct {
		Organization string `json:"organization"`
		Name         string `json:"name"`
	}
	if !c.decodeOptional(&in) {
		return
	}
	if in.Organization != "" || (in.Name != "" && in.Name != c.repo.Name) {
		c.invalidField("Fork", "", "custom", "the sandbox forks into the caller's account under the same name only")
		return
	}
	if strings.EqualFold(c.login, c.repo.Owner) {
		c.invalidField("Fork", "", "custom", "a repository cannot be forked into its own owner's account")
		return
	}
	name, err := c.s.fork(c.full, c.repo, c.login)
	if err != nil {
		writeError(c.w, 422, err.Error())
		return
	}
	writeJSON(c.w, http.StatusAccepted, c.s.repoJSON(c.s.st.Repos[name]))
}

// headOwner is the owner of the repository a pull request's head is in.
func (c *ctx) headOwner(p *pull) string {
	if p.HeadRepo == "" {
		return c.repo.Owner
	}
	owner, _, _ := strings.Cut(p.HeadRepo, "/")
	return owner
}

// headBranches is the branches a pull request's head is among: the
// repository's own (bs), or its fork's.
func (c *ctx) headBranches(p *pull, bs map[string]string) map[string]string {
	if p.HeadRepo == "" {
		return bs
	}
	_, r := c.s.lookupRepo(p.HeadRepo)
	if r == nil {
		return map[string]string{}
	}
	fbs, _ := c.s.repoGit(p.HeadRepo).branches()
	return fbs
}

// pullView is bs with the pull request's head branch as it is where the
// head lives, for the checks written against one repository's branches.
func (c *ctx) pullView(p *pull, bs map[string]string) map[string]string {
	if p.HeadRepo == "" {
		return bs
	}
	view := make(map[string]string, len(bs)+1)
	for k, v := range bs {
		view[k] = v
	}
	delete(view, p.Head)
	if sha, ok := c.headBranches(p, bs)[p.Head]; ok {
		view[p.Head] = sha
	}
	return view
}

// pullRef keeps refs/pull/N/head at the pull request's head. The caller
// holds s.mu.
func (c *ctx) pullRef(p *pull) { c.pullRefAt(p, p.HeadSHA) }

// pullRefAt points refs/pull/N/head at sha, fetching it from the fork the
// head is in first. The caller holds s.mu.
func (c *ctx) pullRefAt(p *pull, sha string) {
	ref := "refs/pull/" + strconv.Itoa(p.Number) + "/head"
	if cur, ok := c.lookupRef(ref); ok && cur == sha {
		return
	}
	if p.HeadRepo != "" {
		_, _ = c.git.exec(nil, nil, "fetch", "--quiet", "--no-tags", "--", c.s.RepoDir(p.HeadRepo), "+"+sha+":"+ref)
		return
	}
	_, _ = c.git.exec(nil, nil, "update-ref", ref, sha)
}

// headRepoJSON is the repository a pull request's head is in: rj, this
// repository's, or the fork's.
func (c *ctx) headRepoJSON(p *pull, rj map[string]any) map[string]any {
	if p.HeadRepo == "" {
		return rj
	}
	if _, r := c.s.lookupRepo(p.HeadRepo); r != nil {
		return c.s.repoJSON(r)
	}
	return nil
}

// forkHead resolves the head of a pull request being created: "branch" or
// "owner:branch" in this repository, or "owner:branch" in owner's fork of
// it. It returns the fork's full name ("" for this repository), the branch
// and its head.
func (c *ctx) forkHead(head string, bs map[string]string) (fork, branch, sha string, ok bool) {
	owner, branch, qualified := strings.Cut(head, ":")
	if !qualified {
		sha, ok = bs[head]
		return "", head, sha, ok
	}
	if strings.EqualFold(owner, c.repo.Owner) {
		sha, ok = bs[branch]
		return "", branch, sha, ok
	}
	name, r := c.s.lookupRepo(owner + "/" + c.repo.Name)
	if r == nil || !strings.EqualFold(r.Parent, c.full) {
		return "", branch, "", false
	}
	fbs, _ := c.s.repoGit(name).branches()
	sha, ok = fbs[branch]
	return name, branch, sha, ok
}

// maintainerPush reports whether login may push to branch of the fork
// named full although the fork is not theirs: an open pull request from
// that branch ("" for any) into the fork's parent allows maintainer edits,
// and login has write access to the parent. The caller holds s.mu.
func (s *Server) maintainerPush(full string, fork *repo, branch, login string) bool {
	if fork.Parent == "" {
		return false
	}
	_, parent := s.lookupRepo(fork.Parent)
	if parent == nil {
		return false
	}
	if role := s.roleOf(parent, login); role != RoleAdmin && role != RoleWrite {
		return false
	}
	for _, p := range parent.Pulls {
		if p.State == "open" && strings.EqualFold(p.HeadRepo, full) && (branch == "" || p.Head == branch) && p.MaintainerCanModify {
			return true
		}
	}
	return false
}

// maintainerAny reports whether login may push to some branch of the fork
// as a maintainer. It takes s.mu.
func (s *Server) maintainerAny(full string, fork *repo, login string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maintainerPush(full, fork, "", login)
}

// compareSide resolves one side of compare/{base}...{head}: a ref or SHA
// of this repository, "owner:ref" with this repository's owner in any
// case, or "owner:branch" of owner's fork of it (its commits copied in,
// as GitHub compares across a repository's network).
func (c *ctx) compareSide(side string) (string, bool) {
	owner, ref, qualified := strings.Cut(side, ":")
	if !qualified || strings.EqualFold(owner, c.repo.Owner) {
		if !qualified {
			ref = side
		}
		return c.git.resolve(ref)
	}
	name, r := c.s.lookupRepo(owner + "/" + c.repo.Name)
	if r == nil || !strings.EqualFold(r.Parent, c.full) {
		return "", false
	}
	sha, ok := c.s.repoGit(name).resolve(ref)
	if !ok {
		return "", false
	}
	if _, err := c.git.exec(nil, nil, "fetch", "--quiet", "--no-tags", "--", c.s.RepoDir(name), sha); err != nil {
		return "", false
	}
	return sha, true
}

// inPull reports whether sha is one of the pull request's commits: its
// head or an ancestor of it that the base does not already contain.
func (c *ctx) inPull(p *pull, sha string) bool {
	if sha == p.HeadSHA {
		return true
	}
	mb, ok := c.git.mergeBase(p.BaseSHA, p.HeadSHA)
	return ok && c.git.isAncestor(sha, p.HeadSHA) && !c.git.isAncestor(sha, mb)
}
