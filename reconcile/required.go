package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/specs"
)

// A pass reads what each base branch requires once, however many pull
// requests target it (docs/reconcile.md, "Request model"): the observer
// splits GetChecks into the head's evidence (CheckEvidence) and the base's
// requirements, read apart from its rulesets (RulesetRequirements) and
// its classic protection (ProtectionRequirements). The protection is
// asked under a key of the base's head and the pass's gallivant.yaml, so
// that one answered 404 (unprotected, or unreadable with the token, which
// no ETag makes free) is asked again only when one of them changes; a
// readable one is read every pass a watched pull request needs it, a
// conditional read that is a free 304 while it is unchanged (rollup.go).

// requiredRead is one base's rulesets or protection, read once per pass.
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
	req, err := o.required(ctx, repo, base)
	ch.Required, ch.RequiredApprovals = req.Checks, req.Approvals
	return ch, err
}

// required returns what base requires in repo, its rulesets' and its
// classic protection's requirements together, each read once per pass.
func (o *observer) required(ctx context.Context, repo, base string) (githubapi.Required, error) {
	rules, err := o.readOnce(ctx, "rules "+repo+" "+base, func() (githubapi.Required, error) {
		return o.RulesetRequirements(ctx, repo, base)
	})
	if err != nil {
		return githubapi.Required{}, err
	}
	prot, err := o.protection(ctx, repo, base)
	if err != nil {
		return githubapi.Required{}, err
	}
	return githubapi.MergeRequired(rules, prot), nil
}

// protection returns what base's classic protection requires in repo,
// read once per pass under the key of the base's head and the pass's
// configuration.
func (o *observer) protection(ctx context.Context, repo, base string) (githubapi.Required, error) {
	return o.readOnce(ctx, "protection "+repo+" "+base, func() (githubapi.Required, error) {
		head, _, err := o.BranchHead(ctx, repo, base)
		if err != nil {
			return githubapi.Required{}, err
		}
		return o.ProtectionRequirements(ctx, repo, base, head+" "+o.config)
	})
}

// readOnce runs read once per pass under k; a failed read is not kept, so
// the next pull request asks again.
func (o *observer) readOnce(ctx context.Context, k string, read func() (githubapi.Required, error)) (githubapi.Required, error) {
	o.mu.Lock()
	r := o.reqs[k]
	if r == nil {
		r = &requiredRead{}
		o.reqs[k] = r
	}
	o.mu.Unlock()
	r.once.Do(func() { r.req, r.err = read() })
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
