package reconcile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/google/go-github/v66/github"
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

// An adopted fork whose author withdraws maintainer edits stops
// not-pushable before the next dispatch, naming the withdrawal: a retry
// of the row that stopped dispatches nothing, and nothing more is pushed
// to the fork's branch.
func TestAdoptForkMaintainerEditsWithdrawnStops(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(2, "")})
	r.script = func(target string, _ int, _ string) Behavior {
		switch target {
		case "seed":
			return Baseline
		case "2":
			return Needs
		}
		return Done
	}
	fork, err := r.gh.Fork("acme/api", "bob")
	if err != nil {
		t.Fatal(err)
	}
	r.personBranch(r.gh.RepoDir(fork), "feature/login", map[string]string{"rows/row-1.txt": "bob wrote this\n"})
	r.openBobsPR("bob:feature/login", true)
	first := subjectsOf(r.pass())

	if len(first) == 0 || first[0] != "loop: adopt acme/api#1" || !slices.Contains(first, "loop: dispatch row 2") {
		t.Fatalf("first pass: %v; want the adoption and row 2 dispatched", first)
	}
	forkDir := r.gh.RepoDir(fork)
	head, runs := run(t, forkDir, "git", "rev-parse", "feature/login"), len(r.runs)

	if _, _, err := r.as("bob").c.PullRequests.Edit(contextBG(), "acme", "api", 1, &github.PullRequest{MaintainerCanModify: github.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	r.request(ledgerPath, "retry 2 | the staging token is in place")
	got := subjectsOf(r.pass())
	if len(got) == 0 || got[len(got)-1] != "loop: stop not-pushable" || slices.Contains(got, "loop: dispatch row 2") {
		t.Errorf("after the withdrawal and a retry: %v; want a stop not-pushable and no dispatch", got)
	}
	stop := r.ledger(ledgerPath).Delivery.Stop.String()
	for _, want := range []string{"acme/api#1", "the fork bob/api", "no longer allows edits by maintainers"} {
		if !strings.Contains(stop, want) {
			t.Errorf("stop = %q; want it to name %q", stop, want)
		}
	}
	if got := run(t, forkDir, "git", "rev-parse", "feature/login"); got != head {
		t.Errorf("the fork's branch moved from %s to %s after the withdrawal", head, got)
	}
	if len(r.runs) != runs {
		t.Errorf("%d executor runs after the withdrawal; want none", len(r.runs)-runs)
	}
	verifyControl(t, r)
}

// A review round of an adopted fork's pull request (issue 34) is worked
// on the fork's branch: the round's task names bob/api, its commit lands
// on the fork's head branch on top of the rows, acme/api still has no
// branch of that name, and green CI on the round's head makes it ready.
func TestAdoptForkRoundPushesToTheFork(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(2, "")})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
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
	r.personBranch(r.gh.RepoDir(fork), "feature/login", map[string]string{"rows/row-1.txt": "bob wrote this\n"})
	r.openBobsPR("bob:feature/login", true)
	if got := subjectsOf(r.pass()); !slices.Contains(got, "loop: open pr acme/api#1") {
		t.Fatalf("first pass: %v; want the pull request recorded", got)
	}
	forkDir := r.gh.RepoDir(fork)
	h1 := run(t, forkDir, "git", "rev-parse", "feature/login")
	r.as("ci-bot").status(h1, "ci", "failure")
	wantSubjects(t, r.pass(), "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	last := r.runs[len(r.runs)-1]
	if last.Round != 1 || last.Repo != fork {
		t.Errorf("the round's task: round %d in %s; want round 1 in %s", last.Round, last.Repo, fork)
	}
	h2 := run(t, forkDir, "git", "rev-parse", "feature/login")
	if h2 == h1 {
		t.Errorf("the round pushed nothing to the fork's branch")
	}
	run(t, forkDir, "git", "merge-base", "--is-ancestor", h1, h2)
	if branches := run(t, r.gh.RepoDir("acme/api"), "git", "branch", "--list", "feature/login"); branches != "" {
		t.Errorf("gallivant made a branch in acme/api: %s", branches)
	}
	if got := r.ledger(ledgerPath).Delivery.Head; got != h2 {
		t.Errorf("the ledger's head is %s; want the fork's new head %s", got, h2)
	}
	r.as("ci-bot").status(h2, "ci", "success")
	if got := subjectsOf(r.pass()); !slices.Contains(got, "loop: ready acme/api#1") {
		t.Errorf("after green CI on the round's head: %v; want the pull request ready", got)
	}
	verifyControl(t, r)
}
