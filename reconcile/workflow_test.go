package reconcile

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/google/go-cmp/cmp"
)

// docsWorkflow returns the agent workflow docs/reconcile.md shows.
func docsWorkflow(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("../docs/reconcile.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], "workflow_dispatch:") {
			return m[1]
		}
	}
	t.Fatal("docs/reconcile.md shows no workflow_dispatch workflow")
	return ""
}

// A workflow lacking inputs gallivant sends is refused before anything is
// dispatched, with a message naming what the workflow must declare.
func TestWorkflowExecutorRefusesUndeclaredInputs(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	if err := r.gh.PutFile("acme/api", "main", ".github/workflows/agent.yml", "on:\n  workflow_dispatch:\n    inputs:\n      spec: {}\n      target: {}\n"); err != nil {
		t.Fatal(err)
	}
	rep := r.pass(func(o *Options) {
		o.Executor = agent.WorkflowExecutor{GitHub: o.GitHub, Workflow: "agent.yml", Control: "acme/control"}
	})
	want := "workflow agent.yml in acme/api (on main) must declare the workflow_dispatch inputs control, ledger, branch, pending, iteration, round, model"
	found := false
	for _, n := range rep.Notes {
		found = found || (n.Problem && strings.Contains(n.Message, want))
	}
	if !found {
		t.Errorf("notes %+v, want a problem containing %q", rep.Notes, want)
	}
	if ds := r.gh.Dispatches("acme/api"); len(ds) != 0 {
		t.Errorf("dispatched %+v despite the refusal", ds)
	}
}

// putDocsWorkflow places the docs' agent workflow in the rig's repository.
func (r *rig) putDocsWorkflow() {
	r.t.Helper()
	if err := r.gh.PutFile("acme/api", "main", ".github/workflows/agent.yml", docsWorkflow(r.t)); err != nil {
		r.t.Fatal(err)
	}
}

// A review round end to end through the workflow executor with the docs'
// workflow: the round is dispatched with the round inputs, GitHub accepts
// them, and the run's push settles the round.
func TestWorkflowExecutorReviewRound(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	r.putDocsWorkflow()
	r.pass()
	h1 := r.head(work)
	r.as("ci-bot").status(h1, "ci", "failure")
	workflow := func(o *Options) {
		o.Executor = agent.WorkflowExecutor{GitHub: o.GitHub, Workflow: "agent.yml", Control: "acme/control"}
	}
	wantSubjects(t, r.pass(workflow), "loop: round 1 acme/api#1")
	ds := r.gh.Dispatches("acme/api")
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want the round's", len(ds))
	}
	want := map[string]string{"control": "acme/control", "spec": "specs/feature.md", "ledger": ledgerPath, "branch": work,
		"target": "round", "pending": "", "round": "1", "iteration": ds[0].Inputs["iteration"]}
	if diff := cmp.Diff(want, ds[0].Inputs); diff != "" {
		t.Errorf("round inputs (-want +got):\n%s", diff)
	}
	// The workflow's agent pushes its fix to the work branch.
	h2 := r.personPush(work, "fix.txt")
	wantSubjects(t, r.pass(workflow), "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	if l := r.ledger(ledgerPath); l.Delivery.Head != h2 || l.Delivery.Round != 1 {
		t.Errorf("after the round: head %s round %d, want %s 1", l.Delivery.Head, l.Delivery.Round, h2)
	}
}

// With a token that cannot read branch protection (GitHub answers 404 to
// it), the required checks still come from the repository rules, and the
// pass waits for them instead of treating the branch as unprotected.
func TestRequiredChecksWithoutAdminToken(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, ""), "gallivant.yaml": rigConfig})
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true})
	r.gh.InjectFault(ghstandin.Fault{Path: "/protection", Kind: ghstandin.FaultStatus, Status: 404})
	rep := r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[len(got)-1] != "loop: open pr acme/api#1" {
		t.Fatalf("want the pull request opened, got %v", got)
	}
	if !strings.Contains(noteOf(rep), "required check ci to report") {
		t.Errorf("the pass does not wait for the required check: %s", noteOf(rep))
	}
	for _, req := range r.gh.Requests() {
		if strings.Contains(req.Path, "/protection") && req.Status != 404 {
			t.Errorf("protection answered %d, want the injected 404", req.Status)
		}
	}
}
