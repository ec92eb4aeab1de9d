package reconcile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-github/v66/github"
)

// personBranch creates branch in dir's repository (a target repository
// or a fork) from main as a person, with the given files, and pushes it.
func (r *rig) personBranch(repoDir, branch string, files map[string]string) string {
	r.t.Helper()
	dir := r.t.TempDir()
	run(r.t, dir, "git", "clone", "--quiet", repoDir, "w")
	w := filepath.Join(dir, "w")
	run(r.t, w, "git", "checkout", "--quiet", "-b", branch)
	for p, s := range files {
		writeFile(r.t, filepath.Join(w, p), s)
	}
	run(r.t, w, "git", "add", "-A")
	run(r.t, w, "git", "commit", "--quiet", "-m", "Start the login page")
	run(r.t, w, "git", "push", "--quiet", "origin", branch)
	return run(r.t, w, "git", "rev-parse", "HEAD")
}

const bobsBody = "Bob's notes: keep the login API stable.\n\nCloses #12."

// openBobsPR opens bob's pull request from head into main.
func (r *rig) openBobsPR(head string, maintainerEdits bool) {
	r.t.Helper()
	if _, _, err := r.as("bob").c.PullRequests.Create(contextBG(), "acme", "api", &github.NewPullRequest{Title: github.String("Login page"),
		Head: github.String(head), Base: github.String("main"), Body: github.String(bobsBody), MaintainerCanModify: github.Bool(maintainerEdits)}); err != nil {
		r.t.Fatal(err)
	}
}

const adoptSpec = "---\npr: acme/api#1\n---\n"

// A person's pull request named by the spec is adopted (issue 34): the
// ledger is seeded on its head (`loop: adopt`), the row its branch already
// satisfies closes on baseline, the other rows are worked on its branch,
// its body gets the identity block and receipt with bob's text kept, and
// it goes through the review loop to ready. gallivant opens no pull
// request and no branch of its own, and `gallivant verify` proves the
// history.
func TestAdoptPersonsPullRequest(t *testing.T) {
	t.Parallel()
	config := rigConfig + "reviewer:\n  login: alice\n  rereview_minutes: 60\n  stall_hours: 48\n"
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(3, ""), "gallivant.yaml": config})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	r.script = func(target string, _ int, _ string) Behavior {
		if target == "seed" {
			return Baseline
		}
		return Done
	}
	bobsHead := r.personBranch(r.gh.RepoDir("acme/api"), "feature/login", map[string]string{"rows/row-1.txt": "bob wrote this\n"})
	r.openBobsPR("feature/login", false)

	got := subjectsOf(r.pass())
	t.Logf("first pass: %q", got)
	if len(got) == 0 || got[0] != "loop: adopt acme/api#1" || got[len(got)-1] != "loop: open pr acme/api#1" {
		t.Fatalf("want the adoption first and the pull request recorded last, got %v", got)
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
	if row, _ := l.Row(1); row.Status != ledger.Done || row.Attempts != 0 {
		t.Errorf("row 1 = %s with %d attempts; want done on baseline, 0 attempts", row.Status, row.Attempts)
	}
	head := r.head("feature/login")
	for _, f := range []string{"rows/row-2.txt", "rows/row-3.txt"} {
		run(t, r.gh.RepoDir("acme/api"), "git", "cat-file", "-e", head+":"+f)
	}
	// Worked on bob's branch, on top of bob's commit, never force-pushed.
	run(t, r.gh.RepoDir("acme/api"), "git", "merge-base", "--is-ancestor", bobsHead, head)
	if branches := run(t, r.gh.RepoDir("acme/api"), "git", "branch", "--list", "gallivant/*"); branches != "" {
		t.Errorf("gallivant made a branch of its own: %s", branches)
	}
	alice := r.as("alice")
	body := alice.pr(1).GetBody()
	for _, want := range []string{bobsBody, `<!-- gallivant:identity {"control":"local/control","spec":"specs/feature.md","ledger":"plans/feature-ledger.md","member":"home"`,
		"<!-- gallivant:receipt -->", "| 1 | done | test -f rows/row-1.txt; ok |", "| 2 | done | test -f rows/row-2.txt; ok |"} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	if _, _, err := alice.c.PullRequests.Get(contextBG(), "acme", "api", 2); err == nil {
		t.Errorf("gallivant opened a second pull request")
	}

	r.greenAndApproved(head)
	wantSubjects(t, r.pass(), "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	if got := alice.labels(1); !slices.Equal(got, []string{"ready-for-human"}) {
		t.Errorf("labels %v", got)
	}
	verifyControl(t, r)
}

// A fork's pull request that does not allow maintainer edits is a stop
// naming why (not-pushable), and nothing is dispatched: the rows are never
// worked on a branch gallivant could not push.
func TestAdoptForkWithoutMaintainerEditsStops(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(2, "")})
	fork, err := r.gh.Fork("acme/api", "bob")
	if err != nil {
		t.Fatal(err)
	}
	r.personBranch(r.gh.RepoDir(fork), "feature/login", map[string]string{"rows/row-1.txt": "bob wrote this\n"})
	r.openBobsPR("bob:feature/login", false)

	wantSubjects(t, r.pass(), "loop: seed ledger", "loop: stop not-pushable")
	stop := r.ledger(ledgerPath).Delivery.Stop.String()
	for _, want := range []string{"acme/api#1", "the fork bob/api", "does not allow edits by maintainers", "gallivant may not push to it"} {
		if !strings.Contains(stop, want) {
			t.Errorf("stop = %q; want it to name %q", stop, want)
		}
	}
	if len(r.runs) != 0 {
		t.Errorf("%d executor runs; want none", len(r.runs))
	}
	// A resume reads the pull request again: still a fork, still stopped.
	r.request(ledgerPath, "resume | bob was asked to allow edits")
	wantSubjects(t, r.pass(), "loop: resume", "loop: stop not-pushable")
	if len(r.runs) != 0 {
		t.Errorf("%d executor runs after the resume; want none", len(r.runs))
	}
	if body := r.as("bob").pr(1).GetBody(); body != bobsBody {
		t.Errorf("bob's body was changed:\n%s", body)
	}
	verifyControl(t, r)
}

// A pull request whose work already satisfies every row closes them all on
// baseline; closed by its author before gallivant could write its body
// (GitHub refused the edit), it is not recorded: `why --live` and the pass
// both decide the stop not-pushable, and bob's body is untouched.
func TestAdoptClosedBeforeRecordingStops(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": adoptSpec + specWith(2, "")})
	r.script = func(target string, _ int, _ string) Behavior {
		if target == "seed" {
			return Baseline
		}
		return Done
	}
	r.personBranch(r.gh.RepoDir("acme/api"), "feature/login", map[string]string{"rows/row-1.txt": "bob\n", "rows/row-2.txt": "bob\n"})
	r.openBobsPR("feature/login", false)
	remove := r.gh.InjectFault(ghstandin.Fault{Method: "PATCH", Path: `/pulls/1$`, Kind: ghstandin.FaultStatus, Status: 422})
	got := subjectsOf(r.pass())
	if !slices.Contains(got, "loop: adopt acme/api#1") || slices.Contains(got, "loop: dispatch row 1") || slices.Contains(got, "loop: dispatch row 2") ||
		got[len(got)-1] != "loop: write failed identity" {
		t.Fatalf("want both rows closed on baseline and the body's write refused, got %v", got)
	}
	remove()
	r.as("bob").close(1)
	d, ok, err := r.reconciler().Decide(contextBG(), "specs/feature.md")
	if err != nil || !ok {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if d.Look != "adopt" || d.Step != "stop" || d.Reason != ledger.StopNotPushable || !strings.Contains(d.Words, "acme/api#1, which is closed") {
		t.Errorf("why --live decides %+v; want the adoption's not-pushable stop", d)
	}
	wantSubjects(t, r.pass(), "loop: stop not-pushable")
	if stop := r.ledger(ledgerPath).Delivery.Stop.String(); !strings.Contains(stop, d.Words[len("stop not-pushable: "):]) {
		t.Errorf("the pass stopped %q; why said %q", stop, d.Words)
	}
	if body := r.as("bob").pr(1).GetBody(); body != bobsBody {
		t.Errorf("bob's body was changed:\n%s", body)
	}
	verifyControl(t, r)
}
