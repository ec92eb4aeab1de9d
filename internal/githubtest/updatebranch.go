package githubtest

import "fmt"

// updateBranch serves PUT /repos/{o}/{r}/pulls/{n}/update-branch: GitHub
// merges the base branch into the pull request's head branch with a merge
// commit (never a rebase) and answers 202. It refuses with 422 when the
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
	if !c.decode(&in) {
		return
	}
	if p.State != "open" {
		writeError(c.w, 422, "Pull request is not open")
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
	tree, conflict, err := c.git.mergeTree(p.HeadSHA, p.BaseSHA)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	if conflict {
		writeError(c.w, 422, "merge conflict between base and head")
		return
	}
	msg := fmt.Sprintf("Merge branch '%s' into %s", p.Base, p.Head)
	sha, err := c.git.commitTree(tree, []string{p.HeadSHA, p.BaseSHA}, msg, c.login, c.s.now())
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	if err := c.git.updateRef(p.Head, sha, p.HeadSHA); err != nil {
		writeError(c.w, 422, "expected head sha didn't match current head ref.")
		return
	}
	p.HeadSHA, p.UpdatedAt = sha, c.s.now()
	c.s.dirty = true
	writeJSON(c.w, 202, map[string]string{"message": "Updating pull request branch.", "url": c.s.url + "repos/" + c.repo.Owner + "/" + c.repo.Name + "/pulls/" + fmt.Sprint(p.Number)})
}
