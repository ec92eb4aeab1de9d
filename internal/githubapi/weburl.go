package githubapi

import (
	"net/url"
	"strings"
)

// WebURL is GitHub's web address for an API URL: https://github.com/ for
// api.github.com (or an API URL that cannot be read), the root of an
// Enterprise server's /api/v3/ otherwise; always with a trailing slash.
func WebURL(api string) string {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" || u.Host == "api.github.com" {
		return "https://github.com/"
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3")
	return strings.TrimRight(u.String(), "/") + "/"
}
