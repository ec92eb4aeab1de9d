package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/ledger"
)

// firstDecision is the first decision a pass took on spec.
func firstDecision(rep *Report, spec string) (Decision, bool) {
	for _, d := range rep.Decisions {
		if d.Spec == spec {
			return d, true
		}
	}
	return Decision{}, false
}

// What `gallivant why --live` says (Reconciler.Decide) is the decision the
// next pass takes, case by case along one delivery: open, wait for CI,
// wait for the reviewer, a round due, wait for the re-review, ready, hold
// for the merge, stop closed. Each case takes why's decision first, then
// runs the pass on the same state and compares it with the pass's first
// decision on the entry.
func TestWhyDecidesWhatThePassDoes(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	const spec = "specs/feature.md"
	// The first pass closes the rows; GitHub refuses the pull request
	// once, so the next look is the open.
	refuse := r.gh.InjectFault(ghstandin.Fault{Method: "POST", Path: `/pulls$`, Kind: ghstandin.FaultStatus, Status: 422})
	r.pass()
	refuse()
	alice, ci := r.as("alice"), r.as("ci-bot")
	tests := []struct {
		name   string
		before func()
		look   gatekeep.Look
		step   gatekeep.Step
		reason ledger.StopReason
	}{
		{"open", func() {}, gatekeep.LookOpen, gatekeep.StepOpen, ""},
		{"wait for CI", func() {}, gatekeep.LookJudged, gatekeep.StepWait, ""},
		{"wait for the reviewer", func() { ci.status(r.head(work), "ci", "success") }, gatekeep.LookJudged, gatekeep.StepWait, ""},
		{"round due", func() { alice.review(1, "REQUEST_CHANGES", "Please also cover the zero case.", r.head(work)) }, gatekeep.LookJudged, gatekeep.StepRound, ""},
		{"wait for the re-review", func() { ci.status(r.head(work), "ci", "success") }, gatekeep.LookJudged, gatekeep.StepWait, ""},
		{"ready", func() { alice.review(1, "APPROVE", "", r.head(work)) }, gatekeep.LookJudged, gatekeep.StepReady, ""},
		{"hold for the merge", func() { r.clock.Advance(time.Minute) }, gatekeep.LookJudged, gatekeep.StepHoldReady, ""},
		{"stop closed", func() { alice.close(1) }, gatekeep.LookLive, gatekeep.StepStop, ledger.StopClosed},
	}
	for _, tt := range tests {
		tt.before()
		why, ok, err := r.reconciler().Decide(context.Background(), spec)
		if err != nil || !ok {
			t.Fatalf("%s: Decide = %+v, %v, %v", tt.name, why, ok, err)
		}
		if why.Look != tt.look || why.Step != tt.step || why.Reason != tt.reason {
			t.Errorf("%s: why decides %s %s %q; want %s %s %q (%s)", tt.name, why.Look, why.Step, why.Reason, tt.look, tt.step, tt.reason, why.Words)
		}
		t.Logf("%s: %s %s: %s", tt.name, why.Look, why.Step, why.Words)
		rep := r.pass()
		took, ok := firstDecision(rep, spec)
		if !ok {
			t.Fatalf("%s: the pass took no decision on %s; notes: %+v", tt.name, spec, rep.Notes)
		}
		if diff := cmp.Diff(took, why); diff != "" {
			t.Errorf("%s: why's decision differs from the pass's (-pass +why):\n%s", tt.name, diff)
		}
	}
	// Nothing to decide once the entry is stopped: why says the last
	// recorded state instead.
	if d, ok, err := r.reconciler().Decide(context.Background(), spec); err != nil || ok {
		t.Errorf("Decide on a stopped entry = %+v, %v, %v; want no decision", d, ok, err)
	}
}

// A decision carries the stop reason its step stops with, and why prints
// its words, step, look and where it comes from.
func TestDecisionOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    gatekeep.Action
		want Decision
	}{
		{gatekeep.Action{Step: gatekeep.StepStop, Reason: ledger.StopClosed, Detail: "acme/api#1 was closed without merging"},
			Decision{Spec: "specs/x.md", PR: "acme/api#1", Look: gatekeep.LookLive, Step: gatekeep.StepStop, Reason: ledger.StopClosed, Words: "stop closed: acme/api#1 was closed without merging"}},
		{gatekeep.Action{Step: gatekeep.StepRewritten},
			Decision{Spec: "specs/x.md", PR: "acme/api#1", Look: gatekeep.LookLive, Step: gatekeep.StepRewritten, Reason: ledger.StopBoundary, Words: gatekeep.Action{Step: gatekeep.StepRewritten}.Words()}},
		{gatekeep.Action{Step: gatekeep.StepChecksQuiet, Reason: ledger.StopChecksSilent},
			Decision{Spec: "specs/x.md", PR: "acme/api#1", Look: gatekeep.LookLive, Step: gatekeep.StepChecksQuiet, Reason: ledger.StopChecksSilent, Words: gatekeep.Action{Step: gatekeep.StepChecksQuiet}.Words()}},
		{gatekeep.Action{Step: gatekeep.StepUnready, Reason: ledger.StopClosed, Detail: "its head moved to 0123456"},
			Decision{Spec: "specs/x.md", PR: "acme/api#1", Look: gatekeep.LookLive, Step: gatekeep.StepUnready, Words: "remove the ready label: its head moved to 0123456"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, decisionOf("specs/x.md", "acme/api#1", gatekeep.LookLive, tt.a)); diff != "" {
			t.Errorf("decisionOf(%s) (-want +got):\n%s", tt.a.Step, diff)
		}
	}
	d := Decision{Look: gatekeep.LookJudged, Step: gatekeep.StepWait, Words: "acme/api#1 waits for an approval by @alice of 0123456"}
	if got, want := d.Line("observed now"), "decision: acme/api#1 waits for an approval by @alice of 0123456 (step wait, judged look, observed now)"; got != want {
		t.Errorf("Line = %q; want %q", got, want)
	}
}
