package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
)

// verifies reports whether gallivant itself verifies this entry: its
// executor holds a checkout (agent.Local) and executor.verify is on.
func (p *passState) verifies(e *entry) bool {
	return p.Executor.Placement() == agent.Local && p.cfg.Executor.Verify && !(e.spec.Coordinated() && e.leg == nil)
}

// verifiedElsewhere is the note of an entry whose spec has Verify commands
// its executor cannot run (it holds no checkout): the pull request opens
// without them, and what proves its head is executor.proof_check
// (docs/verify.md "Proof without a checkout"). ok is false when the entry
// is verified here, has no Verify commands, or executor.verify is off.
func (p *passState) verifiedElsewhere(e *entry) (note string, ok bool) {
	if p.Executor.Placement() == agent.Local || !p.cfg.Executor.Verify || !hasVerify(e) || (e.spec.Coordinated() && e.leg == nil) {
		return "", false
	}
	return fmt.Sprintf("the verification `%s` is not run by gallivant: executor.kind %s holds no checkout to run it in; CI's executor.proof_check is what proves the head (docs/verify.md)",
		e.l.Verification, p.cfg.Executor.Kind), true
}

// proves reports whether the entry's done rows are each replayed on the
// head before the pull request opens and before it is labelled ready, and
// the gate requires it (evidence-unproven): where gallivant verifies — a
// single-repository spec, or each leg of a coordinated one on its own head
// (docs/delivery.md "Evidence replay").
func (p *passState) proves(e *entry) bool { return p.verifies(e) }

// hasVerify reports whether the entry has Verify commands of its own.
func hasVerify(e *entry) bool { return gatekeep.HasVerify(e.l) }

// verify applies exit verification and evidence replay before the pull
// request opens (L-104, L-105): the head is verified once and each done
// row's evidence command replayed on it. A failed replay is a miss against
// its rows (repairReplays); a failed Verify command dispatches one repair,
// and a failure after it stops verify-failed. ok is true when the pull
// request may open.
func (p *passState) verify(ctx context.Context, e *entry, repo, branch, head string) (res stepResult, ok bool, err error) {
	if !p.verifies(e) {
		if note, ok := p.verifiedElsewhere(e); ok {
			p.note(e.specPath, false, "%s", note)
		}
		return finished, true, nil
	}
	var plan gatekeep.ReplayPlan
	if p.proves(e) {
		if plan, err = p.replayPlan(ctx, e, repo, head); err != nil {
			return progressed, false, err
		}
	}
	d := gatekeep.DecideVerify(e.l, head, plan)
	if d.Step == gatekeep.VerifyNothing {
		return finished, true, nil
	}
	if p.DryRun {
		return waitFor("would run the verification `%s` and replay %s on %s", e.l.Verification, countOf(len(plan.Checks), "evidence command"), short(head)), false, nil
	}
	if d.Step == gatekeep.VerifyRepair || d.Step == gatekeep.VerifyRepairFailed {
		// A row's evidence failed when replayed: a miss against the row.
		if res, repaired, err := p.repairReplays(e, head); repaired || err != nil {
			return res, false, err
		}
	}
	switch d.Step {
	case gatekeep.VerifyRepairFailed:
		res, err := p.verifyStillFails(e, head, d.Last)
		return res, false, err
	case gatekeep.VerifyRepair:
		return p.repairVerification(ctx, e, repo, branch, head, d.Last)
	}
	return p.runVerification(ctx, e, repo, branch, head, d.Commands, plan)
}

// verifyStillFails waits for the verification repair of head while it is
// in flight, and stops the entry verify-failed once the repair answered
// nothing: the same head still fails.
func (p *passState) verifyStillFails(e *entry, head string, last gatekeep.Verification) (stepResult, error) {
	if dt := e.l.Delivery.DispatchedAt; !dt.IsZero() {
		if _, ran := p.outcomes[verifyKey(e.key())]; !ran && p.inFlight(dt) {
			return waitFor("waiting for the verification repair of %s (dispatched %s)", e.specPath, dt.Format(time.RFC3339)), nil
		}
	}
	return stopped, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification still fails on %s after one repair: `%s`%s (see the loop: verify commit for its output)", short(head), last.Command, p.whose(e, last.Command)))
}

// runVerification runs the Verify commands (when withCommands) and replays
// the plan's checks on head in one fresh checkout, and records the result
// with the plan's carried proofs. With nothing to run, it records the
// carried proofs alone.
func (p *passState) runVerification(ctx context.Context, e *entry, repo, branch, head string, withCommands bool, plan gatekeep.ReplayPlan) (stepResult, bool, error) {
	checks := plan.Checks
	// Head lets the executor check out the head it verifies from its
	// mirror, where the run that returned it pushed it, without a fetch.
	t := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: e.spec.Base, Head: head, DefaultBranch: e.spec.Base, Iteration: e.l.Iterations}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	var commands, replay []string
	if withCommands && hasVerify(e) {
		commands = p.verifyCommands(e)
	}
	for _, c := range checks {
		replay = append(replay, c.Command)
	}
	if len(commands) == 0 && len(replay) == 0 {
		n, c := gatekeep.Verified(e.l, head, true, "", "", plan.Carried)
		return progressed, false, p.apply(e, n, c)
	}
	r, err := p.Executor.Verify(ctx, t, commands, replay)
	if err != nil {
		return progressed, false, err
	}
	if r.Unsupported {
		// An executor that places its agents here but cannot verify: the
		// head is not let through unverified.
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("executor.kind %s cannot run the verification on %s: its executor verifies nothing (turn executor.verify off to deliver without it)", p.cfg.Executor.Kind, short(head)))
	}
	if r.Head != head {
		// The branch moved while the checkout was made; verify again.
		return progressed, false, nil
	}
	if r.OverBudget {
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, p.overBudget(e, head, r))
	}
	n, c := gatekeep.Verified(e.l, head, r.Passed, r.Command, r.Tail, append(proofsOf(head, checks, r.Runs), plan.Carried...))
	if p.tails == nil {
		p.tails = map[string]string{}
	}
	p.tails[e.key()] = r.Tail
	return progressed, false, p.apply(e, n, c)
}

// proofsOf turns the runs of the replayed commands into one proof a row.
func proofsOf(head string, checks []gatekeep.ReplayCheck, runs []agent.Replay) []ledger.Proof {
	var out []ledger.Proof
	for i, r := range runs {
		if i >= len(checks) || checks[i].Command != r.Command {
			break
		}
		for _, row := range checks[i].Rows {
			out = append(out, ledger.Proof{Row: row, Head: head, Exit: r.Exit, Tests: r.Selection.String(),
				Duration: r.Duration.Round(time.Millisecond), Command: r.Command})
		}
	}
	return out
}

// whose names the rows a failing command is the evidence of, for a stop.
func (p *passState) whose(e *entry, cmd string) string {
	if rows := gatekeep.RowsOf(e.l, cmd); rows != "" {
		return ", the evidence of " + rows
	}
	return ""
}

// prove holds the ready label to the completion gate's evidence-unproven
// rule: every done row proved on head. The rows not proved there are
// replayed first (loop: verify); a replay that fails is answered by a fix
// round for that head (gatekeep.AnswerReplay), and stops verify-failed,
// naming the rows and the command, when a round for it was already
// dispatched or a Verify command failed. With the workflow executor the
// head is proved through the workflow instead (proveByWorkflow). ok is
// true when the label may be written.
func (p *passState) prove(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (stepResult, bool, error) {
	if p.provesByWorkflow(e) {
		return p.proveByWorkflow(ctx, e, pr, d)
	}
	repo, head := p.pushRepo(e), d.HeadSHA
	if !p.proves(e) || head == "" {
		return finished, true, nil
	}
	if gatekeep.ProofProblem(e.l, head) == nil {
		return finished, true, nil
	}
	plan, err := p.replayPlan(ctx, e, repo, head)
	if err != nil {
		return progressed, false, err
	}
	if p.DryRun {
		return waitFor("would replay %s on %s", countOf(len(plan.Checks), "evidence command"), short(head)), false, nil
	}
	if res, answered, err := p.answerReplay(ctx, e, pr, d); answered {
		return res, false, err
	}
	last, done := gatekeep.VerifiedAt(e.l)
	return p.runVerification(ctx, e, repo, p.branch(e), head, !(done && last.Head == head && last.Passed), plan)
}

// answerReplay answers a failed verification of the head under review
// (gatekeep.AnswerReplay): a fix round for the rows' failed replays, or a
// stop verify-failed; answered is false when the head's verification did
// not fail.
func (p *passState) answerReplay(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) (res stepResult, answered bool, err error) {
	head := d.HeadSHA
	switch gatekeep.AnswerReplay(e.l, head) {
	case gatekeep.ReplayRound:
		res, err := p.round(ctx, e, pr, d, gatekeep.ReplayFindings(e.l, head, p.tails[e.key()]))
		return res, true, err
	case gatekeep.ReplayStop:
		last, _ := gatekeep.VerifiedAt(e.l)
		after := ""
		if e.l.Delivery.ChecksHead == head && len(ledger.ReplayMisses(e.l, head)) > 0 {
			after = " after a fix round for it"
		}
		return stopped, true, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification fails on the pull request's head %s%s: `%s`%s (see the loop: verify commit for its output)", short(head), after, last.Command, p.whose(e, last.Command)))
	}
	return stepResult{}, false, nil
}

func verifyKey(ledgerPath string) string { return ledgerPath + "|verify" }

// repairVerification dispatches the one verification repair (write-ahead),
// then runs the agent with a brief that quotes the failing command and the
// tail of its output.
func (p *passState) repairVerification(ctx context.Context, e *entry, repo, branch, head string, last gatekeep.Verification) (stepResult, bool, error) {
	if e.l.Delivery.VerifyRepair != "" {
		return stopped, false, p.stop(e, ledger.StopVerifyFailed, fmt.Sprintf("the verification fails on %s: `%s`%s, and its one repair is spent", short(head), last.Command, p.whose(e, last.Command)))
	}
	n, c := gatekeep.VerifyRepairStarted(e.l, head, p.clock())
	// Lessons are the pull request's repository's, never an adopted
	// fork's (adoptfork.go): repo may be the fork.
	bl, err := p.repairLessons(e, p.repoOf(e), last.Command)
	if err != nil {
		return progressed, false, err
	}
	carryLessons(&c, bl)
	if err := p.apply(e, n, c); err != nil {
		return progressed, false, err
	}
	if err := p.push(ctx); err != nil {
		return progressed, false, err
	}
	brief := gatekeep.VerifyBrief(gatekeep.VerifyBriefInput{Spec: e.specPath, Title: e.spec.Title, LedgerPath: e.ledgerPath, Repo: repo, Branch: branch,
		Head: head, Command: last.Command, Tail: p.tailOf(e), Rows: gatekeep.RowsOf(e.l, last.Command), Ledger: e.l, Lessons: bl})
	t := agent.Task{Spec: e.specPath, Ledger: e.ledgerPath, Repo: repo, Branch: branch, Base: head, Iteration: e.l.Iterations, Brief: brief, DefaultBranch: e.spec.Base,
		Model: gatekeep.RepairModel(e.l, last.Command, p.settings())}
	if p.CloneURL != nil {
		t.CloneURL = p.CloneURL(repo)
	}
	out, err := p.Executor.Run(ctx, t)
	p.moved(t.Repo, t.Branch)
	if err != nil {
		return progressed, false, err
	}
	p.outcomes[verifyKey(e.key())] = out
	return progressed, false, nil
}

// tailOf is the failing verification's output tail this pass saw; after a
// restart it is only in the loop: verify commit.
func (p *passState) tailOf(e *entry) string {
	if t, ok := p.tails[e.key()]; ok {
		return t
	}
	return "(the output is in the loop: verify commit of the control repository)"
}

// countOf renders a count of a noun: `1 evidence command`, `2 evidence
// commands`.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
