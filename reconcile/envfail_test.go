package reconcile

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/google/go-cmp/cmp"
)

// envRig is a rig of three one-row specs whose executor runs the Claude
// Code preset against the stand-in CLI, first on its PATH.
func envRig(t *testing.T, maxParallel int) (*rig, string, rigOption) {
	bin := agentstandin.Write(t)
	cfg := strings.Replace(rigConfig, "  timeout: 30m\n", fmt.Sprintf("  timeout: 30m\n  max_parallel: %d\n", maxParallel), 1)
	r := newRig(t, map[string]string{"gallivant.yaml": cfg, "specs/a.md": specWith(1, ""), "specs/b.md": specWith(1, ""), "specs/c.md": specWith(1, "")})
	opt := func(o *Options) {
		o.Executor = agent.CommandExecutor{Kind: "claude-code", Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Environ: standinEnviron(bin)}
	}
	return r, bin, opt
}

func problemsOf(rep *Report) []Note {
	var out []Note
	for _, n := range rep.Notes {
		if n.Problem {
			out = append(out, n)
		}
	}
	return out
}

// verifyControl replays the control branch's history as `gallivant
// verify` does and fails on any illegal transition.
func verifyControl(t *testing.T, r *rig) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	v := audit.NewVerifier()
	if err := st.History(context.Background(), "", nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := v.Report(); !rep.Legal() {
		t.Errorf("verify: %s\n%+v", rep.Summary(), rep.Violations)
	}
}

// An agent that cannot authenticate is one problem of the pass, not a
// stop per entry: its dispatch is withdrawn without spending an attempt,
// no other agent starts in that pass (agents already running in parallel
// end the same way, each withdrawn), and once the API answers again the
// next pass runs all three entries to their pull requests by itself.
func TestEnvironmentFailureIsOnePassProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		maxParallel int
		want        []string
	}{
		{"one at a time", 1, []string{"loop: seed ledger", "loop: dispatch seed", "loop: withdraw seed", "loop: seed ledger", "loop: seed ledger"}},
		{"in parallel", 3, []string{"loop: seed ledger", "loop: dispatch seed", "loop: seed ledger", "loop: dispatch seed", "loop: seed ledger", "loop: dispatch seed",
			"loop: withdraw seed", "loop: withdraw seed", "loop: withdraw seed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { t.Parallel(); environmentFailure(t, tc.maxParallel, tc.want) })
	}
}

func environmentFailure(t *testing.T, maxParallel int, want []string) {
	r, bin, opt := envRig(t, maxParallel)
	agentstandin.Set(t, bin, agentstandin.Fail, `"Invalid API key · Fix external API key"`)
	rep := r.pass(opt)
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("first pass (-want +got):\n%s\nnotes %+v", diff, rep.Notes)
	}
	problems := problemsOf(rep)
	if len(problems) != 1 {
		t.Fatalf("problems %+v, want exactly one", problems)
	}
	const cause = `the agent could not authenticate: 401 "Invalid API key · Fix external API key"`
	if p := problems[0]; p.Spec != "gallivant.yaml" || !strings.Contains(p.Message, cause) || !strings.Contains(p.Message, "no further agent starts this pass") {
		t.Errorf("problem %+v, want it on gallivant.yaml naming %q", p, cause)
	}
	for _, spec := range []string{"specs/a.md", "specs/b.md", "specs/c.md"} {
		found := false
		for _, n := range rep.Notes {
			if n.Spec == spec && !n.Problem && strings.Contains(n.Message, "dispatch left for a later pass") && strings.Contains(n.Message, cause) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no wait naming the held dispatch in %+v", spec, rep.Notes)
		}
	}
	a := r.ledger("plans/a-ledger.md")
	if a.Pending != nil {
		t.Errorf("the withdrawn dispatch is still pending: %s", a.Pending)
	}
	if _, _, stopped := a.Stop(); stopped {
		t.Errorf("the entry stopped: %s", a.Delivery.Stop.String())
	}
	if got := a.Delivery.Unavailable; !strings.HasPrefix(got, "iteration 1: "+cause) {
		t.Errorf("unavailable: %q, want it to begin %q", got, "iteration 1: "+cause)
	}
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Status("specs/a.md").Problem; !strings.Contains(got, "withdrawn") || !strings.Contains(got, cause) {
		t.Errorf("status problem %q, want the withdrawal and its cause", got)
	}

	// The API answers again: every entry runs, nobody cleared anything.
	if err := os.Remove(bin + "/" + agentstandin.Fail); err != nil {
		t.Fatal(err)
	}
	rep = r.pass(opt)
	if got := problemsOf(rep); len(got) != 0 {
		t.Errorf("second pass problems %+v, want none", got)
	}
	for _, prefix := range []string{"loop: dispatch seed", "loop: record home seed", "loop: record home row 1", "loop: ready "} {
		if got := countSubjects(rep, prefix); got != 3 {
			t.Errorf("second pass: %d %q, want 3\n%q", got, prefix, subjectsOf(rep))
		}
	}
	if got := countSubjects(rep, "loop: stop"); got != 0 {
		t.Errorf("second pass stopped: %q", subjectsOf(rep))
	}
	a = r.ledger("plans/a-ledger.md")
	if got := a.Delivery.Unavailable; got != "" {
		t.Errorf("unavailable stayed after the next dispatch: %q", got)
	}
	if row, _ := a.Row(1); row.Attempts != 1 {
		t.Errorf("row 1 attempts %d, want 1: the withdrawn dispatch spends none", row.Attempts)
	}
	verifyControl(t, r)
}

// A failing preflight (the CLI is not signed in) is the same one problem,
// found before any dispatch is committed: no agent starts, and the check
// runs once in the pass, not once per entry.
func TestPreflightFailureStartsNoAgent(t *testing.T) {
	t.Parallel()
	r, bin, opt := envRig(t, 3)
	agentstandin.Set(t, bin, agentstandin.LoggedOut, "")
	rep := r.pass(opt)
	want := []string{"loop: seed ledger", "loop: seed ledger", "loop: seed ledger"}
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s\nnotes %+v", diff, rep.Notes)
	}
	problems := problemsOf(rep)
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "the agent could not authenticate") || !strings.Contains(problems[0].Message, "claude auth status") {
		t.Fatalf("problems %+v, want one naming claude auth status", problems)
	}
	if calls := agentstandin.CallsOf(t, bin); len(calls) != 0 {
		t.Errorf("agents started: %q", calls)
	}
	if diff := cmp.Diff([]string{"claude --version", "claude auth status"}, agentstandin.PreflightsOf(t, bin)); diff != "" {
		t.Errorf("preflight calls (-want +got):\n%s", diff)
	}

	if err := os.Remove(bin + "/" + agentstandin.LoggedOut); err != nil {
		t.Fatal(err)
	}
	rep = r.pass(opt)
	if got := countSubjects(rep, "loop: record home row 1"); got != 3 || len(problemsOf(rep)) != 0 {
		t.Errorf("after signing in: %q, problems %+v", subjectsOf(rep), problemsOf(rep))
	}
	if got := len(agentstandin.PreflightsOf(t, bin)); got != 4 {
		t.Errorf("%d preflight calls over two passes, want 4 (once per pass)", got)
	}
	verifyControl(t, r)
}
