package store

import (
	"testing"

	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-cmp/cmp"
)

func TestSplitCredentials(t *testing.T) {
	for _, tc := range []struct{ name, in, url, user, pass string }{
		{"user and token", "https://x-access-token:tok@github.com/acme/control.git", "https://github.com/acme/control.git", "x-access-token", "tok"},
		{"token as user", "https://tok@github.com/acme/control.git", "https://github.com/acme/control.git", "tok", ""},
		{"none", "https://github.com/acme/control.git", "https://github.com/acme/control.git", "", ""},
		{"ssh keeps its user", "ssh://git@github.com/acme/control.git", "ssh://git@github.com/acme/control.git", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, auth := splitCredentials(tc.in)
			var user, pass string
			if b, ok := auth.(*githttp.BasicAuth); ok {
				user, pass = b.Username, b.Password
			}
			if diff := cmp.Diff([]string{tc.url, tc.user, tc.pass}, []string{u, user, pass}); diff != "" {
				t.Errorf("splitCredentials(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
