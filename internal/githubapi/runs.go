package githubapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"
)

// GitHub holds the workflow runs of some pull requests (from a first-time
// contributor, from a fork, or by the repository's approval policy) until
// a maintainer approves them: such a run is listed completed with the
// conclusion action_required and creates no check run, so the head looks
// exactly like a head whose CI never started. The checks-silent stop asks
// once, when it is decided, so that its detail names the real cause.

// HeldWorkflowRuns returns the names of the workflow runs on sha that
// GitHub holds for a maintainer's approval (conclusion action_required),
// one per run, newest first. The read is conditional like every other.
func (g *Client) HeldWorkflowRuns(ctx context.Context, repo, sha string) ([]string, error) {
	o, n := splitRepo(repo)
	runs, err := readPages("list the workflow runs of "+short(sha)+" in "+repo, func(page int) ([]*github.WorkflowRun, *github.Response, error) {
		res, resp, err := g.c.Actions.ListRepositoryWorkflowRuns(ctx, o, n, &github.ListWorkflowRunsOptions{HeadSHA: sha, Status: "action_required",
			ExcludePullRequests: true, ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
		if err != nil {
			return nil, resp, err
		}
		return res.WorkflowRuns, resp, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range runs {
		// The filter matches a status or a conclusion; keep exactly the
		// held runs, whatever a GitHub Enterprise version makes of it.
		if r.GetHeadSHA() == sha && r.GetConclusion() == "action_required" {
			out = append(out, r.GetName())
		}
	}
	return out, nil
}

// WorkflowFile returns the content of .github/workflows/<workflow> at ref.
// The read is conditional, so asking again for an unchanged file costs no
// rate limit. The content is the repository's, untrusted: the caller
// parses it strictly.
func (g *Client) WorkflowFile(ctx context.Context, repo, workflow, ref string) ([]byte, error) {
	o, n := splitRepo(repo)
	path := ".github/workflows/" + workflow
	op := "read workflow " + path + " of " + repo + " at " + ref
	fc, _, _, err := g.c.Repositories.GetContents(ctx, o, n, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, classify(op, err)
	}
	if fc == nil {
		return nil, fmt.Errorf("%s: a directory, not a workflow file", op)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return []byte(content), nil
}
