package gatekeep

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// Exit verification's decision (L-104, L-105): a head verifies once, a
// first failure gets one repair, a repaired head that still fails is the
// repair failing, and only what is left to run runs.
func TestDecideVerify(t *testing.T) {
	t.Parallel()
	const head, other = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	check := ReplayPlan{Checks: []ReplayCheck{{Command: "go test -run TestA ./a", Rows: []int{1}}}}
	carried := ReplayPlan{Carried: []ledger.Proof{{Row: 1, Head: head}}}
	failed := ledger.VerifyResult{Head: head, Command: "make test"}
	tests := []struct {
		name         string
		verification string
		verified     ledger.VerifyResult
		repair       string
		plan         ReplayPlan
		want         VerifyDecision
	}{
		{name: "never verified", verification: "make test",
			want: VerifyDecision{Step: VerifyRun, Commands: true}},
		{name: "no verify commands and nothing to replay", verification: "none",
			want: VerifyDecision{Step: VerifyNothing}},
		{name: "no verify commands, evidence to replay", verification: "", plan: check,
			want: VerifyDecision{Step: VerifyRun, Commands: true}},
		{name: "passed here", verification: "make test", verified: ledger.VerifyResult{Head: head, Passed: true},
			want: VerifyDecision{Step: VerifyNothing, Last: Verification{Head: head, Passed: true}}},
		{name: "passed here, evidence to replay", verification: "make test", verified: ledger.VerifyResult{Head: head, Passed: true}, plan: check,
			want: VerifyDecision{Step: VerifyRun, Last: Verification{Head: head, Passed: true}}},
		{name: "passed here, proofs to carry", verification: "make test", verified: ledger.VerifyResult{Head: head, Passed: true}, plan: carried,
			want: VerifyDecision{Step: VerifyRun, Last: Verification{Head: head, Passed: true}}},
		{name: "passed on another head", verification: "make test", verified: ledger.VerifyResult{Head: other, Passed: true},
			want: VerifyDecision{Step: VerifyRun, Commands: true, Last: Verification{Head: other, Passed: true}}},
		{name: "first failure here", verification: "make test", verified: failed,
			want: VerifyDecision{Step: VerifyRepair, Last: Verification(failed)}},
		{name: "failure after the repair of this head", verification: "make test", verified: failed, repair: head,
			want: VerifyDecision{Step: VerifyRepairFailed, Last: Verification(failed)}},
		{name: "repair of another head, failure here", verification: "make test", verified: failed, repair: other,
			want: VerifyDecision{Step: VerifyRepair, Last: Verification(failed)}},
		{name: "failed on another head", verification: "make test", verified: ledger.VerifyResult{Head: other, Command: "make test"}, repair: other,
			want: VerifyDecision{Step: VerifyRun, Commands: true, Last: Verification{Head: other, Command: "make test"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := ledger.NewDelivery()
			d.Verified = tt.verified
			d.VerifyRepair = tt.repair
			l := &ledger.Ledger{Verification: tt.verification, Delivery: d}
			if diff := cmp.Diff(tt.want, DecideVerify(l, head, tt.plan)); diff != "" {
				t.Errorf("DecideVerify(%s) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
