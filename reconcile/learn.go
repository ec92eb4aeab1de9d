package reconcile

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/redact"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/lessons"
	"github.com/gallivant/gallivant/specs"
)

// The learn task (docs/learning.md "The learn task"): when an entry is
// done and gallivant.yaml has learning:, the feedback its `loop: done`
// commit collected goes to an agent, whose return — one commit on the
// control repository's gallivant/lessons-<owner>-<name> branch, touching
// only the lessons file — is admitted (gatekeep.AdmitLessons) and opened
// as a pull request on the control repository. A person's merge is the
// approval; closing it declines the candidates for good. The decision on
// each step is gatekeep.DecideLearn; this file gathers its facts and
// applies it, each GitHub write before the transition that records it.
// Configuration is read only from the control branch (the pass's), never
// from the lessons branch or the proposal's head.

// learnControlRepo is the control repository on GitHub the lessons pull
// requests open on: learning.control_repo, else the one the control URL
// names; "" when neither is a GitHub repository.
func (p *passState) learnControlRepo() string {
	if p.cfg.Learning != nil && p.cfg.Learning.ControlRepo != "" {
		return p.cfg.Learning.ControlRepo
	}
	if specs.ValidRepo(p.ControlRepo) && !strings.HasPrefix(p.ControlRepo, "local/") {
		return p.ControlRepo
	}
	return ""
}

// learnKey names a learn task's executor outcome.
func learnKey(e *entry) string { return e.key() + "|learn" }

// doneFeedback is what the entry's `loop: done` commit collected: the
// quoted feedback section of its body and its Gallivant-Feedback
// trailers.
type doneFeedback struct {
	collected string
	refs      []gatekeep.FeedbackRef
}

// feedbackOf reads the newest `loop: done <pr>` commit of the entry's
// ledger. Trailers that do not parse are left out, so a forged line never
// reaches a brief.
func (p *passState) feedbackOf(ctx context.Context, e *entry, pr gatekeep.PR) (doneFeedback, error) {
	msg, _, err := p.newestCommit(ctx, e, ledger.Subject{Kind: ledger.KindDone, PR: pr.Ref()}.String())
	if err != nil || msg == "" {
		return doneFeedback{}, err
	}
	return feedbackIn(msg), nil
}

// feedbackIn is what a `loop: done` commit message collected.
func feedbackIn(msg string) doneFeedback {
	var out doneFeedback
	for _, t := range ledger.ParseTrailers(msg) {
		if t.Key != gatekeep.TrailerFeedback {
			continue
		}
		if f, err := gatekeep.ParseFeedbackTrailer(t.Value); err == nil {
			out.refs = append(out.refs, f)
		}
	}
	out.collected = quotedLines(msg)
	return out
}

// quotedLines are the lines of a gallivant commit message that quote data
// (`> `), with the blank lines between them: the feedback of a `loop:
// done`, the refusal of a `loop: refuse lessons`.
func quotedLines(msg string) string {
	var quoted []string
	for _, ln := range strings.Split(msg, "\n") {
		if ln == ">" || strings.HasPrefix(ln, "> ") {
			quoted = append(quoted, ln)
		} else if len(quoted) > 0 && ln == "" {
			quoted = append(quoted, ln)
		}
	}
	return strings.TrimSpace(strings.Join(quoted, "\n"))
}

// newestCommit is the message and commit of the newest commit of the
// entry's ledger with the given subject; "" when there is none.
func (p *passState) newestCommit(ctx context.Context, e *entry, subject string) (msg, sha string, err error) {
	log, err := p.Store.Log(ctx, e.ledgerPath, 0)
	if err != nil {
		return "", "", fmt.Errorf("read the history of %s: %w", e.ledgerPath, err)
	}
	for _, le := range log {
		if le.Subject == subject {
			return le.Message, le.SHA, nil
		}
	}
	return "", "", nil
}

// sameRepoLedgers are the ledgers of every entry whose pull request is in
// repo, e's own excepted, by spec path: for a coordinated entry, the view
// of each member whose pull request is there (its learn task is the
// member's), named `<spec> (leg <member>)`.
func (p *passState) sameRepoLedgers(e *entry, repo string) map[string]*ledger.Ledger {
	out := map[string]*ledger.Ledger{}
	for sp, l := range p.repo.Ledgers {
		if sp == e.specPath || l == nil || l.Delivery == nil {
			continue
		}
		if strings.EqualFold(l.Delivery.PR.Repo, repo) {
			out[sp] = l
		}
		for m, ps := range l.Delivery.PerMember {
			if ps != nil && strings.EqualFold(ps.PR.Repo, repo) {
				out[fmt.Sprintf("%s (leg %s)", sp, m)] = l.LegView(m)
			}
		}
	}
	return out
}

// learnFacts gathers what gatekeep.DecideLearn reads of e.
func (p *passState) learnFacts(ctx context.Context, e *entry, pr gatekeep.PR) (gatekeep.LearnFacts, doneFeedback, error) {
	lr := e.l.Delivery.Learn
	f := gatekeep.LearnFacts{Enabled: p.cfg.Learns(pr.Repo), ControlRepo: p.learnControlRepo(), Phase: e.l.Phase(), Learn: lr,
		Local: p.Executor.Placement() == agent.Local, Draining: p.r.draining.Load()}
	var fb doneFeedback
	switch lr.State {
	case "", ledger.LearnRefused:
		if !f.Enabled || e.l.Delivery.Round == 0 || lr.Final() {
			// Without a round there is no feedback to learn from, and
			// nothing to read.
			return f, fb, nil
		}
		var err error
		if fb, err = p.feedbackOf(ctx, e, pr); err != nil {
			return f, fb, err
		}
		f.Feedback = len(fb.refs)
		f.OverBudget, _ = ledger.OverBudget(e.l, e.spec)
		for sp, l := range p.sameRepoLedgers(e, pr.Repo) {
			if gatekeep.Busy(l.Delivery.Learn.State) && (f.Busy == "" || sp < f.Busy) {
				f.Busy = sp
			}
		}
	case ledger.LearnDispatched:
		_, f.RanHere = p.outcomes[learnKey(e)]
		f.Overdue = !p.inFlight(lr.At)
		if f.RanHere || f.ControlRepo == "" {
			break
		}
		// The task's agent may have outlived a reconciler killed during
		// it, or finished with it: this cache's run record finds it and
		// pushes its commit to the lessons branch; an intent proves the
		// agent never started.
		rc, err := p.recoverTask(ctx, e, p.learnTask(e, pr, f.ControlRepo, lr.At))
		if err != nil {
			return f, fb, err
		}
		switch {
		case rc.Running > 0:
			f.Running = rc.Running
		case rc.Known && (len(rc.Controls) > 0 || rc.Outcome.Commits == 0):
			// An intent, or a run that ended with its reconciler and
			// committed nothing: no answer, so the task runs again.
			f.Unanswered = true
			if fb, err = p.feedbackOf(ctx, e, pr); err != nil {
				return f, fb, err
			}
			f.Feedback = len(fb.refs)
		case rc.Known:
			p.outcomes[learnKey(e)] = rc.Outcome
			f.RanHere = true
		default:
			// A run this cache settled but whose reconciler died before
			// admitting it (or another cache's) pushed its commit: the
			// lessons branch moved past the dispatch.
			if f.Arrived, err = p.learnReturnArrived(ctx, e, pr, f.ControlRepo); err != nil {
				return f, fb, err
			}
		}
	case ledger.LearnProposed:
		// The proposal is read where it was opened, whatever the
		// configuration says now.
		live, err := p.GitHub.GetPullRequest(ctx, lr.PR.Repo, lr.PR.Number)
		if err != nil {
			return f, fb, err
		}
		switch {
		case live.Merged:
			f.Proposal = gatekeep.ProposalMerged
		case live.State == gatekeep.PRClosed:
			f.Proposal = gatekeep.ProposalDeclined
		default:
			f.Proposal = gatekeep.ProposalOpen
		}
	}
	return f, fb, nil
}

// learn is a done entry's learn step: a single-repository entry with a
// merged pull request, or one member of a coordinated entry whose pull
// request is merged (legStep), learning for that member's repository from
// the rounds of its own pull request.
func (p *passState) learn(ctx context.Context, e *entry) (stepResult, error) {
	pr, ok := prOf(e.l)
	if !ok || (e.spec.Coordinated() && e.leg == nil) {
		return finished, nil
	}
	f, fb, err := p.learnFacts(ctx, e, pr)
	if err != nil {
		return progressed, err
	}
	a := gatekeep.DecideLearn(f)
	switch a.Step {
	case gatekeep.LearnStepNothing:
		if a.Why != "" && f.Enabled && f.Feedback > 0 {
			p.noteOnce(e.specPath, false, "%s", a.Why)
		}
		return finished, nil
	case gatekeep.LearnStepHeld, gatekeep.LearnStepWait, gatekeep.LearnStepWatch:
		return waitFor("%s", a.Why), nil
	case gatekeep.LearnStepDispatch, gatekeep.LearnStepRedispatch:
		return p.dispatchLearn(ctx, e, pr, f.ControlRepo, fb)
	case gatekeep.LearnStepAdmit:
		return p.admitLearn(ctx, e, pr, f.ControlRepo)
	case gatekeep.LearnStepMerged:
		n, c := gatekeep.LessonsMerged(e.l, prFromRef(e.l.Delivery.Learn.PR))
		return finished, p.apply(e, n, c)
	case gatekeep.LearnStepDeclined:
		n, c := gatekeep.LessonsDeclined(e.l, prFromRef(e.l.Delivery.Learn.PR))
		return finished, p.apply(e, n, c)
	}
	return finished, fmt.Errorf("unknown learn step %q", a.Step)
}

func prFromRef(r ledger.PullRef) gatekeep.PR { return gatekeep.PR{Repo: r.Repo, Number: r.Number} }

// dispatchLearn writes the learn task ahead, pushes it, and runs it: a
// lessons branch an earlier, finished task left is deleted first, so the
// task starts from the control commit that records its dispatch.
func (p *passState) dispatchLearn(ctx context.Context, e *entry, pr gatekeep.PR, control string, fb doneFeedback) (stepResult, error) {
	if p.DryRun {
		return waitFor("would dispatch the learn task of %s", pr), nil
	}
	branch := gatekeep.LessonsBranch(pr.Repo)
	p.reread(control, branch)
	if _, ok, err := p.GitHub.BranchHead(ctx, control, branch); err != nil {
		return progressed, err
	} else if ok {
		if err := p.GitHub.DeleteBranch(ctx, control, branch); err != nil {
			return progressed, err
		}
		p.moved(control, branch)
	}
	file := lessons.PathFor(pr.Repo)
	current, has, err := p.Store.ReadFile(ctx, p.rep.Control, file)
	if err != nil {
		return progressed, fmt.Errorf("read %s: %w", file, err)
	}
	n, c := gatekeep.LearnDispatched(e.l, pr, p.clock())
	if err := p.apply(e, n, c); err != nil {
		return progressed, err
	}
	// The dispatch's commit is the pass's newest, and the task's start:
	// a push that loses its race fails, it never moves the tip.
	base := p.Store.Tip()
	refused := ""
	if e.l.Delivery.Learn.Attempts() > 1 {
		msg, _, err := p.newestCommit(ctx, e, ledger.Subject{Kind: ledger.KindRefuseLessons, PR: pr.Ref()}.String())
		if err != nil {
			return progressed, err
		}
		refused = quotedLines(msg)
	}
	brief := gatekeep.LearnBrief(gatekeep.LearnBriefInput{Spec: e.specPath, Ledger: e.ledgerPath, PR: pr, Repo: pr.Repo, ControlRepo: control, Branch: branch, Base: base,
		Collected: fb.collected, Feedback: fb.refs, Current: current, HasCurrent: has, Refused: refused})
	task := p.learnTask(e, pr, control, n.Delivery.Learn.At)
	task.Base, task.Brief, task.DefaultBranch, task.Control = base, brief, p.cfg.Control.Branch, base
	if p.CloneURL != nil {
		task.CloneURL = p.CloneURL(control)
	}
	// Write-ahead with an intent, as a row's dispatch: a reconciler
	// killed between the push and the agent's start leaves the proof that
	// the agent never ran, and the next pass dispatches again at once.
	if err := p.pushIntended(ctx, task); err != nil {
		return progressed, err
	}
	if err := p.crash("executor:before"); err != nil {
		p.abandon(task)
		return progressed, err
	}
	out, err := p.Executor.Run(ctx, task)
	p.moved(control, branch)
	if err != nil {
		return progressed, err
	}
	p.outcomes[learnKey(e)] = out
	if out.Err != nil {
		p.Log.Warn("learn task failed", "spec", e.specPath, "error", out.Err.Error(), "log", out.Log)
	}
	return progressed, p.crash("executor:after")
}

// learnReturnArrived reports whether the lessons branch moved past the
// control commit of e's newest learn dispatch: an executor pushes a
// return there only once its agent is done.
func (p *passState) learnReturnArrived(ctx context.Context, e *entry, pr gatekeep.PR, control string) (bool, error) {
	_, base, err := p.newestCommit(ctx, e, ledger.Subject{Kind: ledger.KindLearn, PR: pr.Ref()}.String())
	if err != nil || base == "" {
		return false, err
	}
	branch := gatekeep.LessonsBranch(pr.Repo)
	p.reread(control, branch)
	head, ok, err := p.GitHub.BranchHead(ctx, control, branch)
	if err != nil {
		return false, err
	}
	return ok && head != base, nil
}

// learnTask is the learn task of e dispatched at at, as its run record
// and intent in this cache name it: a checkout of the control repository
// on the repository's lessons branch, run by the spec's harness: when it
// names one, as the entry's rows and rounds are.
func (p *passState) learnTask(e *entry, pr gatekeep.PR, control string, at time.Time) agent.Task {
	return agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: control, Branch: gatekeep.LessonsBranch(pr.Repo),
		DispatchedAt: ledger.TimeText(at), Learn: true, Harness: e.spec.Harness}
}

// admitLearn reads the learn task's return on the lessons branch and
// admits it: nothing proposed, refused with why, or a pull request on the
// control repository (found again when a pass that opened it died before
// recording it).
func (p *passState) admitLearn(ctx context.Context, e *entry, pr gatekeep.PR, control string) (stepResult, error) {
	out, ranHere := p.outcomes[learnKey(e)]
	delete(p.outcomes, learnKey(e))
	if p.DryRun {
		return waitFor("would admit the learn task's return of %s", pr), nil
	}
	branch, file := gatekeep.LessonsBranch(pr.Repo), lessons.PathFor(pr.Repo)
	_, base, err := p.newestCommit(ctx, e, ledger.Subject{Kind: ledger.KindLearn, PR: pr.Ref()}.String())
	if err != nil {
		return progressed, err
	}
	if base == "" {
		n, c := gatekeep.LessonsRefused(e.l, pr, "the control history holds no `loop: learn` commit to start the return from")
		return progressed, p.apply(e, n, c)
	}
	ret := gatekeep.LessonsReturn{Repo: pr.Repo}
	var spend specs.Amount
	// record applies a transition that settles the run, adding what the
	// run reported spending to the entry's spent: total (docs/ledger.md
	// "Budgets").
	record := func(n *ledger.Ledger, c ledger.Commit) error {
		if len(ret.Commits) == 0 && ranHere {
			// No commit carries it: a preset's none reports it in
			// its usage.
			spend = out.Usage.Spend()
		}
		n.AddSpent(spend)
		return p.apply(e, n, c)
	}
	p.reread(control, branch)
	head, ok, err := p.GitHub.BranchHead(ctx, control, branch)
	if err != nil {
		return progressed, err
	}
	if ok && head != base {
		cmp, err := p.GitHub.Compare(ctx, control, base, head)
		if err != nil {
			return progressed, err
		}
		if cmp.Status != githubapi.CompareAhead {
			n, c := gatekeep.LessonsRefused(e.l, pr, fmt.Sprintf("the lessons branch %s no longer starts from %s, the control commit the task was dispatched at", branch, short(base)))
			return progressed, p.apply(e, n, c)
		}
		for _, cm := range cmp.Commits {
			ret.Commits = append(ret.Commits, cm.SHA)
			// What the run reported spending rides on its commits'
			// tokens:/cost: trailers, as a row's return's does.
			spend = spend.Add(ledger.ReturnSpend(cm.Body))
		}
		ret.Paths = cmp.Paths
		if len(cmp.Commits) == 1 && len(cmp.Paths) == 1 && cmp.Paths[0] == file {
			if ret.After, ret.HasAfter, err = p.GitHub.FileAt(ctx, control, file, head, lessons.MaxFileSize+gatekeep.LearnReturnLimit); err != nil {
				return progressed, err
			}
		}
	}
	if re, ok := agent.AsResultError(out.Err); ok && len(ret.Commits) == 0 && ranHere {
		// A preset's result that could not be completed into a return
		// is refused with its reason, which the next attempt's brief
		// quotes.
		n, c := gatekeep.LessonsRefused(e.l, pr, "the learn task's result could not be completed into a return: "+redact.URLs(re.Error()))
		return progressed, record(n, c)
	}
	if len(ret.Commits) == 0 && ranHere && out.Err != nil {
		n, c := gatekeep.NoLessons(e.l, pr, "the learn task's agent failed: "+redact.URLs(out.Err.Error()))
		return finished, record(n, c)
	}
	if ret.Before, _, err = p.Store.ReadFile(ctx, base, file); err != nil {
		return progressed, fmt.Errorf("read %s at %s: %w", file, short(base), err)
	}
	fb, err := p.feedbackOf(ctx, e, pr)
	if err != nil {
		return progressed, err
	}
	for _, f := range fb.refs {
		ret.Feedback = append(ret.Feedback, f.URL)
	}
	others := []*ledger.Ledger{e.l}
	for _, l := range p.sameRepoLedgers(e, pr.Repo) {
		others = append(others, l)
	}
	ret.Declined = gatekeep.DeclinedOf(others)
	v := gatekeep.AdmitLessons(ret)
	switch v.Outcome {
	case gatekeep.AdmitNone:
		why := v.Why
		if ranHere && out.Decision != "" && len(ret.Commits) == 0 {
			// A preset's none: its decision, quoted as data (bounded
			// and on one line by the executor).
			why += fmt.Sprintf("\nthe agent's decision, as it gave it: %q", out.Decision)
		}
		n, c := gatekeep.NoLessons(e.l, pr, why)
		return finished, record(n, c)
	case gatekeep.AdmitRefused:
		// A first attempt's refusal is dispatched again at once.
		n, c := gatekeep.LessonsRefused(e.l, pr, v.Why)
		return progressed, record(n, c)
	}
	proposal, err := p.openProposal(ctx, e, pr, control, branch, v.Candidates)
	if err != nil {
		return progressed, err
	}
	n, c := gatekeep.LessonsProposed(e.l, proposal, v.Candidates)
	return finished, record(n, c)
}

// openProposal opens the lessons pull request from branch into the
// control branch, or finds the one a pass that died before recording it
// opened. gallivant never merges it.
func (p *passState) openProposal(ctx context.Context, e *entry, pr gatekeep.PR, control, branch string, cands []gatekeep.LessonCandidate) (gatekeep.PR, error) {
	live, found, err := p.GitHub.FindPullRequest(ctx, control, branch, p.cfg.Control.Branch)
	if err != nil {
		return gatekeep.PR{}, err
	}
	if !found || live.State != gatekeep.PROpen {
		if err := p.crash("learn:propose"); err != nil {
			return gatekeep.PR{}, err
		}
		if live, err = p.GitHub.CreatePullRequest(ctx, control, branch, p.cfg.Control.Branch, gatekeep.ProposalTitle(pr.Repo, len(cands)),
			gatekeep.ProposalBody(pr.Repo, pr, e.specPath, cands)); err != nil {
			return gatekeep.PR{}, err
		}
	}
	return gatekeep.PR{Repo: control, Number: live.Number}, nil
}

// LearnTaskBrief rebuilds, from the control history at the store's head,
// the brief of the learn task spec sp's entry has dispatched — the
// document its agent was handed (gatekeep.LearnBrief): the feedback its
// `loop: done` commit collected, the lessons file at the `loop: learn`
// commit the task started from, and the refusal a second attempt quotes.
// controlRepo names the control repository when learning.control_repo
// does not. ok is false when no learn task of a single-repository entry
// is dispatched.
func LearnTaskBrief(ctx context.Context, st *store.Store, snap *Snapshot, sp, controlRepo string) (brief string, ok bool, err error) {
	l, spec := snap.Repo.Ledgers[sp], snap.Repo.Specs[sp]
	if l == nil || spec == nil || spec.Coordinated() || l.Delivery == nil || l.Delivery.Learn.State != ledger.LearnDispatched {
		return "", false, nil
	}
	pr, ok := prOf(l)
	if !ok {
		return "", false, nil
	}
	if snap.Config != nil && snap.Config.Learning != nil && snap.Config.Learning.ControlRepo != "" {
		controlRepo = snap.Config.Learning.ControlRepo
	}
	lp := snap.Repo.LedgerPaths[sp]
	log, err := st.Log(ctx, lp, 0)
	if err != nil {
		return "", false, fmt.Errorf("read the history of %s: %w", lp, err)
	}
	newest := func(k ledger.Kind) (string, string) {
		subject := ledger.Subject{Kind: k, PR: pr.Ref()}.String()
		for _, le := range log {
			if le.Subject == subject {
				return le.Message, le.SHA
			}
		}
		return "", ""
	}
	_, base := newest(ledger.KindLearn)
	if base == "" {
		return "", false, nil
	}
	done, _ := newest(ledger.KindDone)
	fb := feedbackIn(done)
	refused := ""
	if l.Delivery.Learn.Attempts() > 1 {
		msg, _ := newest(ledger.KindRefuseLessons)
		refused = quotedLines(msg)
	}
	file := lessons.PathFor(pr.Repo)
	current, has, err := st.ReadFile(ctx, base, file)
	if err != nil {
		return "", false, fmt.Errorf("read %s at %s: %w", file, short(base), err)
	}
	return gatekeep.LearnBrief(gatekeep.LearnBriefInput{Spec: sp, Ledger: lp, PR: pr, Repo: pr.Repo, ControlRepo: controlRepo, Branch: gatekeep.LessonsBranch(pr.Repo), Base: base,
		Collected: fb.collected, Feedback: fb.refs, Current: current, HasCurrent: has, Refused: refused}), true, nil
}
