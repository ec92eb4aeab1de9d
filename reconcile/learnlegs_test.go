package reconcile

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// A coordinated entry learns per member (docs/learning.md "Coordinated
// entries"): each leg, once its pull request is merged, dispatches a learn
// task for its own repository from the feedback its own rounds answered,
// and proposes that repository's lessons on the control repository; the
// ledger keeps one learn: line per member, the history verifies clean,
// and a merged proposal is recorded on its member.
func TestLearnCoordinatedEntryLearnsPerLeg(t *testing.T) {
	t.Parallel()
	config := legsConfig + "learning:\n  control_repo: acme/control\n"
	r := newRig(t, map[string]string{"specs/audit.md": legsSpec, "gallivant.yaml": config}, "acme/api", "acme/web", "acme/control")
	run(t, r.control, "git", "push", "--quiet", "--force", r.gh.RepoDir("acme/control"), "main:main")
	r.control = r.gh.RepoDir("acme/control")
	r.pass()
	api, web := r.on("acme/api", "bob"), r.on("acme/web", "alice")
	api.comment(1, "Never log the request body.")
	web.comment(1, "Sort the events newest first.")
	settle := func() []string {
		var all []string
		for i := 0; i < 6; i++ {
			got := subjectsOf(r.pass())
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
		}
		return all
	}
	settle()
	if l := r.ledger(legsLedger); lineValue(l.Delivery, "round api") != "1" || lineValue(l.Delivery, "round web") != "1" || l.Phase() != ledger.PhaseReady {
		t.Fatalf("after the comments: %v", l.Delivery.Lines())
	}
	api.merge(1)
	web.merge(1)
	got := settle()
	for _, want := range []string{"loop: done acme/api#1", "loop: learn acme/api#1", "loop: done acme/web#1", "loop: learn acme/web#1"} {
		if !has(got, want) {
			t.Errorf("no %q after the merges: %v", want, got)
		}
	}
	l := r.ledger(legsLedger)
	if l.Phase() != ledger.PhaseDone {
		t.Fatalf("phase %s, want done: %v", l.Phase(), l.Delivery.Lines())
	}
	proposals := map[string]int{}
	for _, m := range []string{"api", "web"} {
		lr := l.LegView(m).Delivery.Learn
		if lr.State != ledger.LearnProposed || len(lr.Candidates) != 1 || lr.PR.Repo != "acme/control" {
			t.Fatalf("learn %s: %q, want proposed on acme/control with 1 candidate", m, lr.String())
		}
		proposals[m] = lr.PR.Number
	}
	if !l.Delivery.Learn.IsZero() {
		t.Errorf("the entry's own learn line %q, want none: each member learns", l.Delivery.Learn.String())
	}
	for _, c := range []struct{ member, repo, branch, title, author, text string }{
		{"api", "acme/api", "gallivant/lessons-acme-api", "Never log the request body", "bob", "Never log the request body."},
		{"web", "acme/web", "gallivant/lessons-acme-web", "Sort the events newest first", "alice", "Sort the events newest first."},
	} {
		pr := r.controlPR(proposals[c.member])
		url := "https://github.com/" + c.repo + "/pull/1#issuecomment-" + strconv.FormatInt(r.commentIDIn(c.repo, 1, c.text), 10)
		body := pr.GetBody()
		if pr.GetHead().GetRef() != c.branch || !strings.Contains(body, "### "+c.title+"\n") || !strings.Contains(body, "- "+url+"\n") {
			t.Errorf("leg %s's proposal from %s:\n%s\nwant from %s citing %s", c.member, pr.GetHead().GetRef(), body, c.branch, url)
		}
		if other := map[string]string{"api": "Sort the events", "web": "Never log"}[c.member]; strings.Contains(body, other) {
			t.Errorf("leg %s's proposal carries the other leg's feedback:\n%s", c.member, body)
		}
	}
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if legs := snap.Status("specs/audit.md").Legs; len(legs) != 2 || legs[0].Lessons == nil || legs[1].Lessons == nil ||
		!strings.Contains(legs[1].String(), "; lessons: 1 lesson proposed in acme/control#") {
		t.Errorf("status legs: %+v", legs)
	}
	for _, n := range []int{proposals["api"], proposals["web"]} {
		if _, _, err := r.gh.Client("alice").PullRequests.Merge(context.Background(), "acme", "control", n, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	got = settle()
	for _, n := range []int{proposals["api"], proposals["web"]} {
		if want := "loop: lessons merged acme/control#" + strconv.Itoa(n); !has(got, want) {
			t.Errorf("no %q: %v", want, got)
		}
	}
	l = r.ledger(legsLedger)
	if a, w := l.LegView("api").Delivery.Learn.State, l.LegView("web").Delivery.Learn.State; a != ledger.LearnMerged || w != ledger.LearnMerged {
		t.Errorf("learn api %s, web %s: want both merged", a, w)
	}
	verifyControl(t, r)
}
