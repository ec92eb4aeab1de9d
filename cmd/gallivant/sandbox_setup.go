package main

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// sandboxProtect applies each --protect spec to a repository of s; a spec
// that does not parse or names no repository of s is a usage error.
func sandboxProtect(s *ghstandin.Server, specs []string) error {
	for _, spec := range specs {
		full, branch, p, err := ghstandin.ParseProtect(spec)
		if err != nil {
			return usageError("--protect %v", err)
		}
		known := ""
		for _, r := range s.Repos() {
			if strings.EqualFold(r, full) {
				known = r
			}
		}
		if known == "" {
			return usageError("--protect %s: no repository %s here; create it with --repo %s", spec, full, full)
		}
		s.Protect(known, branch, p)
	}
	return nil
}

// sandboxUsers creates the --user (write) and --outsider (read) logins
// in s. They are created before serving so that a bad login is a usage
// error, not a half-started sandbox; a login is given once, in any case.
func sandboxUsers(s *ghstandin.Server, opts *sandboxOptions) error {
	seen := map[string]string{}
	for i, u := range append(append([]string(nil), opts.Users...), opts.Outsiders...) {
		flag, role := "--user", ghstandin.RoleWrite
		if i >= len(opts.Users) {
			flag, role = "--outsider", ghstandin.RoleRead
		}
		if !loginRE.MatchString(u) {
			return usageError("%s %q is not a GitHub login (letters, digits and single hyphens)", flag, u)
		}
		if prev, ok := seen[strings.ToLower(u)]; ok {
			return usageError("%s %s: the login is already given with %s", flag, u, prev)
		}
		seen[strings.ToLower(u)] = flag
		if _, err := s.SetRole(u, role); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	return nil
}

// sandboxEnv is the shell-sourceable lines sandbox prints once s listens:
// the API URL and token, a clone URL per repository, a token per user
// and, with --tls (certFile set), what gh and git need to trust it.
func sandboxEnv(s *ghstandin.Server, certFile string) string {
	var env strings.Builder
	fmt.Fprintf(&env, "GITHUB_API_URL=%s\n", s.APIURL())
	fmt.Fprintf(&env, "GITHUB_TOKEN=%s\n", s.MainToken())
	for _, r := range s.Repos() {
		fmt.Fprintf(&env, "GIT_URL_%s=%s\n", envName(r), s.GitURL(r))
	}
	// Every user the sandbox knows, also those of an earlier start: their
	// tokens still work.
	for _, u := range s.Users() {
		fmt.Fprintf(&env, "GITHUB_TOKEN_%s=%s\n", envName(u[0]), u[1])
	}
	if certFile != "" {
		// What the GitHub CLI and git need to reach an Enterprise host
		// over HTTPS with this certificate.
		host := strings.TrimPrefix(strings.TrimPrefix(s.URL(), "https://"), "http://")
		fmt.Fprintf(&env, "SSL_CERT_FILE=%s\nGIT_SSL_CAINFO=%s\nGH_HOST=%s\nGH_ENTERPRISE_TOKEN=%s\n", certFile, certFile, host, s.MainToken())
	}
	return env.String()
}
