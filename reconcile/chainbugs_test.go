package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/githubtest"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-github/v66/github"
)

// Issue 26: cancelling a chain stops its future milestones only; the
// milestone under review when the chain was cancelled finishes its review
// and is labelled ready once it passes the gate.
func TestChainCancelLetsTheActiveMilestoneFinish(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{
		"specs/one.md":     specWith(1, ""),
		"specs/two.md":     specWith(1, ""),
		"specs/three.md":   specWith(1, ""),
		"chains/launch.md": "---\nstatus: active\n---\n# Launch\n\n## Milestones\n1. `specs/one.md`\n2. `specs/two.md`\n3. `specs/three.md`\n",
	})
	r.gh.Protect("acme/api", "main", githubtest.Protection{RequiredContexts: []string{"ci"}})
	if got := subjectsOf(r.pass()); !has(got, "loop: open pr acme/api#1") {
		t.Fatalf("pass 1 must open milestone 1: %v", got)
	}
	r.as("ci-bot").status(r.head("gallivant/one"), "ci", "success")
	if got := subjectsOf(r.pass()); !has(got, "loop: ready acme/api#1") {
		t.Fatalf("milestone 1 is not labelled ready on green CI: %v", got)
	}
	r.as("alice").merge(1)
	if got := subjectsOf(r.pass()); !has(got, "loop: done acme/api#1") || !has(got, "loop: open pr acme/api#2") {
		t.Fatalf("after the merge milestone 2 must be opened: %v", got)
	}
	r.edit("chains/launch.md", func(s string) string { return strings.Replace(s, "status: active", "status: cancelled", 1) })
	r.as("ci-bot").status(r.head("gallivant/two"), "ci", "success")
	rep := r.pass()
	if got := subjectsOf(rep); !has(got, "loop: ready acme/api#2") {
		t.Fatalf("the active milestone of a cancelled chain is not labelled ready: %v\nnotes: %s", got, noteOf(rep))
	}
	r.as("alice").merge(2)
	rep = r.pass()
	if got := subjectsOf(rep); !has(got, "loop: done acme/api#2") || has(got, "loop: seed ledger") {
		t.Fatalf("after merge 2 of a cancelled chain: %v", got)
	}
	if r.ledgerOfOK("specs/three.md") {
		t.Error("specs/three.md was seeded after its chain was cancelled")
	}
	if !strings.Contains(noteOf(rep), "chain chains/launch.md is cancelled") {
		t.Errorf("the future milestone does not say the chain is cancelled: %s", noteOf(rep))
	}
}

// Issue 26: a milestone that was labelled ready before it was chained
// behind an unmerged predecessor loses its ready label in the next pass,
// and is labelled again once the predecessor merges.
func TestChainUnlabelsAMilestoneChainedWhileReady(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/a.md": specWith(1, ""), "specs/b.md": "---\nrepo: acme/web\n---\n" + specWith(1, ""),
		"gallivant.yaml": strings.Replace(rigConfig, "none: [acme/api]", "none: [acme/api, acme/web]", 1)}, "acme/api", "acme/web")
	rep := r.pass()
	if got := subjectsOf(rep); !has(got, "loop: ready acme/api#1") || !has(got, "loop: ready acme/web#1") {
		t.Fatalf("want both pull requests ready, got %v", got)
	}
	// A quiet pass reads nothing new: the marks are in place.
	wantSubjects(t, r.pass())
	r.edit("chains/launch.md", func(string) string {
		return "# Launch\n\n## Milestones\n\n1. `specs/a.md`\n2. `specs/b.md`\n"
	})
	rep = r.pass()
	wantSubjects(t, rep, "loop: unready acme/web#1")
	if l := r.ledgerOf("specs/b.md"); l.Phase() != ledger.PhaseReview {
		t.Errorf("milestone 2 is %s, want review", l.Phase())
	}
	if got := r.ledgerOf("specs/b.md").Delivery.Get(ledger.KeyHead); got == "" {
		t.Error("milestone 2 lost its head cursor")
	}
	web := r.gh.Client("alice")
	labels, _, err := web.Issues.ListLabelsByIssue(context.Background(), "acme", "web", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(labels, func(l *github.Label) bool { return l.GetName() == "ready-for-human" }) {
		t.Error("acme/web#1 keeps its ready label while its predecessor is unmerged")
	}
	if body := r.lastBody(); !strings.Contains(body, "waits for milestone 1 of chains/launch.md") {
		t.Errorf("the unready commit does not say why:\n%s", body)
	}
	// Held, not bounced: the next pass neither labels nor unlabels it.
	rep = r.pass()
	wantSubjects(t, rep)
	if !strings.Contains(noteOf(rep), "not labelled ready: waits for milestone 1") {
		t.Errorf("no note for the held milestone: %s", noteOf(rep))
	}
	r.as("alice").merge(1)
	got := strings.Join(subjectsOf(r.pass()), "\n")
	if !strings.Contains(got, "loop: done acme/api#1") || !strings.Contains(got, "loop: ready acme/web#1") {
		t.Errorf("after the merge: %s", got)
	}
}
