package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-github/v66/github"
)

// legsConfig has no CI and no reviewer in either target: the receipt and the
// completion gate are the evidence, so a leg passes its gate once opened.
const legsConfig = `defaults:
  repo: acme/api
  allowance: 2
executor:
  kind: command
  command: ["unused"]
  timeout: 30m
checks:
  none: [acme/api, acme/web]
`

// legsSpec is a coordinated spec: AC 1 in the api, AC 2 in the web
// console, AC 3 in both; each leg verifies itself.
const legsSpec = "# Audit\n\n## Acceptance criteria\n1. API writes events.\n2. Console lists events.\n3. Schema documented.\n\n## Verify\n- `test -d rows`\n\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1, AC 3\ncontract:\n- verification: `test -d rows`\n### Leg: web\nrepo: acme/web\nscope: AC 2, AC 3\ncontract:\n- verification: `ls rows`\n"

const legsLedger = "plans/audit-ledger.md"

func newLegs(t *testing.T, config, spec string) *rig {
	t.Helper()
	if config == "" {
		config = legsConfig
	}
	return newRig(t, map[string]string{"specs/audit.md": spec, "gallivant.yaml": config}, "acme/api", "acme/web")
}

// leg drives one target repository as a person or CI would.
type leg struct {
	t           testing.TB
	c           *github.Client
	owner, name string
}

func (r *rig) on(repo, login string) *leg {
	o, n, _ := strings.Cut(repo, "/")
	return &leg{t: r.t, c: r.gh.Client(login), owner: o, name: n}
}

func (l *leg) merge(n int) {
	l.t.Helper()
	if _, _, err := l.c.PullRequests.Merge(contextBG(), l.owner, l.name, n, "", nil); err != nil {
		l.t.Fatalf("merge: %v", err)
	}
}

func (l *leg) close(n int) {
	l.t.Helper()
	if _, _, err := l.c.PullRequests.Edit(contextBG(), l.owner, l.name, n, &github.PullRequest{State: github.String("closed")}); err != nil {
		l.t.Fatalf("close: %v", err)
	}
}

func (l *leg) pr(n int) *github.PullRequest {
	l.t.Helper()
	p, _, err := l.c.PullRequests.Get(contextBG(), l.owner, l.name, n)
	if err != nil {
		l.t.Fatalf("get: %v", err)
	}
	return p
}

func (l *leg) labels(n int) []string {
	l.t.Helper()
	ls, _, err := l.c.Issues.ListLabelsByIssue(contextBG(), l.owner, l.name, n, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []string
	for _, x := range ls {
		out = append(out, x.GetName())
	}
	return out
}

func (l *leg) comment(n int, body string) {
	l.t.Helper()
	if _, _, err := l.c.Issues.CreateComment(contextBG(), l.owner, l.name, n, &github.IssueComment{Body: github.String(body)}); err != nil {
		l.t.Fatalf("comment: %v", err)
	}
}

func (l *leg) status(sha, context, state string) {
	l.t.Helper()
	if _, _, err := l.c.Repositories.CreateStatus(contextBG(), l.owner, l.name, sha, &github.RepoStatus{State: github.String(state), Context: github.String(context)}); err != nil {
		l.t.Fatalf("status: %v", err)
	}
}

// One pull request per leg, each with its own receipt and an identity
// naming the leg; both labelled in the same pass once both pass their gate;
// done only when both are merged.
func TestLegsHappyPathToDone(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	rep := r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: verify leg api", "loop: open pr acme/api#1", "loop: verify leg web", "loop: open pr acme/web#1",
		"loop: ready acme/api#1", "loop: ready acme/web#1", "loop: announced ready acme/api#1", "loop: announced ready acme/web#1"}
	if len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
		t.Fatalf("delivery subjects (want the tail %v):\n%v\n%s", want, got, noteOf(rep))
	}
	api, web := r.on("acme/api", "alice"), r.on("acme/web", "alice")
	for _, c := range []struct {
		leg  *leg
		want []string
	}{
		{api, []string{`"member":"api"`, "| 1 | done | test -f rows/row-1.txt; ok |\n| 3 | done | test -f rows/row-3.txt; ok |\n| proof | passed | row 1: `test -f rows/row-1.txt` on ", "leg **api**",
			"| proof | passed | row 3: `test -f rows/row-3.txt` on "}},
		{web, []string{`"member":"web"`, "|---|---|---|\n| 2 | done | test -f rows/row-2.txt; ok |\n| 3 | done | test -f rows/row-4.txt; ok |\n| proof | passed | row 2: `test -f rows/row-2.txt` on ", "leg **web**",
			"| proof | passed | row 4: `test -f rows/row-4.txt` on "}},
	} {
		body := c.leg.pr(1).GetBody()
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s#1 body lacks %q:\n%s", c.leg.name, w, body)
			}
		}
		if got := c.leg.labels(1); !slices.Equal(got, []string{"ready-for-human"}) {
			t.Errorf("%s#1 labels %v", c.leg.name, got)
		}
		if p := c.leg.pr(1); p.GetBase().GetRef() != "main" || p.GetHead().GetRef() != "gallivant/audit" {
			t.Errorf("%s#1 goes %s -> %s", c.leg.name, p.GetHead().GetRef(), p.GetBase().GetRef())
		}
	}
	l := r.ledger(legsLedger)
	if l.Phase() != ledger.PhaseReady || lineValue(l.Delivery, "pr api") != "acme/api#1" || lineValue(l.Delivery, "pr web") != "acme/web#1" || !l.Delivery.PR.IsZero() {
		t.Errorf("ledger after ready:\n%v", l.Delivery.Lines())
	}
	wantSubjects(t, r.pass()) // idle while ready
	// status and why show each leg on its own.
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	es := snap.Status("specs/audit.md")
	if len(es.Legs) != 2 || es.Legs[0].Leg != "api" || es.Legs[0].PR != "acme/api#1" || es.Legs[1].Phase != "ready" || es.Legs[1].Repo != "acme/web" {
		t.Errorf("status legs %+v", es.Legs)
	}
	why := strings.Join(snap.Explain("specs/audit.md"), "\n")
	for _, w := range []string{"leg api (acme/api): ready  acme/api#1", "leg web (acme/web): ready  acme/web#1", "ready: acme/web#1 carries the ready-for-human label"} {
		if !strings.Contains(why, w) {
			t.Errorf("why lacks %q:\n%s", w, why)
		}
	}
	api.merge(1)
	wantSubjects(t, r.pass(), "loop: done acme/api#1")
	if l := r.ledger(legsLedger); l.Phase() != ledger.PhaseReady || l.LegPhase("api") != ledger.PhaseDone {
		t.Errorf("one leg merged: entry %s, api %s", l.Phase(), l.LegPhase("api"))
	}
	web.merge(1)
	wantSubjects(t, r.pass(), "loop: done acme/web#1")
	if l := r.ledger(legsLedger); l.Phase() != ledger.PhaseDone {
		t.Errorf("both merged: phase %s", l.Phase())
	}
	wantSubjects(t, r.pass())
}

// Feedback on one leg's pull request dispatches that leg's agent only; the
// other leg loses its ready label too (ready together or not at all), and
// both are labelled again together.
func TestLegsFeedbackOnOneLeg(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	r.pass()
	api, web := r.on("acme/api", "alice"), r.on("acme/web", "alice")
	runs := len(r.runs)
	web.comment(1, "Please sort the events newest first.")
	wantSubjects(t, r.pass(), "loop: unready acme/web#1", "loop: unready acme/api#1",
		"loop: round 1 acme/web#1", "loop: pushed round 1 acme/web#1", "loop: announced round 1 acme/web#1",
		"loop: verify leg web", "loop: ready acme/api#1", "loop: ready acme/web#1", "loop: announced ready acme/api#1", "loop: announced ready acme/web#1")
	if len(r.runs) != runs+1 || r.runs[runs].Repo != "acme/web" || r.runs[runs].Round != 1 {
		t.Errorf("runs after the feedback: %+v", r.runs[runs:])
	}
	if got := api.labels(1); !slices.Equal(got, []string{"ready-for-human"}) {
		t.Errorf("api labels %v", got)
	}
	l := r.ledger(legsLedger)
	if lineValue(l.Delivery, "round web") != "1" || lineValue(l.Delivery, "round api") != "" {
		t.Errorf("rounds: %v", l.Delivery.Lines())
	}
}

// A failing required check on one leg's head is answered by a round on
// that leg; the other leg passed its gate but is not labelled until both
// pass.
func TestLegsFailingCheckOnOneLeg(t *testing.T) {
	t.Parallel()
	r := newLegs(t, strings.Replace(legsConfig, "none: [acme/api, acme/web]", "none: [acme/api]", 1), legsSpec)
	r.gh.Protect("acme/web", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	rep := r.pass()
	if !strings.Contains(noteOf(rep), "leg api: acme/api#1 passes its gate") || !strings.Contains(noteOf(rep), "leg web: acme/web#1 waits for required check ci") {
		t.Errorf("the pass does not say why neither leg is labelled: %s", noteOf(rep))
	}
	api, web := r.on("acme/api", "alice"), r.on("acme/web", "ci-bot")
	if got := api.labels(1); len(got) != 0 {
		t.Errorf("api labelled %v while web waits for ci", got)
	}
	h1 := run(t, r.gh.RepoDir("acme/web"), "git", "rev-parse", "gallivant/audit")
	web.status(h1, "ci", "failure")
	wantSubjects(t, r.pass(), "loop: round 1 acme/web#1", "loop: pushed round 1 acme/web#1", "loop: announced round 1 acme/web#1")
	if last := r.runs[len(r.runs)-1]; last.Repo != "acme/web" || !strings.Contains(last.Brief, `check "ci" is failure`) {
		t.Errorf("the round's run: %s %s", last.Repo, last.Brief)
	}
	h2 := run(t, r.gh.RepoDir("acme/web"), "git", "rev-parse", "gallivant/audit")
	if l := r.ledger(legsLedger); lineValue(l.Delivery, "checks-head web") != h1 || lineValue(l.Delivery, "head web") != h2 || lineValue(l.Delivery, "checks-head api") != "" {
		t.Errorf("cursors: %v", l.Delivery.Lines())
	}
	web.status(h2, "ci", "success")
	wantSubjects(t, r.pass(), "loop: verify leg web", "loop: ready acme/api#1", "loop: ready acme/web#1", "loop: announced ready acme/api#1", "loop: announced ready acme/web#1")
}

// One leg merged while the other's pull request is closed: the entry stops
// leg-closed, naming both legs and what to do; reopening the closed pull
// request resumes the entry by itself, and the merge of it finishes it.
func TestLegsOneMergedOtherClosed(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	r.pass()
	api, web := r.on("acme/api", "alice"), r.on("acme/web", "alice")
	api.merge(1)
	web.close(1)
	wantSubjects(t, r.pass(), "loop: done acme/api#1", "loop: stop leg-closed")
	l := r.ledger(legsLedger)
	reason, detail, _ := l.Stop()
	if reason != ledger.StopLegClosed || !strings.Contains(detail, "leg web's pull request acme/web#1 was closed without merging while leg api's acme/api#1 is merged") ||
		!strings.Contains(detail, "reopen acme/web#1") {
		t.Errorf("stop %s | %s", reason, detail)
	}
	wantSubjects(t, r.pass()) // stopped: nothing more
	if _, _, err := web.c.PullRequests.Edit(contextBG(), "acme", "web", 1, &github.PullRequest{State: github.String("open")}); err != nil {
		t.Fatal(err)
	}
	rep := r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: resume" {
		t.Fatalf("reopening did not resume: %v %s", got, noteOf(rep))
	}
	web.merge(1)
	wantSubjects(t, r.pass(), "loop: done acme/web#1")
	if l := r.ledger(legsLedger); l.Phase() != ledger.PhaseDone {
		t.Errorf("phase %s", l.Phase())
	}
}

// resume after leg-closed reopens the closed leg's pull request.
func TestLegsClosedThenResumeReopens(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	r.pass()
	web := r.on("acme/web", "alice")
	web.close(1)
	wantSubjects(t, r.pass(), "loop: stop closed")
	if _, detail, _ := r.ledger(legsLedger).Stop(); !strings.Contains(detail, "leg web's pull request acme/web#1 was closed") {
		t.Errorf("stop detail %q", detail)
	}
	r.on("acme/api", "alice").merge(1)
	wantSubjects(t, r.pass(), "loop: done acme/api#1", "loop: stop leg-closed")
	r.request(legsLedger, "resume | closed by mistake")
	rep := r.pass()
	got := subjectsOf(rep)
	if len(got) < 2 || got[0] != "loop: resume" || got[1] != "loop: reopen acme/web#1" || web.pr(1).GetState() != "open" {
		t.Fatalf("resume: %v %s (state %s)", got, noteOf(rep), web.pr(1).GetState())
	}
}

// A stop naming one leg's closed pull request holds while that pull
// request stays closed: the other leg's open pull request is no sign that
// a person reopened anything, so an idle pass commits nothing (before, each
// one committed a resume "acme/api#1 was reopened" and the stop again).
func TestLegsClosedLegStaysStoppedWhileIdle(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	r.pass()
	r.on("acme/web", "alice").close(1)
	wantSubjects(t, r.pass(), "loop: stop closed")
	for i := 0; i < 2; i++ {
		if got := subjectsOf(r.pass()); len(got) != 0 {
			t.Fatalf("idle pass %d committed %v", i+1, got)
		}
	}
	if reason, _, stopped := r.ledger(legsLedger).Stop(); !stopped || reason != ledger.StopClosed {
		t.Errorf("stop %v %v, want closed", reason, stopped)
	}
}

// A leg whose rows are all cut gets no pull request: that leg is done with
// nothing to deliver and the entry is done when the other leg merges. An
// AC in no leg's scope is home's; home's repository is the api leg's, so
// they share one work branch and the api leg's pull request attests both.
func TestLegsWhollyCutLeg(t *testing.T) {
	t.Parallel()
	spec := "# Audit\n\n## Acceptance criteria\n1. API writes events.\n2. Console lists events.\n   - deferred: tracked in acme/web#9\n3. Retention is configured.\n\n## Verify\n- `test -d rows`\n\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1\n### Leg: web\nrepo: acme/web\nscope: AC 2\n"
	r := newLegs(t, "", spec)
	rep := r.pass()
	got := subjectsOf(rep)
	if !has(got, "loop: done leg web") || !has(got, "loop: ready acme/api#1") || has(got, "loop: record web seed") || !has(got, "loop: record home row 3") {
		t.Fatalf("subjects %v\n%s", got, noteOf(rep))
	}
	if prs, _, err := r.gh.Client("alice").PullRequests.List(contextBG(), "acme", "web", &github.PullRequestListOptions{State: "all"}); err != nil || len(prs) != 0 {
		t.Errorf("pull requests in acme/web: %d (%v), want none", len(prs), err)
	}
	api := r.on("acme/api", "alice")
	if body := api.pr(1).GetBody(); !strings.Contains(body, "|---|---|---|\n| 1 | done | test -f rows/row-1.txt; ok |\n| 3 | done | test -f rows/row-3.txt; ok |\n| proof | passed | row 1: ") || !strings.Contains(body, "| proof | passed | row 3: `test -f rows/row-3.txt` on ") || !strings.Contains(body, `"member":"api"`) {
		t.Errorf("the api leg's receipt does not attest home's AC 3:\n%s", body)
	}
	if prs, _, _ := api.c.PullRequests.List(contextBG(), "acme", "api", &github.PullRequestListOptions{State: "all"}); len(prs) != 1 {
		t.Errorf("%d pull requests in acme/api, want one for api and home", len(prs))
	}
	api.merge(1)
	wantSubjects(t, r.pass(), "loop: done acme/api#1")
	if l := r.ledger(legsLedger); l.Phase() != ledger.PhaseDone || l.LegPhase("web") != ledger.PhaseDone || lineValue(l.Delivery, "pr web") != "" || lineValue(l.Delivery, "phase home") != "" {
		t.Errorf("ledger %v", l.Delivery.Lines())
	}
}

// A chain whose first milestone is coordinated advances only when every
// leg's pull request is merged into the base.
func TestLegsCoordinatedMilestone(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"gallivant.yaml": legsConfig, "specs/audit.md": legsSpec, "specs/next.md": specWith(1, ""),
		"chains/launch.md": "---\nstatus: active\n---\n# Launch\n\n## Milestones\n1. `specs/audit.md`\n2. `specs/next.md`\n"}, "acme/api", "acme/web")
	rep := r.pass()
	if has(subjectsOf(rep), "loop: seed ledger") && countSubjects(rep, "loop: seed ledger") != 1 {
		t.Fatalf("milestone 2 seeded early: %v", subjectsOf(rep))
	}
	r.on("acme/api", "alice").merge(1)
	rep = r.pass()
	wantSubjects(t, rep, "loop: done acme/api#1")
	if !strings.Contains(noteOf(rep), "waits for milestone 1 of chains/launch.md (specs/audit.md) to be merged") {
		t.Errorf("milestone 2 does not say what it waits for: %s", noteOf(rep))
	}
	r.on("acme/web", "alice").merge(1)
	rep = r.pass()
	if got := subjectsOf(rep); len(got) < 2 || got[0] != "loop: done acme/web#1" || got[1] != "loop: seed ledger" {
		t.Fatalf("after both merges: %v\n%s", got, noteOf(rep))
	}
}

// Rounds are bounded per leg by max_rounds: the leg whose checks keep
// failing stops the entry iterations, naming its pull request, while the
// other leg's count is untouched.
func TestLegsMaxRoundsPerLeg(t *testing.T) {
	t.Parallel()
	config := strings.Replace(legsConfig, "none: [acme/api, acme/web]", "none: [acme/api]", 1)
	config = strings.Replace(config, "  allowance: 2\n", "  allowance: 2\n  max_rounds: 1\n", 1)
	r := newLegs(t, config, legsSpec)
	r.gh.Protect("acme/web", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	r.pass()
	web := r.on("acme/web", "ci-bot")
	h1 := run(t, r.gh.RepoDir("acme/web"), "git", "rev-parse", "gallivant/audit")
	web.status(h1, "ci", "failure")
	wantSubjects(t, r.pass(), "loop: round 1 acme/web#1", "loop: pushed round 1 acme/web#1", "loop: announced round 1 acme/web#1")
	h2 := run(t, r.gh.RepoDir("acme/web"), "git", "rev-parse", "gallivant/audit")
	web.status(h2, "ci", "failure")
	wantSubjects(t, r.pass(), "loop: stop iterations")
	l := r.ledger(legsLedger)
	if _, detail, _ := l.Stop(); !strings.Contains(detail, "acme/web#1 has new findings but 1 rounds (defaults.max_rounds) are spent") {
		t.Errorf("stop detail %q", detail)
	}
	if lineValue(l.Delivery, "round web") != "1" || lineValue(l.Delivery, "round api") != "" {
		t.Errorf("rounds: %v", l.Delivery.Lines())
	}
}

// Two legs in one repository would share one work branch: no pull request
// is opened, and the pass says why.
func TestLegsSharingARepositoryAreRefused(t *testing.T) {
	t.Parallel()
	spec := strings.Replace(legsSpec, "### Leg: web\nrepo: acme/web", "### Leg: web\nrepo: acme/api", 1)
	r := newLegs(t, "", spec)
	rep := r.pass()
	if got := subjectsOf(rep); has(got, "loop: open pr acme/api#1") || has(got, "loop: verify leg api") {
		t.Errorf("a pull request was opened: %v", got)
	}
	if !strings.Contains(noteOf(rep), "legs api and web are both in acme/api, so they share one work branch") {
		t.Errorf("the pass does not say why: %s", noteOf(rep))
	}
}

// A dry run of a coordinated entry writes nothing and says what it would do.
func TestLegsDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	r.pass()
	r.on("acme/web", "alice").comment(1, "Please sort the events newest first.")
	head := run(t, r.control, "git", "rev-parse", "main")
	rep := r.pass(func(o *Options) { o.DryRun = true })
	if got := subjectsOf(rep); len(got) != 0 {
		t.Errorf("a dry run planned commits: %v", got)
	}
	if !strings.Contains(noteOf(rep), "would remove the ready-for-human label from acme/web#1") {
		t.Errorf("notes: %s", noteOf(rep))
	}
	if now := run(t, r.control, "git", "rev-parse", "main"); now != head {
		t.Errorf("the dry run moved the control branch")
	}
	if got := r.on("acme/web", "alice").labels(1); !slices.Equal(got, []string{"ready-for-human"}) {
		t.Errorf("web labels after a dry run: %v", got)
	}
}
