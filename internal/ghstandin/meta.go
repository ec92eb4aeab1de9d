package ghstandin

import (
	"net/http"
	"strings"
)

// This file serves the API root (GET /api/v3/, GitHub's meta/root), which
// the GitHub CLI reads to validate a token at `gh auth login` and `gh auth
// status` (its X-OAuth-Scopes header), and names the rate budget each
// request is charged to.

// rateResource is the budget a request is charged to, as GitHub reports
// it in X-RateLimit-Resource: GraphQL has its own, apart from core.
func rateResource(path string) string {
	if path == "/api/graphql" {
		return "graphql"
	}
	return "core"
}

// rateKey is the key of a user's budget for a resource in s.rates.
func rateKey(login, resource string) string {
	if resource == "core" {
		return login
	}
	return login + "\x00" + resource
}

func (s *Server) metaRoutes(mux *http.ServeMux, p string) {
	mux.HandleFunc("GET "+p+"/{$}", s.handle(false, apiRoot))
}

// apiRoot answers GET /api/v3/ with GitHub's hypermedia index: every URL
// template GitHub lists there, absolute under the sandbox's address.
func apiRoot(c *ctx) {
	api := c.s.url + "/api/v3"
	web := c.s.url
	out := map[string]string{}
	for k, v := range map[string]string{
		"current_user_url": "/user", "current_user_authorizations_html_url": "~/settings/connections/applications{/client_id}",
		"authorizations_url": "/authorizations", "code_search_url": "/search/code?q={query}{&page,per_page,sort,order}",
		"commit_search_url": "/search/commits?q={query}{&page,per_page,sort,order}", "emails_url": "/user/emails",
		"emojis_url": "/emojis", "events_url": "/events", "feeds_url": "/feeds", "followers_url": "/user/followers",
		"following_url": "/user/following{/target}", "gists_url": "/gists{/gist_id}", "hub_url": "/hub",
		"issue_search_url": "/search/issues?q={query}{&page,per_page,sort,order}", "issues_url": "/issues",
		"keys_url": "/user/keys", "label_search_url": "/search/labels?q={query}&repository_id={repository_id}{&page,per_page}",
		"notifications_url": "/notifications", "organization_url": "/orgs/{org}",
		"organization_repositories_url": "/orgs/{org}/repos{?type,page,per_page,sort}", "organization_teams_url": "/orgs/{org}/teams",
		"public_gists_url": "/gists/public", "rate_limit_url": "/rate_limit", "repository_url": "/repos/{owner}/{repo}",
		"repository_search_url":         "/search/repositories?q={query}{&page,per_page,sort,order}",
		"current_user_repositories_url": "/user/repos{?type,page,per_page,sort}", "starred_url": "/user/starred{/owner}{/repo}",
		"starred_gists_url": "/gists/starred", "topic_search_url": "/search/topics?q={query}{&page,per_page}",
		"user_url": "/users/{user}", "user_organizations_url": "/user/orgs", "user_repositories_url": "/users/{user}/repos{?type,page,per_page,sort}",
		"user_search_url": "/search/users?q={query}{&page,per_page,sort,order}",
	} {
		if rest, ok := strings.CutPrefix(v, "~"); ok {
			out[k] = web + rest
			continue
		}
		out[k] = api + v
	}
	writeJSON(c.w, http.StatusOK, out)
}
