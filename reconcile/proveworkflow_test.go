package reconcile

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// With the workflow executor and no executor.proof_check, a pull request
// is labelled ready only on gallivant's proof of its head through the
// workflow (issue 28, docs/verify.md "Proof through the workflow"): the
// pass creates the result branch at the head and dispatches the docs'
// workflow with target prove, once; it refuses a result for another head
// at its line; it admits the workflow's result for the exact head, records
// it as a local replay (loop: verify with one Gallivant-Proof trailer a
// row, the receipt's proof lines), deletes the branch and labels the
// pull request ready; gallivant verify replays the history.
func TestWorkflowProveDispatch(t *testing.T) {
	t.Parallel()
	r, head, workflow := workflowProveRig(t)
	branch := gatekeep.ProveBranch(head)

	rep := r.pass(workflow)
	if !strings.Contains(noteOf(rep), "dispatched the workflow agent.yml to prove "+head[:7]) {
		t.Errorf("the pass does not say it dispatched the prove: %s", noteOf(rep))
	}
	ds := r.gh.Dispatches("acme/api")
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want the prove dispatch: %+v", len(ds), ds)
	}
	want := map[string]string{"control": "acme/control", "spec": "specs/feature.md", "ledger": ledgerPath, "branch": work,
		"target": "prove", "pending": head, "iteration": ds[0].Inputs["iteration"]}
	if diff := cmp.Diff(want, ds[0].Inputs); diff != "" {
		t.Errorf("prove inputs (-want +got):\n%s", diff)
	}
	if got := r.head(branch); got != head {
		t.Errorf("the result branch is at %s, want the head %s", got, head)
	}
	if got := r.as("alice").labels(1); len(got) != 0 {
		t.Fatalf("labelled %v before any proof of %s", got, head)
	}

	if why := r.why("specs/feature.md"); !strings.Contains(why, "dispatches the workflow to prove them (branch "+branch+")") {
		t.Errorf("gallivant why does not say how the head is proved:\n%s", why)
	}

	// While the workflow runs, nothing is dispatched again.
	r.pass(workflow)
	if n := len(r.gh.Dispatches("acme/api")); n != 1 {
		t.Errorf("%d dispatches after a second pass, want the one", n)
	}

	result := func(h string) string { return proveResultOf(r.ledger(ledgerPath), h, 0) }
	// A result for another head is refused at its line.
	old := strings.Repeat("3", 40)
	if err := r.gh.PutFile("acme/api", branch, gatekeep.ProveFile, result(old)); err != nil {
		t.Fatal(err)
	}
	rep = r.pass(workflow)
	wantSubjects(t, rep)
	if msg := noteOf(rep); !strings.Contains(msg, "is refused: gallivant-proof.txt:2:1: line 2 is \"head "+old+"\", not `head "+head+"`") {
		t.Errorf("the refusal is not named at its line: %s", msg)
	}

	if err := r.gh.PutFile("acme/api", branch, gatekeep.ProveFile, result(head)); err != nil {
		t.Fatal(err)
	}
	rep = r.pass(workflow)
	wantSubjects(t, rep, "loop: verify", "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	l := r.ledger(ledgerPath)
	if p := gatekeep.ProofProblem(l, head); p != nil {
		t.Errorf("after the admitted result: %s", p.Message)
	}
	if len(l.Proofs) == 0 {
		t.Fatal("## Proof records nothing")
	}
	for _, p := range l.Proofs {
		if p.Head != head || p.CarriedFrom != "" || !p.Proved() {
			t.Errorf("proof %v; want a run on %s", p, head)
		}
	}
	msg := run(t, r.control, "git", "log", "-1", "--format=%B", "main~2")
	if !strings.Contains(msg, "Gallivant-Proof: row 1 | "+head+" | exit 0 | assertion | 0ms | ") {
		t.Errorf("the loop: verify commit carries no proof trailer of row 1 on %s:\n%s", head, msg)
	}
	if body := r.as("alice").pr(1).GetBody(); !strings.Contains(body, "| proof | passed | row 1: ") || !strings.Contains(body, "on "+head[:7]+", exit 0, assertion |") {
		t.Errorf("the receipt shows no proof on %s:\n%s", head[:7], body)
	}
	if got := r.as("alice").labels(1); len(got) != 1 {
		t.Errorf("labels %v, want the ready label", got)
	}
	if refs := run(t, r.gh.RepoDir("acme/api"), "git", "for-each-ref", "--format=%(refname)", "refs/heads/"+branch); refs != "" {
		t.Errorf("the result branch is still there: %s", refs)
	}

	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	v := audit.NewVerifier()
	if err := st.History(context.Background(), "", nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := v.Report(); !rep.Legal() {
		t.Errorf("%s\nviolations %+v", rep.Summary(), rep.Violations)
	}
}

// workflowProveRig is a pull request opened under the command executor,
// whose configuration then turns to the workflow executor (the docs'
// workflow, no executor.proof_check), with a person's head on it that CI
// and the reviewer passed: ready but for the proof of head.
func workflowProveRig(t *testing.T) (r *rig, head string, workflow rigOption) {
	t.Helper()
	r = newDelivery(t, "")
	r.putDocsWorkflow()
	r.pass() // the rows, their local replay, the pull request
	r.edit("gallivant.yaml", func(s string) string {
		return strings.Replace(s, "kind: command\n  command: [\"unused\"]", "kind: workflow\n  workflow: agent.yml", 1)
	})
	workflow = func(o *Options) {
		o.Executor = agent.WorkflowExecutor{GitHub: o.GitHub, Workflow: "agent.yml", Control: "acme/control"}
	}
	head = r.personPush(work, "extra.txt")
	r.greenAndApproved(head)
	return r, head, workflow
}

// proveResultOf is the result `gallivant prove --result` writes for h:
// specWith's Verify command, then one proof line a done row, each exiting
// exit.
func proveResultOf(l *ledger.Ledger, h string, exit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nhead %s\nverify | exit 0 | test -d rows\n", gatekeep.ProveHeader, h)
	for _, row := range l.Rows {
		if row.Status == ledger.Done {
			b.WriteString(ledger.Proof{Row: row.N, Head: h, Exit: exit, Tests: "assertion", Command: ledger.EvidenceCommand(row.Evidence)}.String() + "\n")
		}
	}
	return b.String()
}

// A workflow's result whose row failed on the head is recorded like a
// failed local replay and answered the same way: a fix round for
// that head through the workflow, never the ready label.
func TestWorkflowProveFailureIsAFixRound(t *testing.T) {
	t.Parallel()
	r, head, workflow := workflowProveRig(t)
	r.pass(workflow)
	if err := r.gh.PutFile("acme/api", gatekeep.ProveBranch(head), gatekeep.ProveFile, proveResultOf(r.ledger(ledgerPath), head, 1)); err != nil {
		t.Fatal(err)
	}
	rep := r.pass(workflow)
	wantSubjects(t, rep, "loop: verify", "loop: round 1 acme/api#1")
	l := r.ledger(ledgerPath)
	if v, ok := gatekeep.VerifiedAt(l); !ok || v.Head != head || v.Passed {
		t.Errorf("verified: %+v; want the head's failed verification", v)
	}
	ds := r.gh.Dispatches("acme/api")
	if last := ds[len(ds)-1]; last.Inputs["target"] != "round" || last.Inputs["round"] != "1" {
		t.Errorf("the last dispatch is %+v, want the fix round through the workflow", last.Inputs)
	}
	if got := r.as("alice").labels(1); len(got) != 0 {
		t.Errorf("labelled %v on a failed proof", got)
	}
}
