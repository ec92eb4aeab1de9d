package store

import (
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/gallivant/gallivant/internal/redact"
)

// splitCredentials takes the user information out of a URL: the URL
// without it, and the basic credentials it held (nil when none).
func splitCredentials(u string) (string, transport.AuthMethod) {
	p, err := url.Parse(u)
	if err != nil || p.User == nil || !strings.HasPrefix(p.Scheme, "http") {
		return u, nil
	}
	pass, _ := p.User.Password()
	auth := &githttp.BasicAuth{Username: p.User.Username(), Password: pass}
	return redact.URLs(u), auth
}

// bareOrigin points the cache clone's origin at remote, a URL without
// credentials: a cache made before credentials were kept out of it is
// rewritten.
func bareOrigin(repo *git.Repository, remote string) error {
	cfg, err := repo.Config()
	if err != nil {
		return err
	}
	o := cfg.Remotes["origin"]
	if o == nil || (len(o.URLs) == 1 && o.URLs[0] == remote) {
		return nil
	}
	o.URLs = []string{remote}
	return repo.SetConfig(cfg)
}
