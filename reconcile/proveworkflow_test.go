package reconcile

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile/store"
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
	r := newDelivery(t, "")
	r.putDocsWorkflow()
	r.pass() // the rows, their local replay, the pull request
	r.edit("gallivant.yaml", func(s string) string {
		return strings.Replace(s, "kind: command\n  command: [\"unused\"]", "kind: workflow\n  workflow: agent.yml", 1)
	})
	workflow := func(o *Options) {
		o.Executor = WorkflowExecutor{GitHub: o.GitHub, Workflow: "agent.yml", Control: "acme/control"}
	}
	head := r.personPush(work, "extra.txt")
	r.greenAndApproved(head)
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

	// The workflow's result, as `gallivant prove --result` writes it.
	l := r.ledger(ledgerPath)
	result := func(h string) string {
		var b strings.Builder
		// specWith's Verify command, then one proof line a done row.
		fmt.Fprintf(&b, "%s\nhead %s\nverify | exit 0 | test -d rows\n", gatekeep.ProveHeader, h)
		for _, row := range l.Rows {
			if row.Status == ledger.Done {
				b.WriteString(ledger.Proof{Row: row.N, Head: h, Tests: "assertion", Command: ledger.EvidenceCommand(row.Evidence)}.String() + "\n")
			}
		}
		return b.String()
	}
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
	l = r.ledger(ledgerPath)
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
	if err := st.History("", nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := v.Report(); !rep.Legal() {
		t.Errorf("%s\nviolations %+v", rep.Summary(), rep.Violations)
	}
}
