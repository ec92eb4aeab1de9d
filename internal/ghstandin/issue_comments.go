package ghstandin

import (
	"net/http"
	"strconv"
	"time"
)

// conversation finds the issue or pull request whose conversation the
// request's {number} names: every pull request is an issue, and comments
// on either live in one list (issues/list-comments,
// issues/create-comment). touch bumps its updated_at, as a new comment
// does on GitHub. On a number that is neither it answers 404.
func (c *ctx) conversation() (number int, touch func(time.Time), ok bool) {
	n, err := strconv.Atoi(c.r.PathValue("number"))
	if err == nil {
		for _, p := range c.repo.Pulls {
			if p.Number == n {
				return n, func(t time.Time) { p.UpdatedAt = t }, true
			}
		}
		for _, is := range c.repo.Issues {
			if is.Number == n {
				return n, func(t time.Time) { is.UpdatedAt = t }, true
			}
		}
	}
	writeError(c.w, http.StatusNotFound, "Not Found")
	return 0, nil, false
}

// conversationPath is "pull" or "issues", as a comment's html_url names
// the page of conversation number.
func (c *ctx) conversationPath(number int) string {
	for _, is := range c.repo.Issues {
		if is.Number == number {
			return "issues"
		}
	}
	return "pull"
}
