package ghstandin_test

import (
	"context"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// GET /actions/runs lists a repository's workflow runs newest first;
// status matches a run's status or its conclusion (status=action_required
// finds the runs GitHub holds for a maintainer's approval), head_sha, event
// and branch filter, total_count counts every match, and a run on an open
// pull request's head names that pull request.
func TestWorkflowRunFilters(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	main := git(t, w, "rev-parse", "origin/main")
	for _, run := range []ghstandin.WorkflowRun{
		{Name: "ci", HeadSHA: head, HeadBranch: "f", Conclusion: "action_required"},
		{Name: "ci", HeadSHA: main, HeadBranch: "main", Event: "push", Conclusion: "success"},
		{Name: "lint", HeadSHA: head, HeadBranch: "f", Conclusion: "action_required"},
		{Name: "docs", HeadSHA: head, HeadBranch: "f", Status: "in_progress"},
	} {
		if _, err := s.AddWorkflowRun("acme/api", run); err != nil {
			t.Fatal(err)
		}
	}
	gh := s.Client(ghstandin.DefaultLogin)
	list := func(opts github.ListWorkflowRunsOptions) (int, []string) {
		t.Helper()
		res, _, err := gh.Actions.ListRepositoryWorkflowRuns(context.Background(), "acme", "api", &opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.WorkflowRuns {
			out = append(out, r.GetName()+":"+r.GetStatus()+":"+r.GetConclusion())
		}
		return res.GetTotalCount(), out
	}
	tests := []struct {
		name  string
		opts  github.ListWorkflowRunsOptions
		total int
		want  []string
	}{
		{"all, newest first", github.ListWorkflowRunsOptions{}, 4,
			[]string{"docs:in_progress:", "lint:completed:action_required", "ci:completed:success", "ci:completed:action_required"}},
		{"held on the head", github.ListWorkflowRunsOptions{HeadSHA: head, Status: "action_required"}, 2,
			[]string{"lint:completed:action_required", "ci:completed:action_required"}},
		{"held, a page of one", github.ListWorkflowRunsOptions{HeadSHA: head, Status: "action_required", ListOptions: github.ListOptions{PerPage: 1, Page: 2}}, 2,
			[]string{"ci:completed:action_required"}},
		{"status completed", github.ListWorkflowRunsOptions{HeadSHA: head, Status: "completed"}, 2,
			[]string{"lint:completed:action_required", "ci:completed:action_required"}},
		{"event push", github.ListWorkflowRunsOptions{Event: "push"}, 1, []string{"ci:completed:success"}},
		{"branch main", github.ListWorkflowRunsOptions{Branch: "main"}, 1, []string{"ci:completed:success"}},
		{"nothing held on main", github.ListWorkflowRunsOptions{HeadSHA: main, Status: "action_required"}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			total, got := list(tc.opts)
			if total != tc.total {
				t.Errorf("total_count %d, want %d", total, tc.total)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
	res, _, err := gh.Actions.ListRepositoryWorkflowRuns(context.Background(), "acme", "api", &github.ListWorkflowRunsOptions{HeadSHA: head, Event: "pull_request", ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if prs := res.WorkflowRuns[0].PullRequests; len(prs) != 1 || prs[0].GetNumber() != n {
		t.Errorf("pull_requests %v, want #%d", prs, n)
	}
	if _, err := s.AddWorkflowRun("acme/api", ghstandin.WorkflowRun{Name: "ci", HeadSHA: head, Status: "completed"}); err == nil {
		t.Error("a completed run without a conclusion was recorded")
	}
	if _, err := s.AddWorkflowRun("acme/api", ghstandin.WorkflowRun{Name: "ci", HeadSHA: "nope"}); err == nil {
		t.Error("a run on no commit was recorded")
	}
}
