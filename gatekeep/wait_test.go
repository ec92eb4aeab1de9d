package gatekeep

import (
	"testing"
)

// Each typed wait renders the sentence the verdict always showed.
func TestWaitString(t *testing.T) {
	t.Parallel()
	head := "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		w    Wait
		want string
	}{
		{Wait{Kind: WaitMergeability}, "GitHub to compute mergeability"},
		{Wait{Kind: WaitCheck, Name: "build", Head: head}, "check build on 0123456"},
		{Wait{Kind: WaitChecksReadable, Head: head}, "the checks on 0123456 to be readable"},
		{Wait{Kind: WaitRequiredCheck, Name: "lint", Head: head}, "required check lint to report on 0123456"},
		{Wait{Kind: WaitReReview, User: "dana", Head: head}, "a re-review by @dana (changes requested on 0123456 were answered)"},
		{Wait{Kind: WaitApproval, User: "dana", Head: head}, "an approval by @dana of 0123456"},
		{Wait{Kind: WaitFirstCI, Head: head}, "a first check run or status on 0123456"},
		{Wait{Kind: WaitReviewsReadable}, "the reviews to be readable"},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("%+v.String() = %q; want %q", tt.w, got, tt.want)
		}
	}
}

// Only the typed first-CI wait starts the checks-silent clock; a check
// whose name reads like the sentence does not.
func TestWaitsForCI(t *testing.T) {
	t.Parallel()
	var ci, named Verdict
	ci.waitFor(Wait{Kind: WaitFirstCI, Head: "abc"})
	named.waitFor(Wait{Kind: WaitCheck, Name: "a first check run or status on", Head: "abc"})
	if !ci.WaitsForCI() {
		t.Error("WaitsForCI() = false for a first-CI wait")
	}
	if named.WaitsForCI() {
		t.Error("WaitsForCI() = true for a check wait whose sentence starts like the first-CI one")
	}
}
