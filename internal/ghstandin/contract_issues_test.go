package ghstandin_test

import (
	"fmt"
)

// exerciseIssues runs the issue routes for TestContract on repository r
// (pull requests 1 and 2 exist): reader has read access only.
func exerciseIssues(c, reader *contractRun, r string) {
	t := c.t
	const create, get, edit, list = "POST /repos/{owner}/{repo}/issues", "GET /repos/{owner}/{repo}/issues/{issue_number}",
		"PATCH /repos/{owner}/{repo}/issues/{issue_number}", "GET /repos/{owner}/{repo}/issues"
	is := c.want(c.do(create, "POST", r+"/issues", map[string]string{"title": "Dashboard", "body": "- [ ] one"}), 201).json(t)
	c.want(c.do(create, "POST", r+"/issues", map[string]string{"body": "no title"}), 422)
	reader.want(reader.do(create, "POST", r+"/issues", map[string]string{"title": "A reader's issue"}), 201)
	n := fmt.Sprintf("%s/issues/%.0f", r, is["number"])
	c.want(c.do(get, "GET", n, nil), 200)
	c.want(c.do(get, "GET", r+"/issues/1", nil), 200) // a pull request, seen as an issue
	c.want(c.do(get, "GET", r+"/issues/999", nil), 404)
	c.want(c.do(edit, "PATCH", n, map[string]string{"body": "- [x] one"}), 200)
	c.want(c.do(edit, "PATCH", n, map[string]string{"state": "bogus"}), 422)
	reader.want(reader.do(edit, "PATCH", n, map[string]string{"body": "- [x] mine now"}), 403)
	c.want(c.do(edit, "PATCH", n, map[string]string{"state": "closed"}), 200)
	c.want(c.do(edit, "PATCH", r+"/issues/999", map[string]string{"body": "x"}), 404)
	c.want(c.do(list, "GET", r+"/issues?per_page=1", nil), 200)
	c.want(c.do(list, "GET", r+"/issues?state=all&creator=reader", nil), 200)
	c.want(c.do(list, "GET", r+"/issues?state=bogus", nil), 422)
}
