package reconcile

import (
	"slices"
	"strings"
	"testing"

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
		{api, []string{`"member":"api"`, "| 1 | done | test -f rows/row-1.txt; ok |\n| 3 | done | test -f rows/row-3.txt; ok |\n<!--", "leg **api**"}},
		{web, []string{`"member":"web"`, "|---|---|---|\n| 2 | done | test -f rows/row-2.txt; ok |\n| 3 | done | test -f rows/row-4.txt; ok |\n<!--", "leg **web**"}},
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
	if l.Phase() != ledger.PhaseReady || l.Delivery.Get("pr api") != "acme/api#1" || l.Delivery.Get("pr web") != "acme/web#1" || l.Delivery.Get(ledger.KeyPR) != "" {
		t.Errorf("ledger after ready:\n%v", l.Delivery.Lines())
	}
	wantSubjects(t, r.pass()) // idle while ready
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
