package githubapi

import (
	"context"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
)

// What a base branch requires is read once per base per pass by a caller
// that splits GetChecks in two (the reconciler's observer): CheckEvidence
// per head, RequiredChecks per base. Repository rules are read
// conditionally every time (a 304 is free); classic branch protection,
// whose 404 no ETag makes free, is asked again only when the caller's key
// for it changes: the reconciler names the base branch's head and its
// configuration, so an unprotected base costs one charged request when it
// is first seen and none after, until it moves or the configuration
// changes (docs/reconcile.md, "Request model").

// hiddenProtection is a branch protection that answered 403 or 404: when,
// and under which of the caller's keys.
type hiddenProtection struct {
	At  time.Time `json:"at"`
	Key string    `json:"key,omitempty"`
}

// Required is what a base branch requires of a pull request.
type Required struct {
	// Checks are the status contexts and check names required (Checks.Required).
	Checks []string
	// Approvals is how many approving reviews are required (Checks.RequiredApprovals).
	Approvals int
	// Protection are the names among Checks that classic branch
	// protection requires, as read (none when it is unreadable or
	// absent); the rest come from the base's rulesets, which GraphQL
	// reads too (PullRequestRollups' BaseRules).
	Protection []string
}

// CheckEvidence is GetChecks without the base branch's requirements: the
// latest check run of each name and the commit statuses on sha.
func (g *Client) CheckEvidence(ctx context.Context, repo, sha string) (Checks, error) {
	o, n := splitRepo(repo)
	var out Checks
	runs, err := g.checkRuns(ctx, repo, o, n, sha)
	if err != nil {
		return out, err
	}
	for _, r := range runs {
		out.Runs = append(out.Runs, CheckRun{ID: r.GetID(), Name: r.GetName(), Status: gatekeep.CheckStatus(r.GetStatus()), Conclusion: gatekeep.CheckConclusion(r.GetConclusion()), URL: r.GetDetailsURL()})
	}
	statuses, err := g.statuses(ctx, repo, o, n, sha)
	if err != nil {
		return out, err
	}
	for _, s := range statuses {
		out.Statuses = append(out.Statuses, Status{Context: s.GetContext(), State: gatekeep.StatusState(s.GetState()), URL: s.GetTargetURL()})
	}
	return out, nil
}

// RequiredChecks reads what base requires in repo, as GetChecks does.
// key names what an unreadable protection's answer depends on: a
// protection that answered 403 or 404 under the same key, within
// protectionHiddenTTL, is not asked again (a different key, or "" after
// one was given, asks).
func (g *Client) RequiredChecks(ctx context.Context, repo, base, key string) (Required, error) {
	checks, approvals, prot, err := g.requiredChecks(ctx, repo, base, key)
	return Required{Checks: checks, Approvals: approvals, Protection: prot}, err
}

func hiddenKey(repo, base string) string { return repo + "|" + base }

// protectionStillHidden reports whether base's protection answered 403 or
// 404 under key, recently enough to be believed.
func (g *Client) protectionStillHidden(repo, base, key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.protectionHidden[hiddenKey(repo, base)]
	if !ok || h.Key != key {
		return false
	}
	age := g.now().Sub(h.At)
	return age >= 0 && age < protectionHiddenTTL
}

// hideProtection records that base's protection answered 403 or 404
// under key, now.
func (g *Client) hideProtection(repo, base, key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.protectionHidden[hiddenKey(repo, base)] = hiddenProtection{At: g.now(), Key: key}
	delete(g.protectionRead, hiddenKey(repo, base))
	g.hiddenChanges++
}

// unhideProtection forgets that base's protection was unreadable: it was
// just read, with a 200, and is readable from now on.
func (g *Client) unhideProtection(repo, base string) {
	k := hiddenKey(repo, base)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.protectionHidden[k]; ok {
		delete(g.protectionHidden, k)
		g.hiddenChanges++
	}
	if _, ok := g.protectionRead[k]; !ok {
		if g.protectionRead == nil {
			g.protectionRead = map[string]time.Time{}
		}
		g.protectionRead[k] = g.now().UTC()
		g.hiddenChanges++
	}
}

// protectionReadable reports whether base's classic protection last
// answered ProtectionRequirements' REST read with a 200: the token may
// read it, so the rollup query asks GraphQL's branchProtectionRule for it
// (rollup.go). A protection that then answers 403 or 404 is no longer
// readable (hideProtection).
func (g *Client) protectionReadable(repo, base string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.protectionRead[hiddenKey(repo, base)]
	return ok
}
