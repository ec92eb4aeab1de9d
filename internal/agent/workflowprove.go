package agent

import (
	"context"
	"fmt"

	"github.com/gallivant/gallivant/internal/redact"
)

// ProveTarget is the `target` input of a prove dispatch: the workflow
// runs `gallivant prove --result` on the head `pending` names, rather
// than an agent (docs/verify.md "Proof through the workflow").
const ProveTarget = "prove"

// Prove dispatches the workflow to prove head, the head of t's work
// branch under review: the inputs of a run, with target `prove`, pending
// the head's full SHA and no round or model. It checks the workflow file
// as Run does and returns as soon as GitHub accepted the dispatch; the
// workflow pushes its result to the branch gatekeep.ProveBranch(head).
func (w WorkflowExecutor) Prove(ctx context.Context, t Task, head string) error {
	inputs := map[string]string{
		"control":   redact.URLs(w.Control),
		"spec":      t.Spec,
		"ledger":    t.Ledger,
		"branch":    t.Branch,
		"target":    ProveTarget,
		"pending":   head,
		"iteration": fmt.Sprint(t.Iteration),
	}
	ref := t.DefaultBranch
	if ref == "" {
		ref = "main"
	}
	content, err := w.GitHub.WorkflowFile(ctx, t.Repo, w.Workflow, ref)
	if err != nil {
		return err
	}
	wd, err := ParseWorkflowDispatch(content)
	if err != nil {
		return fmt.Errorf("read workflow .github/workflows/%s of %s at %s: %w", w.Workflow, t.Repo, ref, err)
	}
	if err := wd.check(t.Repo, w.Workflow, ref, inputs); err != nil {
		return err
	}
	return w.GitHub.DispatchWorkflow(ctx, t.Repo, w.Workflow, ref, inputs)
}
