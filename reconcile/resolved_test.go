package reconcile

import (
	"testing"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
)

// A pull-request stop a person resolves on GitHub resumes the entry by
// itself; anything else leaves it stopped.
func TestResolvedOnGitHub(t *testing.T) {
	t.Parallel()
	pr := gatekeep.PR{Repo: "acme/api", Number: 1}
	yes, no := true, false
	open := githubapi.PullRequest{State: gatekeep.PROpen, BaseRef: "main"}
	with := func(change func(*githubapi.PullRequest)) githubapi.PullRequest { l := open; change(&l); return l }
	tests := []struct {
		name   string
		reason ledger.StopReason
		live   githubapi.PullRequest
		want   string
	}{
		{"closed, reopened", ledger.StopClosed, open, "acme/api#1 was reopened"},
		{"a leg closed, reopened", ledger.StopLegClosed, open, "acme/api#1 was reopened"},
		{"closed, still closed", ledger.StopClosed, with(func(l *githubapi.PullRequest) { l.State = gatekeep.PRClosed }), ""},
		{"a conflict resolved", ledger.StopConflict, with(func(l *githubapi.PullRequest) { l.Mergeable = &yes }), "GitHub reports acme/api#1 free of conflicts again"},
		{"a conflict still there", ledger.StopConflict, with(func(l *githubapi.PullRequest) { l.Mergeable = &no }), ""},
		{"mergeability unknown", ledger.StopConflict, open, ""},
		{"retargeted back", ledger.StopRetargeted, open, "acme/api#1 targets main again"},
		{"still retargeted", ledger.StopRetargeted, with(func(l *githubapi.PullRequest) { l.BaseRef = "dev" }), ""},
		{"another stop", ledger.StopStuck, with(func(l *githubapi.PullRequest) { l.Mergeable = &yes }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := resolvedOnGitHub(tt.reason, pr, tt.live, "main"); got != tt.want {
				t.Errorf("resolvedOnGitHub(%s) = %q; want %q", tt.reason, got, tt.want)
			}
		})
	}
}
