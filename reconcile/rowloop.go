package reconcile

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// The row loop: seeding a ledger, dispatching a row to an agent with a
// write-ahead commit, running the executor, settling (admitting or
// repairing) what came back, and recovering runs a crash interrupted. The
// pull-request phases that follow are in delivery.go.

// seed creates the ledger of an approved spec.
func (p *passState) seed(ctx context.Context, e *entry) error {
	if ok, why := p.chainGate(ctx, e); !ok {
		p.note(e.specPath, false, "%s", why)
		return nil
	}
	if e.spec.Engine == specs.EngineWaves {
		switch plan := p.repo.PlanFor(e.specPath); {
		case plan == nil && e.spec.Format != specs.FormatGallivant:
			p.note(e.specPath, true, "a waves spec needs a plan (%s); it is not seeded", path.Join(path.Dir(e.specPath), "tasks.md"))
			return nil
		case plan == nil:
			p.note(e.specPath, true, "a waves spec needs a plan (%s, with **Spec:** `%s`); it is not seeded", p.cfg.PlanPath(e.specPath), e.specPath)
			return nil
		case p.repo.PlanErrors[e.specPath]:
			p.note(e.specPath, true, "the plan %s has errors (gallivant check); the waves spec is not seeded until it passes", plan.Path)
			return nil
		}
	}
	if _, taken := p.repo.Orphans[e.ledgerPath]; taken {
		p.note(e.specPath, true, "%s already holds another spec's ledger; rename one of the specs", e.ledgerPath)
		return nil
	}
	bases := map[string]string{}
	for _, m := range e.spec.Members() {
		repo, _ := e.spec.MemberRepo(m)
		sha, ok, err := p.GitHub.BranchHead(ctx, repo, e.spec.Base)
		if p.missingRepo(e, m, err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !ok {
			p.note(e.specPath, true, "base branch %s does not exist in %s; the spec is not seeded", e.spec.Base, repo)
			return nil
		}
		bases[m] = sha
	}
	in := ledger.SeedInput{Spec: e.spec, SpecCommit: p.rep.Control, Bases: bases, Allowance: p.cfg.Defaults.Allowance}
	if cp, ok := p.repo.ChainOf[e.specPath]; ok {
		in.Chain = ledger.ChainRef{Name: cp.Chain.Name(), K: cp.K, N: len(cp.Chain.Milestones)}
	}
	if !e.spec.PR.IsZero() {
		return p.seedAdopted(ctx, e, in)
	}
	if e.spec.Engine == specs.EngineWaves {
		// A waves spec's ledger lists its plan's tasks (docs/plans.md
		// "Wave execution"); an adopted pull request's is worked by rows.
		in.Plan = p.repo.PlanFor(e.specPath)
	}
	n, c := ledger.Seed(in)
	return p.apply(e, n, c)
}

// approvedSpec reads the spec as it was at the ledger's spec-commit.
func (p *passState) approvedSpec(e *entry) (*specs.Spec, error) {
	commit := e.l.Delivery.SpecCommit
	data, ok, err := p.Store.ReadFile(p.ctx, commit, e.specPath)
	if err != nil {
		return nil, fmt.Errorf("read the approved spec at %s: %w", short(commit), err)
	}
	if !ok {
		return nil, fmt.Errorf("the approved spec %s is not in control commit %s", e.specPath, short(commit))
	}
	sp, _, _ := specs.ParseSpecFile(specs.File{Path: e.specPath, Data: data}, p.cfg.SpecDefaults(e.specPath))
	return sp.WithSources(p.Store.SourceReader(p.ctx, commit))
}

// contractChanged stops the entry spec-changed when the spec's contract is
// no longer the approved one, at the points it would certify something.
func (p *passState) contractChanged(e *entry) (bool, error) {
	approved := e.l.Delivery.Contract
	if approved == "" || approved == e.spec.Contract().Fingerprint() {
		return false, nil
	}
	text := "the approved spec could not be read"
	if old, err := p.approvedSpec(e); err == nil {
		text = specs.DiffApproved(approved, old.Contract(), e.spec.Contract()).String()
	}
	n, c := ledger.Stop(e.l, ledger.StopSpecChanged, fmt.Sprintf("the contract of %s changed from %s to %s", e.specPath, approved, e.spec.Contract().Fingerprint()), 0)
	c.Text = text + "\n\n" + c.Text
	return true, p.apply(e, n, c)
}

// dispatch records a dispatch, pushes it (write-ahead), then runs the executor.
func (p *passState) dispatch(ctx context.Context, e *entry, a ledger.Action) (stepResult, error) {
	if why, over := ledger.OverBudget(e.l, e.spec); over {
		return stopped, p.stop(e, ledger.StopBudget, why)
	}
	if res, held, err := p.adoptHeld(ctx, e); held || err != nil {
		return res, err
	}
	repo, base := p.member(e, a.Member)
	branch := p.branch(e)
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	if err != nil {
		return progressed, err
	}
	if !ok {
		if !p.DryRun {
			if err := p.GitHub.CreateBranch(ctx, repo, branch, base); err != nil {
				return progressed, err
			}
		}
		head = base
	}
	n, c := ledger.Dispatch(e.l, a, head, p.clock())
	if err := p.withRowLessons(e, n, &c); err != nil {
		return progressed, err
	}
	if err := p.apply(e, n, c); err != nil {
		return progressed, err
	}
	if p.DryRun {
		return finished, nil
	}
	return progressed, p.runAt(ctx, e, head)
}

// run pushes the outstanding dispatch and hands it to the executor. If the
// push loses the race, the executor is not started.
func (p *passState) run(ctx context.Context, e *entry) error { return p.runAt(ctx, e, "") }

// runAt is run for a dispatch made from the work branch's head as this
// pass read it (head, "" when not read here): the executor may start its
// checkout there without fetching (agent.Task.Head). A rerun or a resumed
// dispatch passes no head; the branch may have moved since its dispatch.
func (p *passState) runAt(ctx context.Context, e *entry, head string) error {
	if p.DryRun {
		return nil
	}
	if p.Executor.Placement() == agent.Recorded {
		return nil
	}
	if _, held := p.agentsHeld(ctx, e); held {
		// A rerun or a resumed dispatch, committed while the agents'
		// environment fails: taken back before any agent starts.
		return p.withdrawUnavailable(e, p.env.held, "none: no agent started")
	}
	pd := *e.l.Pending
	repo, base := p.member(e, pd.Member)
	bl, err := p.rowLessons(e, e.l)
	if err != nil {
		return err
	}
	brief, err := ledger.Brief(ledger.BriefInput{Ledger: e.l, Spec: e.spec, LedgerPath: e.ledgerPath, Repo: repo, Branch: p.branch(e),
		Model: e.l.Delivery.Model, Plan: p.repo.PlanPathFor(e.specPath), Lessons: bl, ReplayOutput: p.replayOutput(e, pd.Target)})
	if err != nil {
		return err
	}
	task := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: p.branch(e), Base: base, Head: head, Pending: pd,
		Iteration: e.l.Iterations - 1, Brief: brief, Model: e.l.Delivery.Model, DefaultBranch: e.spec.Base, Harness: e.spec.Harness,
		DispatchedAt: ledger.TimeText(e.l.Delivery.DispatchedAt)}
	if left, ok := ledger.RemainingDollars(e.l, e.spec); ok {
		task.MaxBudgetMicros = max(left, 1)
	}
	if p.CloneURL != nil {
		task.CloneURL = p.CloneURL(repo)
	}
	if err := p.pushIntended(ctx, task); err != nil {
		return err
	}
	if err := p.crash("executor:before"); err != nil {
		p.abandon(task)
		return err
	}
	var out agent.Outcome
	ran := false
	aerr := p.runAgent(ctx, e, repo, func() { out, err = p.Executor.Run(ctx, task); ran = true })
	if ran {
		// The run may have pushed the work branch: later reads in this
		// pass ask GitHub rather than the pass's snapshot.
		p.moved(task.Repo, task.Branch)
	}
	if !ran {
		// The dispatch landed and no agent started: its intent stays, so
		// the next pass reruns it.
		p.abandon(task)
	}
	if err != nil || !ran {
		return errors.Join(err, aerr)
	}
	p.outcomes[outcomeKey(e.ledgerPath, pd)] = out
	if out.Kept != "" && !out.Unpushed {
		p.note(e.specPath, true, "an earlier run's unpushed commits were kept on %s", out.Kept)
	}
	switch {
	case out.Err != nil && out.Unpushed:
		// The agent finished; only its push failed.
		p.Log.Warn("pushing the run's commits failed", "spec", e.specPath, "error", out.Err.Error(), "kept", out.Kept)
	case out.Err != nil:
		p.Log.Warn("agent run failed", "spec", e.specPath, "error", out.Err.Error(), "log", out.Log)
	}
	if aerr != nil {
		return aerr
	}
	return p.crash("executor:after")
}

// settle observes the work branch after the pending SHA and settles the
// outstanding dispatch.
func (p *passState) settle(ctx context.Context, e *entry) (stepResult, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	branch := p.branch(e)
	run, err := p.runOf(ctx, e, pd)
	if err != nil {
		return progressed, err
	}
	if run.running > 0 {
		return waitFor("waiting for the return of %s: its agent (pid %d) outlived the reconciler that started it and is still running", describe(pd), run.running), nil
	}
	obs := p.observation(e, run)
	if obs.Orphaned || obs.RunOver {
		// A rerun or a stop is decided on what the branch holds now, not
		// on the pass's snapshot: another reconciler may have pushed the
		// return since the pass began.
		p.moved(repo, branch)
	}
	commits, boundary, err := p.returnOf(ctx, repo, branch, pd)
	if err != nil {
		return progressed, err
	}
	if boundary != "" {
		n, c := ledger.Stop(e.l, ledger.StopBoundary, boundary, pd.Target)
		return progressed, p.apply(e, n, c)
	}
	obs.Commits = commits
	out := run.out
	lost, isLost := agent.AsLost(out.Err)
	switch ledger.DecideRun(obs, ledger.RunEnd{Seen: run.ranHere, Unpushed: out.Unpushed, Lost: isLost, Failed: out.Err != nil, Environment: agent.IsEnvironment(out.Err)}) {
	case ledger.RunUnpushed:
		return p.unpushed(e, pd, out), nil
	case ledger.RunLost:
		// The machine lost the run's disk or checkout, not the entry's
		// failure: rerun like an orphaned run, or wait (lost.go).
		if res, wait := p.lostRun(e, lost, out.Log); wait {
			return res, nil
		}
		obs.RunOver, obs.Orphaned = true, true
	case ledger.RunUnavailable:
		// Not the entry's failure: one problem of the pass, and the
		// target is due again (envfail.go).
		return progressed, p.withdrawUnavailable(e, out.Err, out.Log)
	case ledger.RunHarnessError:
		n, c := ledger.Stop(e.l, ledger.StopHarnessError, fmt.Sprintf("iteration %d: %v (log %s)", e.l.Iterations-1, out.Err, out.Log), pd.Target)
		return progressed, p.apply(e, n, c)
	}
	if !isLost {
		lost = nil
	}
	return p.settleObserved(ctx, e, pd, obs, lost)
}

// dispatchRun is what the pass knows of the agent's run of the outstanding
// dispatch.
type dispatchRun struct {
	out agent.Outcome
	// ranHere: the outcome is known, observed or recovered.
	ranHere bool
	// observed: this process ran the agent and saw it end; recovered:
	// this cache's run record proves the agent of this dispatch has ended.
	observed, recovered bool
	// running is the pid of the dispatch's agent still at work, started
	// by a reconciler that is gone.
	running int
}

// runOf is the run of the outstanding dispatch: its outcome when this
// process ran it, else what this cache's run record recovers.
func (p *passState) runOf(ctx context.Context, e *entry, pd ledger.Pending) (dispatchRun, error) {
	key := outcomeKey(e.ledgerPath, pd)
	out, ranHere := p.outcomes[key]
	delete(p.outcomes, key)
	run := dispatchRun{out: out, ranHere: ranHere, observed: ranHere}
	if ranHere {
		p.consume(key, e.ledgerPath, out) // replan.go
		return run, nil
	}
	rc, err := p.recoverRun(ctx, e)
	if err != nil {
		return run, err
	}
	run.running = rc.Running
	if rc.Running == 0 && rc.Known {
		run.out, run.ranHere, run.recovered = rc.Outcome, true, true
		delete(p.outcomes, key)
	}
	return run, nil
}

// observation is the settling observation of run, before the branch is
// read.
func (p *passState) observation(e *entry, run dispatchRun) ledger.Observation {
	out := run.out
	obs := ledger.Observation{RunOver: run.ranHere && out.Finished, Dirty: run.ranHere && out.Dirty, DirtyWhat: dirtyWhat(out), Now: p.clock(),
		// This cache's run record proves the agent ended without a commit,
		// and no process saw it end: it was killed with its reconciler. A
		// dispatch the cache knows nothing of may have an agent elsewhere.
		Orphaned: !run.observed && run.recovered && out.Commits == 0}
	if dt := e.l.Delivery.DispatchedAt; !dt.IsZero() && !p.inFlight(dt) {
		obs.RunOver = true
	}
	return obs
}

// returnOf reads the work branch's commits after the pending SHA, or the
// boundary it crossed: the branch is gone, or was rewritten so that it no
// longer contains the pending SHA.
func (p *passState) returnOf(ctx context.Context, repo, branch string, pd ledger.Pending) (commits []ledger.Return, boundary string, err error) {
	head, ok, err := p.GitHub.BranchHead(ctx, repo, branch)
	switch {
	case err != nil:
		return nil, "", err
	case !ok:
		return nil, fmt.Sprintf("the work branch %s no longer exists in %s", branch, repo), nil
	case head == pd.SHA:
		return nil, "", nil
	}
	cmp, err := p.GitHub.Compare(ctx, repo, pd.SHA, head)
	if err != nil {
		return nil, "", err
	}
	if cmp.Status != githubapi.CompareAhead {
		return nil, fmt.Sprintf("the work branch %s was rewritten: it no longer contains %s", branch, short(pd.SHA)), nil
	}
	for _, c := range cmp.Commits {
		commits = append(commits, ledger.Return{SHA: c.SHA, Subject: c.Subject, Body: c.Body})
	}
	if len(commits) == 1 {
		commits[0].ChangedFiles = cmp.Files
	}
	return commits, "", nil
}

// settleObserved settles the dispatch on obs: it waits while nothing
// changed, and a rerun is applied write-ahead and run at once. lost is the
// loss that made the run orphaned, when it was one.
func (p *passState) settleObserved(ctx context.Context, e *entry, pd ledger.Pending, obs ledger.Observation, lost *agent.LostError) (stepResult, error) {
	n, c, changed, err := ledger.Settle(e.l, obs)
	if err != nil {
		return progressed, err
	}
	if !changed {
		return waitFor("waiting for the return of %s (dispatched %s)", describe(pd), ledger.TimeText(e.l.Delivery.DispatchedAt)), nil
	}
	if n.Delivery.Reruns <= e.l.Delivery.Reruns {
		return progressed, p.apply(e, n, c)
	}
	// Settle reran the dispatch: the rerun is write-ahead like any
	// dispatch, so two reconcilers never both run it.
	if lost != nil && obs.Orphaned {
		c = lostRerun(c, lost)
	}
	if err := p.withRowLessons(e, n, &c); err != nil {
		return progressed, err
	}
	if err := p.apply(e, n, c); err != nil {
		return progressed, err
	}
	return progressed, p.run(ctx, e)
}

// recoverRun asks the executor about the outstanding dispatch of e, which
// this pass did not run: an agent whose reconciler died may still be at
// work, or may have finished with its return unpushed. A finished run's
// outcome is remembered for settling, its return pushed.
func (p *passState) recoverRun(ctx context.Context, e *entry) (agent.Recovery, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	rc, err := p.recoverTask(ctx, e, agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: p.branch(e), Pending: pd, Iteration: e.l.Iterations - 1,
		DispatchedAt: ledger.TimeText(e.l.Delivery.DispatchedAt)})
	if err == nil && rc.Known && rc.Running == 0 {
		p.outcomes[outcomeKey(e.ledgerPath, pd)] = rc.Outcome
	}
	return rc, err
}

// recoverTask asks the executor about task t, which a reconciler that is
// gone started on this cache: its agent may still run, or may have ended
// with its commits unpushed, which are pushed now (never forcing).
func (p *passState) recoverTask(ctx context.Context, e *entry, t agent.Task) (agent.Recovery, error) {
	if p.DryRun || p.Executor.Placement() != agent.Local {
		// Only a local executor has runs on this machine to recover (its
		// Recover may push, so the branch is read afresh after it); the
		// others know nothing, and asking would only cost the branch's
		// snapshot.
		return agent.Recovery{}, nil
	}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(t.Repo)
	}
	rc, err := p.Executor.Recover(ctx, t)
	p.moved(t.Repo, t.Branch)
	if err != nil {
		return agent.Recovery{}, err
	}
	if rc.Known && len(rc.Controls) > 0 && !slices.ContainsFunc(rc.Controls, func(sha string) bool { return p.Store.Landed(ctx, sha) }) {
		// Intents whose dispatches never landed: the dispatch the ledger
		// holds is another reconciler's, made in the same second.
		p.Log.Info("ignoring intents of dispatches that never landed", "spec", e.specPath, "intents", len(rc.Controls))
		return agent.Recovery{}, nil
	}
	if rc.Known && rc.Running == 0 {
		// A reconciler that crashed, or a pass whose push failed, left
		// the run's record for this one.
		p.Log.Info("found a run an earlier pass left unsettled", "spec", e.specPath, "task", t.What(), "commits", rc.Outcome.Commits)
	}
	if rc.Kept != "" && !rc.Outcome.Unpushed {
		p.note(e.specPath, true, "the commits of a crashed reconciler's agent could not be pushed; they are kept on %s", rc.Kept)
	}
	return rc, nil
}

// returnArrived reports whether the work branch moved past the outstanding
// dispatch's pending SHA: some agent answered it, and settling decides what
// the answer means.
func (p *passState) returnArrived(ctx context.Context, e *entry) (bool, error) {
	pd := *e.l.Pending
	repo, _ := p.member(e, pd.Member)
	// Read now, not from the pass's snapshot: a rerun may follow.
	p.reread(repo, p.branch(e))
	head, ok, err := p.GitHub.BranchHead(ctx, repo, p.branch(e))
	if err != nil {
		return false, err
	}
	return ok && head != pd.SHA, nil
}

// outcomeKey names one dispatch: an outcome only ever settles the dispatch
// it came from, never a later one another reconciler started.
func outcomeKey(ledgerPath string, pd ledger.Pending) string { return ledgerPath + "|" + pd.String() }

func describe(pd ledger.Pending) string {
	if pd.Target == ledger.SeedTarget {
		return "the seed of " + pd.Member
	}
	return fmt.Sprintf("row %d on %s", pd.Target, pd.Member)
}
