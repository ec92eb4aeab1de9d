package gatekeep

import (
	"testing"
	"time"
)

// Approvals counts each person's latest deciding review, as GitHub counts
// approvals against a required number: a later request for changes or a
// dismissal takes an approval back, a later comment does not, and names
// compare without case.
func TestApprovals(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := func(user string, st ReviewState) Review { return Review{User: user, State: st, SubmittedAt: at} }
	tests := []struct {
		name    string
		reviews []Review
		want    int
	}{
		{"none", nil, 0},
		{"one approval", []Review{r("alice", ReviewApproved)}, 1},
		{"two people", []Review{r("alice", ReviewApproved), r("bob", ReviewApproved)}, 2},
		{"the same person twice", []Review{r("alice", ReviewApproved), r("Alice", ReviewApproved)}, 1},
		{"a comment after an approval keeps it", []Review{r("alice", ReviewApproved), r("alice", ReviewCommented)}, 1},
		{"changes requested after an approval takes it back", []Review{r("alice", ReviewApproved), r("alice", ReviewChangesRequested)}, 0},
		{"a dismissed approval", []Review{r("alice", ReviewApproved), r("alice", ReviewDismissed)}, 0},
		{"approval after changes requested", []Review{r("bob", ReviewChangesRequested), r("bob", ReviewApproved)}, 1},
	}
	for _, tt := range tests {
		if got := Approvals(tt.reviews); got != tt.want {
			t.Errorf("%s: Approvals = %d, want %d", tt.name, got, tt.want)
		}
	}
	w := Wait{Kind: WaitApprovals, Need: 2, Have: 1}
	if got, want := w.String(), "2 approving reviews the base branch requires (1 so far)"; got != want {
		t.Errorf("the wait reads %q, want %q", got, want)
	}
	if got, want := (Wait{Kind: WaitApprovals, Need: 1}).String(), "1 approving review the base branch requires (0 so far)"; got != want {
		t.Errorf("the wait reads %q, want %q", got, want)
	}
}
