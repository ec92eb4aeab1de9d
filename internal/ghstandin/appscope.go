package ghstandin

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Installation tokens narrowed to repositories, as GitHub mints them when
// the access-token request names `repositories`: the token writes to those
// repositories only. Every stand-in repository is public, which any token
// may read, so a narrowed token still reads the others; a write to one —
// a REST call other than GET, a git push — is refused 403 ("Resource not
// accessible by integration", "Permission to … denied"), as GitHub refuses
// an App's token outside its repositories.

// InstallationTokenRepositories returns the repositories (owner/name)
// each installation token minted so far was narrowed to (nil: every
// repository of the installation), in no particular order.
func (s *Server) InstallationTokenRepositories() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]string
	for _, t := range s.appsLocked().tokens {
		out = append(out, slices.Clone(t.repositories))
	}
	return out
}

// TokenGrant is what one installation token was minted with: the
// repositories it names (nil: every repository of the installation) and
// the permissions it asked for (nil: the installation's).
type TokenGrant struct {
	Repositories []string
	Permissions  map[string]string
}

// InstallationTokenGrants returns, for each installation token minted, its
// repositories and permissions, together, in no particular order.
func (s *Server) InstallationTokenGrants() []TokenGrant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TokenGrant
	for _, t := range s.appsLocked().tokens {
		out = append(out, TokenGrant{Repositories: slices.Clone(t.repositories), Permissions: maps.Clone(t.permissions)})
	}
	return out
}

// requestToken is the credential of a REST or git request: a bearer or
// `token` Authorization header, or HTTP Basic's password.
func requestToken(r *http.Request) string {
	if _, tok, ok := r.BasicAuth(); ok {
		return tok
	}
	h := r.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(h, "Bearer "); ok {
		return tok
	}
	tok, _ := strings.CutPrefix(h, "token ")
	return tok
}

// outOfScope reports whether r carries an installation token narrowed to
// repositories that do not include full (owner/name): it may not write
// there. The caller holds s.mu.
func (s *Server) outOfScope(r *http.Request, full string) bool {
	if s.apps == nil {
		return false
	}
	t, ok := s.apps.tokens[requestToken(r)]
	if !ok || t.repositories == nil {
		return false
	}
	return !slices.ContainsFunc(t.repositories, func(n string) bool { return strings.EqualFold(n, full) })
}

// readOnlyToken reports whether r carries an installation token that was
// granted no permission above read: GitHub lets it write nothing. The
// caller holds s.mu.
func (s *Server) readOnlyToken(r *http.Request) bool {
	if s.apps == nil {
		return false
	}
	t, ok := s.apps.tokens[requestToken(r)]
	if !ok || len(t.permissions) == 0 {
		return false
	}
	for _, level := range t.permissions {
		if level != "read" {
			return false
		}
	}
	return true
}

// scopeRepositories checks the repository names of an access-token
// request against the installation's account, as GitHub does: each must
// be one of the account's repositories. It returns the full names, or
// false when one is not.
func (s *Server) scopeRepositories(in *installation, names []string) ([]string, bool) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		full, rp := s.lookupRepo(in.account + "/" + n)
		if rp == nil || strings.Contains(n, "/") {
			return nil, false
		}
		out = append(out, full)
	}
	return out, true
}
