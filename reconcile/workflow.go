package reconcile

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/reconcile/agent"
)

// ReadWorkflowDispatch reads .github/workflows/<workflow> at ref and what
// it declares for workflow_dispatch. The read is conditional, so asking
// again for an unchanged file costs no rate limit.
func (g *GitHub) ReadWorkflowDispatch(ctx context.Context, repo, workflow, ref string) (agent.WorkflowDispatch, error) {
	o, n := splitRepo(repo)
	path := ".github/workflows/" + workflow
	op := "read workflow " + path + " of " + repo + " at " + ref
	fc, _, _, err := g.c.Repositories.GetContents(ctx, o, n, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return agent.WorkflowDispatch{}, classify(op, err)
	}
	if fc == nil {
		return agent.WorkflowDispatch{}, fmt.Errorf("%s: a directory, not a workflow file", op)
	}
	content, err := fc.GetContent()
	if err != nil {
		return agent.WorkflowDispatch{}, fmt.Errorf("%s: %w", op, err)
	}
	wd, err := agent.ParseWorkflowDispatch([]byte(content))
	if err != nil {
		return agent.WorkflowDispatch{}, fmt.Errorf("%s: %w", op, err)
	}
	return wd, nil
}
