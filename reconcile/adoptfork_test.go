package reconcile

import (
	"slices"
	"strings"
	"testing"
)

// A fork's pull request that allows maintainer edits is adopted (issue
// 34): the ledger is seeded on the fork's head (`loop: adopt`), the row
// bob's branch satisfies closes on baseline, the other rows are pushed to
// the fork's branch on top of bob's commit (never force-pushed), the pull
// request gets the identity block and receipt with bob's text kept, is
// verified on the fork's head and goes to ready; no branch is made in
// acme/api. `gallivant verify` proves the history.
func TestAdoptForkWithMaintainerEdits(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(3, "")})
	r.script = func(target string, _ int, _ string) Behavior {
		if target == "seed" {
			return Baseline
		}
		return Done
	}
	fork, err := r.gh.Fork("acme/api", "bob")
	if err != nil {
		t.Fatal(err)
	}
	bobsHead := r.personBranch(r.gh.RepoDir(fork), "feature/login", map[string]string{"rows/row-1.txt": "bob wrote this\n"})
	r.openBobsPR("bob:feature/login", true)

	got := subjectsOf(r.pass())
	if len(got) == 0 || got[0] != "loop: adopt acme/api#1" {
		t.Fatalf("want the adoption first, got %v", got)
	}
	for _, want := range []string{"loop: verify", "loop: open pr acme/api#1", "loop: ready acme/api#1"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q missing: %v", want, got)
		}
	}
	if slices.Contains(got, "loop: dispatch row 1") {
		t.Errorf("row 1, which bob's branch satisfies, was dispatched: %v", got)
	}
	for _, want := range []string{"loop: dispatch row 2", "loop: dispatch row 3"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q missing: %v", want, got)
		}
	}
	l := r.ledger(ledgerPath)
	if l.Base != bobsHead || l.WorkBranch() != "feature/login" || l.Delivery.PRText() != "acme/api#1" {
		t.Errorf("ledger base %s branch %s pr %s; want bob's head %s, feature/login, acme/api#1", l.Base, l.WorkBranch(), l.Delivery.PRText(), bobsHead)
	}
	forkDir := r.gh.RepoDir(fork)
	head := run(t, forkDir, "git", "rev-parse", "feature/login")
	for _, f := range []string{"rows/row-2.txt", "rows/row-3.txt"} {
		run(t, forkDir, "git", "cat-file", "-e", head+":"+f)
	}
	run(t, forkDir, "git", "merge-base", "--is-ancestor", bobsHead, head)
	if branches := run(t, r.gh.RepoDir("acme/api"), "git", "branch", "--list", "feature/login", "gallivant/*"); branches != "" {
		t.Errorf("gallivant made a branch in acme/api: %s", branches)
	}
	if pr := r.as("bob").pr(1); pr.GetHead().GetSHA() != head || !strings.Contains(pr.GetBody(), bobsBody) || !strings.Contains(pr.GetBody(), "<!-- gallivant:receipt -->") {
		t.Errorf("the pull request is at %s with body:\n%s\nwant the fork's head %s, bob's text and the receipt", pr.GetHead().GetSHA(), pr.GetBody(), head)
	}
	verifyControl(t, r)
}
