package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Wave execution (docs/plans.md "Wave execution"): a waves spec's ledger
// lists its plan's tasks, and before its rows the pass runs them wave by
// wave. The due tasks of the current wave (ledger.NextWave, at most
// executor.max_parallel at once) are each dispatched with a write-ahead
// `loop: dispatch task <id>` commit, then run at once, each in its own
// checkout from the work branch's head and pushing its return to a branch
// of its own. Once they have all ended, each is settled in plan order:
// its return admitted (ledger.AdmitTask) and its commit applied on top of
// the work branch (a cherry-pick; one that conflicts fails the task), and
// recorded with `loop: record task <id> done|failed`. When every task is
// done the rows their evidence proves on the head are closed by replay
// (waveclose.go), and the rest are delivered as for any entry.

// taskBranch is the branch a task's attempt pushes its return to, beside
// the work branch: `gallivant/<stem>--task-<id>-<attempt>`.
func taskBranch(work string, t ledger.Task) string {
	return fmt.Sprintf("%s--task-%s-%d", work, t.ID, t.Attempts)
}

// waveStep runs e's tasks when they are due; handled is false when the
// entry has no task left to run here, and its rows come next.
func (p *passState) waveStep(ctx context.Context, e *entry) (res stepResult, handled bool, err error) {
	if len(e.l.Tasks) == 0 || e.leg != nil || p.DryRun {
		return finished, false, nil
	}
	if !p.Executor.RunsTasks(p.agentTask(e, ledger.Task{})) {
		return finished, false, nil
	}
	a := ledger.NextWave(e.l.Tasks, p.cfg.Executor.MaxParallel, e.l.Allowance)
	switch a.Kind {
	case ledger.WaveNone:
		// The last wave is in: close what the rows' evidence proves on
		// the head before the row loop (waveclose.go).
		return p.closeRowsStep(ctx, e)
	case ledger.WaveStop:
		return stopped, true, p.stop(e, ledger.StopAllowance, fmt.Sprintf("wave %d cannot finish: %s", a.Wave, a.Detail))
	}
	why, over := ledger.OverBudget(e.l, e.spec)
	if over && len(a.Pending) == 0 {
		return stopped, true, p.stop(e, ledger.StopBudget, why)
	}
	// Over its budget the entry starts nothing more; what runs is settled.
	if a.Kind == ledger.WaveDispatch && !over {
		if err := p.dispatchTasks(ctx, e, p.Executor, a.Dispatch); err != nil {
			return progressed, true, err
		}
	}
	// Every task of the wave that was dispatched has ended (or never ran
	// here); settle them in plan order.
	for _, t := range e.l.Tasks {
		if t.Status != ledger.TaskPending {
			continue
		}
		if res, done, err := p.settleTask(ctx, e, p.Executor, t); !done || err != nil {
			return res, true, err
		}
	}
	return progressed, true, nil
}

// agentTask is the executor's task for plan task t of e.
func (p *passState) agentTask(e *entry, t ledger.Task) agent.Task {
	repo, _ := p.member(e, specs.HomeMember)
	at := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: taskBranch(p.branch(e), t), Base: t.SHA,
		Pending: ledger.Pending{Target: ledger.SeedTarget, Member: specs.HomeMember, SHA: t.SHA}, Iteration: e.l.Iterations - 1,
		Model: e.l.Delivery.Model, DefaultBranch: e.spec.Base, Harness: e.spec.Harness, PlanTask: t.ID}
	if p.CloneURL != nil {
		at.CloneURL = p.CloneURL(repo)
	}
	return at
}

// taskKey names a task attempt's outcome in p.outcomes.
func taskKey(e *entry, t ledger.Task) string {
	return e.ledgerPath + "|task " + ledger.TaskTuple(t)
}

// dispatchTasks writes the dispatch of each of ids ahead of its run, then
// runs them all at once and keeps their outcomes for settling.
func (p *passState) dispatchTasks(ctx context.Context, e *entry, tr Executor, ids []string) error {
	repo, base := p.member(e, specs.HomeMember)
	branch := p.branch(e)
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil {
		return err
	}
	if !ok {
		if err := p.GitHub.CreateBranch(ctx, repo, branch, base); err != nil {
			return err
		}
		head = base
	}
	plan := p.repo.PlanFor(e.specPath)
	var runs []agent.Task
	for _, id := range ids {
		n, c, err := ledger.DispatchTask(e.l, id, head, p.clock())
		if err != nil {
			return err
		}
		if err := p.apply(e, n, c); err != nil {
			return err
		}
		t, _ := e.l.Task(id)
		at := p.agentTask(e, *t)
		at.Iteration = e.l.Iterations - 1
		at.Brief, err = ledger.TaskBrief(ledger.TaskBriefInput{Ledger: e.l, Spec: e.spec, Plan: plan, LedgerPath: e.ledgerPath, Repo: repo, Branch: at.Branch, Task: id})
		if err != nil {
			return err
		}
		runs = append(runs, at)
	}
	// Write-ahead: the dispatches are on the control branch before any of
	// their agents starts, so a crash leaves each task pending, never run
	// twice for one attempt.
	if err := p.pushIntendedAll(ctx, runs); err != nil {
		return err
	}
	if err := p.crash("tasks:before"); err != nil {
		for _, at := range runs {
			p.abandon(at)
		}
		return err
	}
	outs, errs := p.runTasks(ctx, e, repo, runs)
	for i, at := range runs {
		p.moved(repo, at.Branch)
		t, _ := e.l.Task(at.PlanTask)
		p.outcomes[taskKey(e, *t)] = outs[i]
		if outs[i].Err != nil {
			p.Log.Warn("task agent run failed", "spec", e.specPath, "task", at.PlanTask, "error", outs[i].Err.Error(), "log", outs[i].Log)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return p.crash("tasks:after")
}

// pushIntendedAll is pushIntended for the tasks of one dispatch batch:
// each task's intent is recorded, then one push publishes every dispatch.
func (p *passState) pushIntendedAll(ctx context.Context, runs []agent.Task) error {
	in := p.Executor
	tip := p.Store.Tip()
	var intended []agent.Task
	for _, at := range runs {
		at.Control = tip
		if err := in.Intend(at); err != nil && !errors.Is(err, agent.ErrCheckoutBusy) {
			for _, t := range intended {
				in.Abandon(t, true)
			}
			return err
		}
		intended = append(intended, at)
	}
	if err := p.push(ctx); err != nil {
		// As in pushIntended: the intents stay, believed only once their
		// control commit is on the control branch.
		for _, t := range intended {
			in.Abandon(t, true)
		}
		return err
	}
	return nil
}

// runTasks runs the tasks' agents at once, each in a slot of the pass's
// scheduler (executor.max_parallel and the per-repository bound) when it
// has one, without the pass lock. Called with the lock held; returns with
// it held.
func (p *passState) runTasks(ctx context.Context, e *entry, repo string, runs []agent.Task) ([]agent.Outcome, []error) {
	outs, errs := make([]agent.Outcome, len(runs)), make([]error, len(runs))
	s := p.sched
	if s == nil {
		for i, at := range runs {
			outs[i], errs[i] = p.Executor.Run(ctx, at)
		}
		return outs, errs
	}
	s.handOff(e)
	s.mu.Unlock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	for i, at := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					panicked = v
					mu.Unlock()
				}
			}()
			release, err := s.acquire(ctx, repo)
			if err != nil {
				errs[i] = err
				return
			}
			defer release()
			outs[i], errs[i] = p.Executor.Run(ctx, at)
		}()
	}
	wg.Wait()
	s.mu.Lock()
	if panicked != nil {
		panic(panicked)
	}
	if s.abort != nil {
		errs = append(errs, errAborted)
	}
	return outs, errs
}

// settleTask settles pending task t: it gathers what this machine knows of
// the run and what the task's branch holds, ledger.SettleTask decides,
// and an admitted return is applied to the work branch before it is
// recorded. done is false when the wave waits for t's agent (its
// reconciler is gone, or another reconciler's run may still answer).
func (p *passState) settleTask(ctx context.Context, e *entry, tr Executor, t ledger.Task) (stepResult, bool, error) {
	repo, _ := p.member(e, specs.HomeMember)
	at := p.agentTask(e, t)
	key := taskKey(e, t)
	out, known := p.outcomes[key]
	obs := ledger.TaskObservation{Now: p.clock(), Window: p.cfg.Executor.Timeout + p.cfg.Executor.Grace}
	if !known {
		rc, err := p.recoverTask(ctx, e, at)
		if err != nil {
			return progressed, false, err
		}
		obs.Running, obs.Unknown = rc.Running, !rc.Known
	} else if out.Err != nil {
		obs.AgentErr, obs.Environment, obs.Log = out.Err.Error(), agent.IsEnvironment(out.Err), out.Log
	}
	if obs.Running == 0 {
		delete(p.outcomes, key)
		p.moved(repo, at.Branch)
		var err error
		if obs.Commits, obs.Touched, err = p.taskReturn(ctx, repo, at.Branch, t.SHA); err != nil {
			return progressed, false, err
		}
		if pt := planTask(p.repo.PlanFor(e.specPath), t.ID); pt != nil {
			obs.Files = pt.Files
		}
	}
	d, err := ledger.SettleTask(e.l, t.ID, obs)
	if err != nil {
		return progressed, false, err
	}
	switch d.Kind {
	case ledger.TaskWait:
		return waitFor("%s", d.Why), false, nil
	case ledger.TaskWithdraw:
		// The agent could not run where it is: the machine's problem, not
		// the task's; start no more agents this pass (envfail.go), as for
		// a row.
		p.holdAgents(out.Err, fmt.Sprintf("the agent of task %s for %s (log %s)", t.ID, e.specPath, out.Log))
	}
	n, c := d.Ledger, d.Commit
	if d.Admitted != "" {
		applied, why, err := p.applyTask(ctx, e, tr, t, at.Branch, d.Admitted)
		if err != nil {
			return progressed, false, err
		}
		if why != "" {
			n, c, err = ledger.RecordTask(e.l, t.ID, ledger.TaskFailed, "", why)
		} else {
			n, c, err = ledger.RecordTask(e.l, t.ID, ledger.TaskDone, applied, "")
		}
		if err != nil {
			return progressed, false, err
		}
	}
	return progressed, true, p.apply(e, n, c)
}

// taskReturn reads the commits a task's branch holds on top of the head
// the task started from, and the paths they change; none when the branch
// does not exist or no longer contains that head.
func (p *passState) taskReturn(ctx context.Context, repo, branch, from string) ([]ledger.Return, []string, error) {
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil || !ok || head == from {
		return nil, nil, err
	}
	cmp, err := p.GitHub.Compare(ctx, repo, from, head)
	if err != nil {
		return nil, nil, err
	}
	if cmp.Status != githubapi.CompareAhead {
		return nil, nil, nil
	}
	var commits []ledger.Return
	for _, c := range cmp.Commits {
		commits = append(commits, ledger.Return{SHA: c.SHA, Subject: c.Subject, Body: c.Body})
	}
	return commits, cmp.Paths, nil
}

// applyTask puts task t's admitted commit on the work branch and returns
// the work branch's commit that carries it: the one already there when a
// pass that applied it died before recording it, else a cherry-pick onto
// the head. why is set, and nothing applied, when the commit conflicts
// with what the branch changed since the task started.
func (p *passState) applyTask(ctx context.Context, e *entry, tr Executor, t ledger.Task, from, commit string) (applied, why string, err error) {
	repo, _ := p.member(e, specs.HomeMember)
	branch := p.branch(e)
	// Read now, not from the pass's snapshot: a task applied before, or
	// a person, may have moved it.
	p.moved(repo, branch)
	head, _, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil {
		return "", "", err
	}
	if head != t.SHA {
		cmp, err := p.GitHub.Compare(ctx, repo, t.SHA, head)
		if err != nil {
			return "", "", err
		}
		tuple := "task: " + ledger.TaskTuple(t)
		for _, c := range cmp.Commits {
			if first, _, _ := strings.Cut(strings.TrimLeft(c.Body, "\n"), "\n"); strings.TrimSpace(first) == tuple {
				return c.SHA, "", nil
			}
		}
	}
	in := agent.ApplyInput{Repo: repo, Branch: branch, Head: head, From: from, Commit: commit}
	if p.CloneURL != nil {
		in.CloneURL = p.CloneURL(repo)
	}
	applied, err = tr.ApplyCommit(ctx, in)
	p.moved(repo, branch)
	var conflict *agent.ApplyConflict
	if errors.As(err, &conflict) {
		return "", fmt.Sprintf("the return does not apply to %s: %v", branch, conflict), nil
	}
	if err != nil {
		return "", "", err
	}
	return applied, "", p.crash("task:applied")
}

// planTask is the plan's task with ledger id id, or nil.
func planTask(plan *specs.Plan, id string) *specs.Task {
	if plan == nil {
		return nil
	}
	for _, t := range plan.Tasks() {
		if ledger.PlanTaskID(t) == id {
			return t
		}
	}
	return nil
}
