package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
)

// Where the executor holds no checkout (workflow, none), a pull request is
// not labelled ready on the agent's claims: the gate denies
// evidence-unproven until the check executor.proof_check names succeeded
// on the head, and says what is missing when none is configured.
func TestProofCheckHoldsTheReadyLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, kind, extra, note, why string
		proves                       bool
	}{
		// The check takes precedence over the workflow's prove dispatch.
		{"the check configured", "workflow", "  workflow: agent.yml\n  proof_check: gallivant-proof\n", `completion gate: the check "gallivant-proof" (executor.proof_check) has not reported on`, `proof: labelled ready only once the check "gallivant-proof" (executor.proof_check) succeeded on its head`, true},
		// Without a check, the workflow executor proves by its prove
		// dispatch (TestWorkflowProveDispatch); none has nothing.
		{"no check configured", "none", "", "completion gate: executor.kind none replays no evidence and executor.proof_check names no check", "completion gate: evidence-unproven - executor.kind none replays no evidence and executor.proof_check names no check", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			config := strings.Replace(rigConfig, "  kind: command\n  command: [\"unused\"]\n", "  kind: "+tc.kind+"\n  command: [\"unused\"]\n"+tc.extra, 1)
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": config})
			rep := r.pass(runsElsewhere)
			got := strings.Join(subjectsOf(rep), "\n")
			if !strings.Contains(got, "loop: open pr acme/api#1") || strings.Contains(got, "loop: ready") {
				t.Fatalf("got %s, want the pull request opened and not labelled ready", got)
			}
			if note := noteOf(rep); !strings.Contains(note, tc.note) {
				t.Errorf("the pass does not say what is missing (%q):\n%s", tc.note, note)
			}
			// L-104: the spec's Verify commands are not skipped silently.
			if note, want := noteOf(rep), "the verification `test -d rows` is not run by gallivant: executor.kind "+tc.kind+" holds no checkout to run it in"; !strings.Contains(note, want) {
				t.Errorf("the pass does not say that the Verify commands did not run (%q):\n%s", want, note)
			}
			if why := r.why("specs/feature.md"); !strings.Contains(why, tc.why) {
				t.Errorf("gallivant why lacks %q:\n%s", tc.why, why)
			}
			head := r.head(work)
			r.as("ci-bot").status(head, "gallivant-proof", "success")
			got = strings.Join(subjectsOf(r.pass(runsElsewhere)), "\n")
			if strings.Contains(got, "loop: ready acme/api#1") != tc.proves {
				t.Errorf("after gallivant-proof succeeded: %s (want ready: %v)", got, tc.proves)
			}
		})
	}
}

// remote runs the rig's agent in-process but declares what a workflow
// executor does: its agents run elsewhere, and it verifies nothing.
type remote struct{ agent.CommandExecutor }

func (remote) Placement() agent.Placement { return agent.Remote }

func (remote) Verify(context.Context, agent.Task, []string, []string) (agent.VerifyResult, error) {
	return agent.VerifyResult{Unsupported: true}, nil
}

func runsElsewhere(o *Options) { o.Executor = remote{o.Executor.(agent.CommandExecutor)} }

// why is what `gallivant why` prints of a spec, from the control branch.
func (r *rig) why(spec string) string {
	r.t.Helper()
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: r.t.TempDir()})
	if err != nil {
		r.t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.Join(snap.Explain(spec), "\n")
}
