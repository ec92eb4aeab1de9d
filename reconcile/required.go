package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/specs"
)

// A pass reads what each base branch requires once, however many pull
// requests target it (docs/reconcile.md, "Request model"): the observer
// splits GetChecks into the head's evidence (CheckEvidence) and the base's
// requirements (RequiredChecks). The base's requirements are asked under a key of
// the base's head and the pass's gallivant.yaml, so that a branch
// protection answered 404 (unprotected, or unreadable with the token,
// which no ETag makes free) is asked again only when one of them changes.

// requiredRead is one base's requirements, read once per pass.
type requiredRead struct {
	once sync.Once
	req  githubapi.Required
	err  error
}

// GetChecks reads the head's check runs and statuses, and what the base
// requires once per pass.
func (o *observer) GetChecks(ctx context.Context, repo, sha, base string) (githubapi.Checks, error) {
	s := o.GitHubClient
	ch, err := s.CheckEvidence(ctx, repo, sha)
	if err != nil {
		return ch, err
	}
	req, err := o.required(ctx, s, repo, base)
	ch.Required, ch.RequiredApprovals = req.Checks, req.Approvals
	return ch, err
}

// required returns what base requires in repo, read once per pass; a
// failed read is not kept, so the next pull request asks again.
func (o *observer) required(ctx context.Context, s GitHubClient, repo, base string) (githubapi.Required, error) {
	k := repo + " " + base
	o.mu.Lock()
	r := o.reqs[k]
	if r == nil {
		r = &requiredRead{}
		o.reqs[k] = r
	}
	o.mu.Unlock()
	r.once.Do(func() {
		head, _, err := o.BranchHead(ctx, repo, base)
		if err != nil {
			r.err = err
			return
		}
		r.req, r.err = s.RequiredChecks(ctx, repo, base, head+" "+o.config)
	})
	if r.err != nil {
		o.mu.Lock()
		if o.reqs[k] == r {
			delete(o.reqs, k)
		}
		o.mu.Unlock()
	}
	return r.req, r.err
}

// configKey names a pass's gallivant.yaml for the keys of what the
// observer asks (a hash, so that no configuration text is kept in the
// GitHub cache's state file).
func configKey(docs map[string][]byte) string {
	h := sha256.Sum256(docs[specs.ConfigFile])
	return hex.EncodeToString(h[:8])
}

// protectionOf returns what base's classic protection requires, from the
// pass's one read of the base's requirements: a mark is recorded only
// after a full read that read them, so this asks GitHub nothing then.
func (o *observer) protectionOf(ctx context.Context, repo, base string) []string {
	req, err := o.required(ctx, o.GitHubClient, repo, base)
	if err != nil {
		return nil
	}
	return slices.Clone(req.Protection)
}
