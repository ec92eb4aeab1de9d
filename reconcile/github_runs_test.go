package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 10: CI that has not started within checks.wait stops checks-silent
// with the reason and the fix. When GitHub holds the head's workflow runs
// for a maintainer's approval (action_required; no check run exists), the
// stop says so and how to release them; otherwise, or when the runs cannot
// be read, the generic reason stands. The runs are read once, when the
// stop is decided: never on the passes that only wait.
func TestChecksSilentNamesHeldWorkflowRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, r *rig, head string)
		want    []string
		wantNot []string
	}{
		{
			name: "two runs held for approval",
			setup: func(t *testing.T, r *rig, head string) {
				for _, wr := range []ghstandin.WorkflowRun{
					{Name: "ci", HeadSHA: head, HeadBranch: work, Conclusion: "action_required"},
					{Name: "lint", Path: ".github/workflows/lint.yml", HeadSHA: head, HeadBranch: work, Conclusion: "action_required"},
					// Neither held nor on this head: not counted.
					{Name: "ci", HeadSHA: "main", HeadBranch: "main", Event: "push", Conclusion: "success"},
				} {
					if _, err := r.gh.AddWorkflowRun("acme/api", wr); err != nil {
						t.Fatal(err)
					}
				}
			},
			want: []string{"checks-silent | no check run or status reported on " + "HEAD" + " of acme/api#1 in 45m0s (checks.wait): 2 workflow runs are held action_required on HEAD (lint, ci)",
				"approves them in the repository's Actions tab", "authenticates as a GitHub App", "docs/github.md"},
			wantNot: []string{"default Actions token"},
		},
		{
			name:    "no runs held: the generic reason",
			setup:   func(*testing.T, *rig, string) {},
			want:    []string{"checks-silent | no check run or status reported on HEAD of acme/api#1 in 45m0s (checks.wait); a pull request opened with GitHub's default Actions token starts no workflows"},
			wantNot: []string{"action_required"},
		},
		{
			name: "the runs cannot be read: the generic reason",
			setup: func(t *testing.T, r *rig, head string) {
				if _, err := r.gh.AddWorkflowRun("acme/api", ghstandin.WorkflowRun{Name: "ci", HeadSHA: head, Conclusion: "action_required"}); err != nil {
					t.Fatal(err)
				}
				// A token without the Actions read permission.
				r.gh.InjectFault(ghstandin.Fault{Method: "GET", Path: `/actions/runs$`, Kind: ghstandin.FaultStatus, Status: 403})
			},
			want:    []string{"default Actions token"},
			wantNot: []string{"action_required"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""),
				"gallivant.yaml": strings.Replace(rigConfig, "  none: [acme/api]\n", "  wait: 45m\n", 1)})
			if got := subjectsOf(r.pass()); got[len(got)-1] != "loop: open pr acme/api#1" {
				t.Fatalf("got %v", got)
			}
			head := r.head(work)
			tc.setup(t, r, head)
			r.clock.Advance(30 * time.Minute)
			wantSubjects(t, r.pass())
			if n := r.runsReads(); n != 0 {
				t.Errorf("%d workflow-run reads on passes that only wait, want 0", n)
			}
			r.clock.Advance(20 * time.Minute)
			wantSubjects(t, r.pass(), "loop: stop checks-silent")
			if n := r.runsReads(); n != 1 {
				t.Errorf("%d workflow-run reads by the stop, want 1", n)
			}
			stop := r.ledgerOf("specs/feature.md").Delivery.Stop.String()
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "HEAD", short(head)); !strings.Contains(stop, w) {
					t.Errorf("stop %q does not contain %q", stop, w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(stop, w) {
					t.Errorf("stop %q contains %q", stop, w)
				}
			}
			// A stopped entry asks nothing more.
			wantSubjects(t, r.pass())
			if n := r.runsReads(); n != 1 {
				t.Errorf("%d workflow-run reads after the stop, want still 1", n)
			}
		})
	}
}

// runsReads counts the requests for a repository's workflow runs.
func (r *rig) runsReads() int {
	n := 0
	for _, q := range r.gh.Requests() {
		if strings.HasSuffix(q.Path, "/actions/runs") {
			n++
		}
	}
	return n
}
