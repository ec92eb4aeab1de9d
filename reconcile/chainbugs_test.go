package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
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
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
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
	if got := r.ledgerOf("specs/b.md").Delivery.Head; got == "" {
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

// personOrphanPush force-pushes a history unrelated to the base onto
// branch, as a person replacing the pull request's content wholesale
// would: GitHub cannot compare it with anything the ledger knows.
func (r *rig) personOrphanPush(branch string) string {
	r.t.Helper()
	dir := r.t.TempDir()
	run(r.t, dir, "git", "init", "--quiet", "-b", "orphan", "w")
	w := filepath.Join(dir, "w")
	if err := os.WriteFile(filepath.Join(w, "unrelated.txt"), []byte("another project\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	run(r.t, w, "git", "add", "-A")
	run(r.t, w, "git", "commit", "--quiet", "-m", "Unrelated history")
	run(r.t, w, "git", "push", "--quiet", "--force", r.gh.RepoDir("acme/api"), "HEAD:"+branch)
	return run(r.t, w, "git", "rev-parse", "HEAD")
}

// Issue 26: a force-push of unrelated history onto the work branch (GitHub
// answers the comparison 404) stops the entry boundary once, naming the
// pushed head, instead of a problem note every pass; a ready pull request
// loses its label first.
func TestUnrelatedForcePushStopsBoundaryOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		ready bool
		want  []string
	}{
		{"in review", false, []string{"loop: stop boundary"}},
		{"ready", true, []string{"loop: unready acme/api#1", "loop: stop boundary"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newDelivery(t, "")
			r.pass()
			if tt.ready {
				r.greenAndApproved(r.head(work))
				wantSubjects(t, r.pass(), "loop: ready acme/api#1", "loop: announced ready acme/api#1")
			}
			attested := r.ledgerOf("specs/feature.md").Delivery.Head
			pushed := r.personOrphanPush(work)
			rep := r.pass()
			wantSubjects(t, rep, tt.want...)
			for _, n := range rep.Notes {
				if n.Problem {
					t.Errorf("problem note with the stop: %s", n.Message)
				}
			}
			reason, detail, stopped := r.ledgerOf("specs/feature.md").Stop()
			if !stopped || reason != ledger.StopBoundary || !strings.Contains(detail, pushed[:7]) || !strings.Contains(detail, attested[:7]) {
				t.Errorf("stop %q %q, want boundary naming the pushed head %s and the attested %s", reason, detail, pushed[:7], attested[:7])
			}
			if got := r.as("alice").labels(1); len(got) != 0 {
				t.Errorf("labels after the unrelated push: %v", got)
			}
			rep = r.pass()
			wantSubjects(t, rep)
			for _, n := range rep.Notes {
				if n.Problem {
					t.Errorf("the pass after the stop has a problem note: %s", n.Message)
				}
			}
		})
	}
}

// A work branch that shares no history with the base when the pull request
// is to be opened stops boundary; it is not taken for a branch with
// nothing to deliver (GitHub answers the comparison 404).
func TestUnrelatedWorkBranchIsNotNothingToDeliver(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	remove := r.gh.InjectFault(ghstandin.Fault{Method: "POST", Path: `/pulls$`, Kind: ghstandin.FaultStatus, Status: 422})
	if got := subjectsOf(r.pass()); got[len(got)-1] != "loop: write failed identity" {
		t.Fatalf("want the refused pull request counted, got %v", got)
	}
	remove()
	pushed := r.personOrphanPush(work)
	wantSubjects(t, r.pass(), "loop: stop boundary")
	l := r.ledgerOf("specs/feature.md")
	if reason, detail, _ := l.Stop(); reason != ledger.StopBoundary || !strings.Contains(detail, "shares no history with main") || !strings.Contains(detail, pushed[:7]) {
		t.Errorf("stop %q %q, want boundary: shares no history, naming %s", reason, detail, pushed[:7])
	}
	if l.Phase() == ledger.PhaseDone {
		t.Error("the entry is done with nothing delivered")
	}
}
