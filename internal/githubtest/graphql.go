package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// graphql serves the one GraphQL mutation gallivant uses,
// markPullRequestReadyForReview: GitHub offers a draft's conversion only
// through GraphQL (POST /api/graphql on Enterprise, /graphql on
// github.com). Anything else is answered as GitHub answers an unknown
// field: 200 with an errors list.
func graphql(c *ctx) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	body, err := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	if err != nil || json.Unmarshal(body, &in) != nil {
		writeError(c.w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if c.login == "" {
		writeError(c.w, http.StatusUnauthorized, "This endpoint requires you to be authenticated.")
		return
	}
	fail := func(msg string) {
		writeJSON(c.w, http.StatusOK, map[string]any{"errors": []map[string]any{{"message": msg}}})
	}
	if !strings.Contains(in.Query, "markPullRequestReadyForReview") {
		fail("the sandbox serves only the markPullRequestReadyForReview mutation")
		return
	}
	id, _ := in.Variables["id"].(string)
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "PR_"), 10, 64)
	if !strings.HasPrefix(id, "PR_") || err != nil {
		fail("Could not resolve to a node with the global id of '" + id + "'")
		return
	}
	for _, r := range c.s.st.Repos {
		for _, p := range r.Pulls {
			if p.ID != n {
				continue
			}
			if role := c.s.roleOf(r, c.login); role != RoleAdmin && role != RoleWrite && !strings.EqualFold(p.User, c.login) {
				fail(c.login + " does not have permission to mark this pull request ready for review")
				return
			}
			if p.State != "open" {
				fail("Pull request is closed")
				return
			}
			p.Draft = false
			p.UpdatedAt = c.s.now()
			c.s.dirty = true
			writeJSON(c.w, http.StatusOK, map[string]any{"data": map[string]any{
				"markPullRequestReadyForReview": map[string]any{"pullRequest": map[string]any{"id": id, "isDraft": false}}}})
			return
		}
	}
	fail("Could not resolve to a node with the global id of '" + id + "'")
}

// SetDraft turns a pull request into a draft or back, as a person does in
// GitHub's interface (REST cannot): tests use it.
func (s *Server) SetDraft(fullName string, number int, draft bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, r := s.lookupRepo(fullName)
	if r == nil {
		return errNoRepo(fullName)
	}
	for _, p := range r.Pulls {
		if p.Number == number {
			p.Draft = draft
			p.UpdatedAt = s.now()
			return s.save()
		}
	}
	return errNoRepo(fullName + "#" + strconv.Itoa(number))
}

func errNoRepo(what string) error { return &notFound{what} }

type notFound struct{ what string }

func (e *notFound) Error() string { return "githubtest: no " + e.what }
