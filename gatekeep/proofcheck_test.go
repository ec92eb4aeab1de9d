package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/specs"
)

// Where gallivant holds no checkout (workflow, none), a head is proved only
// by the check executor.proof_check names, succeeded on it; anything else
// is evidence-unproven naming what is missing.
func TestCheckProblem(t *testing.T) {
	t.Parallel()
	pc := ProofCheck{Executor: specs.ExecutorWorkflow, Name: "gallivant-proof"}
	check := func(name string, st CheckStatus, c CheckConclusion) Check {
		return Check{Name: name, Kind: KindCheckRun, Status: st, Conclusion: c}
	}
	digest := func(known bool, cs ...Check) Digest { return Digest{HeadSHA: head, ChecksKnown: known, Checks: cs} }
	tests := []struct {
		name string
		d    Digest
		pc   ProofCheck
		want string // "" when proved
	}{
		{"succeeded", digest(true, check("ci", CheckCompleted, ConclusionFailure), check("gallivant-proof", CheckCompleted, ConclusionSuccess)), pc, ""},
		{"named in another case", digest(true, check("Gallivant-Proof", CheckCompleted, ConclusionSuccess)), pc, ""},
		{"no proof_check configured", digest(true, check("ci", CheckCompleted, ConclusionSuccess)), ProofCheck{Executor: specs.ExecutorNone}, "executor.kind none replays no evidence and executor.proof_check names no check"},
		{"not reported", digest(true, check("ci", CheckCompleted, ConclusionSuccess)), pc, `the check "gallivant-proof" (executor.proof_check) has not reported on ` + head[:7]},
		{"failed", digest(true, check("gallivant-proof", CheckCompleted, ConclusionFailure)), pc, "is failure on"},
		{"skipped is no proof", digest(true, check("gallivant-proof", CheckCompleted, ConclusionSkipped)), pc, "is skipped on"},
		{"still running", digest(true, check("gallivant-proof", CheckInProgress, "")), pc, "is still in_progress on"},
		{"one of two runs failed", digest(true, check("gallivant-proof", CheckCompleted, ConclusionSuccess), check("gallivant-proof", CheckCompleted, ConclusionFailure)), pc, "is failure on"},
		{"checks unreadable", digest(false), pc, "could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := CheckProblem(tt.d, tt.pc)
			switch {
			case tt.want == "" && p != nil:
				t.Errorf("CheckProblem = %+v, want none", p)
			case tt.want != "" && p == nil:
				t.Errorf("CheckProblem = nil, want %q", tt.want)
			case p != nil && (p.Rule != GateUnproven || !p.Blocking || !strings.Contains(p.Message, tt.want)):
				t.Errorf("CheckProblem = %+v, want a blocking evidence-unproven with %q", p, tt.want)
			}
		})
	}
}

// Only the executors without a checkout are held to a proof check.
func TestProofCheckFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind, check string
		want        *ProofCheck
	}{
		{specs.ExecutorWorkflow, "gallivant-proof", &ProofCheck{Executor: specs.ExecutorWorkflow, Name: "gallivant-proof"}},
		// Without a check, the workflow's prove dispatch proves the head.
		{specs.ExecutorWorkflow, "", nil},
		{specs.ExecutorNone, "", &ProofCheck{Executor: specs.ExecutorNone}},
		{specs.ExecutorCommand, "gallivant-proof", nil},
		{specs.ExecutorClaudeCode, "", nil},
	} {
		cfg := specs.DefaultConfig()
		cfg.Executor.Kind, cfg.Executor.ProofCheck = tt.kind, tt.check
		got := ProofCheckFor(cfg, &specs.Spec{Path: "specs/a.md"})
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("ProofCheckFor(%s, %q) = %+v, want %+v", tt.kind, tt.check, got, tt.want)
		}
	}
	legs := &specs.Spec{Path: "specs/b.md", Legs: []specs.Leg{{Name: "api", Repo: "acme/api"}, {Name: "web", Repo: "acme/web"}}}
	cfg := specs.DefaultConfig()
	cfg.Executor.Kind = specs.ExecutorWorkflow
	if got := ProofCheckFor(cfg, legs); got == nil || got.Name != "" {
		t.Errorf("ProofCheckFor(workflow, a coordinated spec) = %+v; want the check that names none (no prove dispatch for legs)", got)
	}
	cfg.Executor.Verify = false
	if got := ProofCheckFor(cfg, &specs.Spec{Path: "specs/a.md"}); got == nil {
		t.Errorf("ProofCheckFor(workflow, executor.verify off) = nil; want the check that names none")
	}
	if ProofCheckFor(nil, nil) != nil {
		t.Errorf("ProofCheckFor(nil) is not nil")
	}
}
