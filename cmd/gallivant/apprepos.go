package main

import (
	"sort"
	"strings"

	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
)

// appRepositories are the repositories a reconciler's App installation
// tokens are narrowed to (issue 29): the control repository, the ones
// gallivant.yaml names (defaults.repo, checks.none) and every repository a
// spec of the control repository delivers to (each member's). snap may be
// nil: then the configuration's only.
func appRepositories(controlRepo string, cfg *specs.Config, snap *reconcile.Snapshot) []string {
	var out []string
	add := func(r string) {
		if specs.ValidRepo(r) {
			out = append(out, r)
		}
	}
	add(controlRepo)
	if cfg != nil {
		add(cfg.Defaults.Repo)
		for _, r := range cfg.Checks.None {
			add(r)
		}
	}
	if snap != nil && snap.Repo != nil {
		for _, sp := range snap.Repo.Specs {
			if sp == nil {
				continue
			}
			for _, m := range sp.Members() {
				if r, ok := sp.MemberRepo(m); ok {
					add(r)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

// scopeAppTokens narrows the App's installation tokens, when an App is
// configured, to the repositories the control repository's snapshot uses,
// before the reconciler is wired (and, in the daemon, before each pass):
// a token reaches nothing gallivant does not deliver to. A control
// repository whose name cannot be told leaves the tokens as they are.
func (a *app) scopeAppTokens(cfg *specs.Config, control string, snap *reconcile.Snapshot) error {
	repo := a.controlRepo(control)
	if !specs.ValidRepo(repo) {
		return nil
	}
	apps, err := a.appTokens(cfg, repo)
	if err != nil || apps == nil {
		return err
	}
	apps.SetRepositories(appRepositories(repo, cfg, snap))
	return nil
}
