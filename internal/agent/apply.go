package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-git/v5/plumbing"
)

// ApplyInput names a plan task's admitted commit and the work branch it is
// applied to (docs/plans.md "Wave execution").
type ApplyInput struct {
	// Repo is the member repository (owner/name) and CloneURL where git
	// reaches it.
	Repo, CloneURL string
	// Branch is the work branch and Head the head it is expected at: the
	// commit is applied on top of Head, and the push fails when the branch
	// moved meanwhile.
	Branch, Head string
	// From is the branch the task's agent pushed its return to and Commit
	// the admitted commit at its head.
	From, Commit string
}

// ApplyConflict is a task's commit that does not apply to the work branch:
// it changes lines that the branch changed since the task started. Paths
// are the conflicting files, sorted as git lists them.
type ApplyConflict struct {
	Commit, Onto string
	Paths        []string
}

func (c *ApplyConflict) Error() string {
	return fmt.Sprintf("commit %s does not apply on top of %s: it conflicts in %s", short(c.Commit), short(c.Onto), strings.Join(quoteAll(c.Paths), ", "))
}

// ErrBranchMoved reports a work branch that is no longer at the head an
// apply was asked for: another reconciler moved it; nothing was pushed.
var ErrBranchMoved = errors.New("the work branch moved")

// ApplyCommit applies a plan task's admitted commit to the work branch by
// cherry-picking it onto in.Head in a scratch repository and pushing the
// result as a fast-forward (never forcing), and returns the new head. The
// commit keeps its author and message, so the `task:` line of its return
// names it on the work branch too. A commit that does not apply is an
// *ApplyConflict; a branch that is no longer at in.Head is ErrBranchMoved.
// The push is tried pushTries times while it fails transiently
// (workPush.run); its last failure is returned wrapped.
func (e CommandExecutor) ApplyCommit(ctx context.Context, in ApplyInput) (string, error) {
	e, err := e.withToken(ctx)
	if err != nil {
		return "", err
	}
	root := filepath.Join(e.WorkDir, "apply")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, strings.ReplaceAll(in.Repo, "/", "__")+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	// The scratch repository is removed when the apply ends: it never
	// needs maintenance, and its refs are read in process.
	g := e.git(dir, nil).with("maintenance.auto", "false")
	ident := []string{"-c", "user.name=gallivant", "-c", "user.email=gallivant@gallivant.invalid"}
	if err := gitInit(ctx, g, dir); err != nil {
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	if _, err := g.out(ctx, "fetch", "--quiet", "--no-tags", "--", in.CloneURL, "+refs/heads/"+in.Branch+":refs/gallivant/work", "+refs/heads/"+in.From+":refs/gallivant/task"); err != nil {
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	scratch, err := gitopen.PlainOpen(dir, nil)
	if err != nil {
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	work, err := scratch.Reference("refs/gallivant/work", false)
	if err != nil {
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	if w := work.Hash().String(); w != in.Head {
		return "", fmt.Errorf("%w: %s is at %s, not %s", ErrBranchMoved, in.Branch, short(w), short(in.Head))
	}
	if task, err := scratch.Reference("refs/gallivant/task", false); err != nil || task.Hash().String() != in.Commit {
		at := ""
		if err == nil {
			at = task.Hash().String()
		}
		return "", fmt.Errorf("apply %s: %s is not at that commit (%s)", short(in.Commit), in.From, at)
	}
	if _, err := g.out(ctx, "checkout", "--quiet", "--detach", in.Head); err != nil {
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	if _, err := g.out(ctx, append(ident, "cherry-pick", "--allow-empty", in.Commit)...); err != nil {
		paths, _ := g.out(ctx, "diff", "--name-only", "--diff-filter=U")
		_, _ = g.out(ctx, "cherry-pick", "--abort")
		if names := strings.Fields(paths); len(names) > 0 {
			return "", &ApplyConflict{Commit: in.Commit, Onto: in.Head, Paths: names}
		}
		return "", fmt.Errorf("apply %s to %s: %w", short(in.Commit), in.Branch, err)
	}
	ref, err := scratch.Head()
	if err != nil {
		return "", err
	}
	head := ref.Hash().String()
	// A push that failed on the network or on GitHub's side is tried
	// again (workPush.run): it never forces, so one that landed although
	// its answer was lost finds the branch at head and succeeds, and one
	// the branch moved under is refused. Failed every time, the admitted
	// commit stays on in.From and the task pending: a later pass applies
	// it, never running the task again.
	p := workPush{repo: scratch, url: in.CloneURL, auth: gitpack.TokenAuth(e.Token), branch: in.Branch, head: plumbing.NewHash(head)}
	if err := p.run(ctx); err != nil {
		if errors.Is(err, gitpack.ErrStale) {
			return "", fmt.Errorf("%w: push %s with %s applied: %v", ErrBranchMoved, in.Branch, short(in.Commit), err)
		}
		return "", fmt.Errorf("push %s with %s applied: %w", in.Branch, short(in.Commit), err)
	}
	return head, nil
}

func quoteAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%q", p)
	}
	return out
}

// RunsTasks reports whether the executor runs plan tasks for t's spec
// (docs/plans.md "Wave execution"): always, on this machine. A command or
// an in-process agent commits its own task return; a preset CLI's result
// (status and decision) is completed into one (Result.TaskMessage).
func (e CommandExecutor) RunsTasks(t Task) bool {
	return specs.RunsTasks(e.kind(t))
}
