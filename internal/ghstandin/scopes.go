package ghstandin

import (
	"net/http"
	"strings"
)

// This file holds what `gallivant doctor` reads beyond the reconciler's
// routes: a classic token's scopes, the token's permissions on a
// repository, and whether GitHub Actions is enabled there.

// SetScopes makes login's token a classic token reporting scopes in
// X-OAuth-Scopes, as GitHub does on every response to a classic token.
// With no scopes the header is sent empty (a classic token without
// scopes); ClearScopes removes it again.
func (s *Server) SetScopes(login string, scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Scopes == nil {
		s.st.Scopes = map[string][]string{}
	}
	s.st.Scopes[login] = append([]string{}, scopes...)
	_ = s.save()
}

// ClearScopes makes login's token report no X-OAuth-Scopes header, as a
// fine-grained or installation token does.
func (s *Server) ClearScopes(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.st.Scopes, login)
	_ = s.save()
}

// SetActionsEnabled turns GitHub Actions on or off for a repository.
func (s *Server) SetActionsEnabled(fullName string, enabled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.st.Repos[fullName]; r != nil {
		r.ActionsDisabled = !enabled
		_ = s.save()
	}
}

// setScopeHeaders sets X-OAuth-Scopes for a classic token. The caller
// holds s.mu.
func (s *Server) setScopeHeaders(h http.Header, login string) {
	if sc, ok := s.st.Scopes[login]; ok {
		h.Set("X-OAuth-Scopes", strings.Join(sc, ", "))
	}
}

// getRepo answers GET /repos/{o}/{r} with the caller's permissions, as
// GitHub does for an authenticated request.
func getRepo(c *ctx) {
	j := c.s.repoJSON(c.repo)
	role := c.s.roleOf(c.repo, c.login)
	j["permissions"] = map[string]bool{
		"admin": role == RoleAdmin, "maintain": role == RoleAdmin, "push": role == RoleAdmin || role == RoleWrite,
		"triage": role != RoleNone, "pull": role != RoleNone,
	}
	writeJSON(c.w, http.StatusOK, j)
}

// getActionsPermissions answers GET /repos/{o}/{r}/actions/permissions,
// an admin-only read on GitHub.
func getActionsPermissions(c *ctx) {
	if c.s.roleOf(c.repo, c.login) != RoleAdmin {
		writeError(c.w, http.StatusForbidden, "Must have admin rights to Repository.")
		return
	}
	j := map[string]any{"enabled": !c.repo.ActionsDisabled}
	if !c.repo.ActionsDisabled {
		j["allowed_actions"] = "all"
	}
	writeJSON(c.w, http.StatusOK, j)
}
