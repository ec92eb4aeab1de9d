package ghstandin

import (
	"fmt"
	"strings"
)

// updateBranch serves PUT /repos/{o}/{r}/pulls/{n}/update-branch: GitHub
// answers 202 and merges the base branch into the pull request's head
// branch later, in a background job, with a merge commit (never a rebase);
// see SetUpdateBranchDelay. It refuses with 422 when the
// expected head is not the head, when the head already contains the base,
// and when the merge conflicts.
func updateBranch(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	var in struct {
		ExpectedHeadSHA string `json:"expected_head_sha"`
	}
	// expected_head_sha is optional, and Octokit sends no body without
	// it: GitHub takes an empty body.
	if !c.decodeOptional(&in) {
		return
	}
	if p.State != "open" {
		writeError(c.w, 422, "Pull request is not open")
		return
	}
	if p.HeadRepo != "" && !strings.EqualFold(c.login, c.headOwner(p)) && !p.MaintainerCanModify {
		// The job pushes to the fork: only its owner may, or the base's
		// writers when the pull request allows maintainer edits.
		writeError(c.w, 403, "You do not have permission to push to the head branch of this pull request.")
		return
	}
	if in.ExpectedHeadSHA != "" && in.ExpectedHeadSHA != p.HeadSHA {
		writeError(c.w, 422, "expected head sha didn't match current head ref.")
		return
	}
	if c.git.isAncestor(p.BaseSHA, p.HeadSHA) {
		writeError(c.w, 422, "There are no new commits on the base branch.")
		return
	}
	_, conflict, err := c.git.mergeTree(p.HeadSHA, p.BaseSHA)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	if conflict {
		writeError(c.w, 422, "merge conflict between base and head")
		return
	}
	// GitHub merges in a background job: the answer comes first, and
	// reads right after it still see the old head.
	p.Update = &branchUpdate{Head: p.HeadSHA, Base: p.BaseSHA, Login: c.login, Wait: c.s.updateWait}
	c.s.dirty = true
	writeJSON(c.w, 202, map[string]string{"message": "Updating pull request branch.",
		"url": c.s.url + "/api/v3/repos/" + c.repo.Owner + "/" + c.repo.Name + "/pulls/" + fmt.Sprint(p.Number)})
}

// branchUpdate is an update-branch job GitHub has accepted and not yet
// run: the base commit to merge into the head it was asked for, and how
// many more requests to the repository still see the old head.
type branchUpdate struct {
	Head  string `json:"head"`
	Base  string `json:"base"`
	Login string `json:"login"`
	Wait  int    `json:"wait"`
}

// runUpdates advances the repository's update-branch jobs by one request
// and runs those that are due: a merge commit of the base into the head,
// "Merge branch '<base>' into <head>". A job whose head moved meanwhile
// fails, as GitHub's does, and leaves the branch alone. The caller holds
// s.mu.
func (c *ctx) runUpdates() {
	for _, p := range c.repo.Pulls {
		u := p.Update
		if u == nil {
			continue
		}
		c.s.dirty = true
		if u.Wait > 0 {
			u.Wait--
			continue
		}
		p.Update = nil
		tree, conflict, err := c.git.mergeTree(u.Head, u.Base)
		if err != nil || conflict || p.State != "open" {
			continue
		}
		msg := fmt.Sprintf("Merge branch '%s' into %s", p.Base, p.Head)
		sha, err := c.git.commitTree(tree, []string{u.Head, u.Base}, msg, u.Login, c.s.now())
		if err != nil {
			continue
		}
		if p.HeadRepo != "" {
			// The merge goes to the fork's branch, if it is still
			// where the job found it.
			if _, err := c.git.exec(nil, nil, "push", "--quiet", "--force-with-lease=refs/heads/"+p.Head+":"+u.Head, "--", c.s.RepoDir(p.HeadRepo), sha+":refs/heads/"+p.Head); err != nil {
				continue
			}
		} else if err := c.git.updateRef(p.Head, sha, u.Head); err != nil {
			continue
		}
		p.HeadSHA, p.UpdatedAt = sha, c.s.now()
		c.pullRef(p)
	}
}
