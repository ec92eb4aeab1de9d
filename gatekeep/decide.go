package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// The pull-request loop's decision, the twin of ledger.Next for the
// review phases: what the loop observed goes in as plain values, and one
// Action comes out. The reconciler observes, decides, performs the one
// GitHub write the action needs, then commits the transition that records
// it. The decision is taken in two looks, because the second needs the
// pull request's full digest, which is read only when the first look on
// the live pull request alone leaves nothing else to do.

// Step is what a decision tells the loop to do next.
type Step string

// Steps of the review phases.
const (
	StepReopen      Step = "reopen"       // pay the reopening a resume after a closed stop owes
	StepDone        Step = "done"         // merged: record it
	StepLegClosed   Step = "leg-closed"   // a coordinated entry's leg was closed unmerged
	StepStop        Step = "stop"         // stop the entry: Reason, Detail
	StepPayOwed     Step = "pay-owed"     // pay the owed write Write with Arg
	StepFollow      Step = "follow"       // follow a head the loop did not push
	StepBaseMerged  Step = "base-merged"  // record the head as gallivant's own update-branch merge
	StepRewritten   Step = "rewritten"    // the head does not contain the recorded one: stop boundary on it
	StepUnready     Step = "unready"      // remove the ready label: Detail says why
	StepRewriteBody Step = "rewrite-body" // rewrite the identity block and receipt
	StepUndraft     Step = "undraft"      // mark the draft ready for review
	StepJudge       Step = "judge"        // nothing on the live pull request: read the digest and judge it
	StepMergeBase   Step = "merge-base"   // merge the base into a work branch behind it
	StepRound       Step = "round"        // dispatch a fix round for Findings
	StepReady       Step = "ready"        // write the ready label
	StepHoldReady   Step = "hold-ready"   // ready and labelled: wait for a person's merge
	StepChecksQuiet Step = "checks-quiet" // no check reported within checks.wait: stop checks-silent
	StepWait        Step = "wait"         // waiting: the reviewer's clock may nudge, else wait for Detail
	StepHold        Step = "hold"         // blocked with nothing the loop can do: Detail says why
	StepNothing     Step = "nothing"      // every row closed, nothing to deliver: done without a pull request, Detail says why
	StepOpen        Step = "open"         // the work branch delivers: open (or adopt) its pull request
	StepAdopt       Step = "adopt"        // the spec names an existing pull request: adopt it (adopt.go)
)

// Action is one decision: a step and what performing it needs.
type Action struct {
	Step Step
	// Reason and Detail are a stop's; Detail is also why a pull request
	// leaves ready, and what a wait waits for.
	Reason ledger.StopReason
	Detail string
	// Write and Arg are the owed write to pay.
	Write Write
	Arg   string
	// Findings are what a round answers.
	Findings []Finding
	// Head is the head an unready records: the recorded one, or the new
	// head a person pushed onto a ready pull request.
	Head string
	// Prove asks StepNothing to replay the rows' evidence on the work
	// branch first: a row an agent said is done on a branch that changes
	// nothing is a claim, and only its evidence holding there makes
	// "nothing to deliver" true.
	Prove bool
}

// LiveFacts is what the first look needs: the ledger's state and the live
// pull request, without its reviews, comments or checks.
type LiveFacts struct {
	PR    PR
	Phase ledger.Phase
	// Owed is the owed write, "" when none.
	Owed    Write
	OwedArg string
	Merged  bool
	Closed  bool
	Leg     bool // the entry is one leg of a coordinated spec
	// BaseRef is the pull request's base, SpecBase the spec's.
	BaseRef, SpecBase string
	// Head is the live head, LedgerHead the head the loop last acted on.
	Head, LedgerHead string
	// ChainHeld is set, with ChainWhy, when a ready milestone's chain now
	// holds it behind an unmerged predecessor.
	ChainHeld bool
	ChainWhy  string
	BodyDrift bool // gallivant's regions of the body drifted
	Draft     bool
	// HeadRef is the pull request's head branch.
	HeadRef string
	// Move is what was observed about Head when it is not LedgerHead.
	Move HeadMove
}

// HeadMove is what the loop observed about a live head that is not the
// head it recorded: whether GitHub's comparison from the recorded head is
// ahead (the new head contains it), the new head commit's parents (first
// parent first) and subject, and the base branch's head, read in the same
// pass when the new head is a merge commit.
type HeadMove struct {
	Contains bool
	Parents  []string
	Subject  string
	BaseHead string
}

// IsBaseMerge reports whether a new head is GitHub's update-branch merge
// of the base into the recorded head: a merge commit whose first
// parent is the recorded head, whose second parent is the base branch's
// head as observed, with the subject GitHub writes, "Merge branch '<base>'
// into <head>". A commit that only looks like one (another second parent,
// another subject) is a push the loop did not make.
func IsBaseMerge(m HeadMove, recorded, baseRef, headRef string) bool {
	return m.Contains && len(m.Parents) == 2 && recorded != "" && m.Parents[0] == recorded &&
		m.BaseHead != "" && m.Parents[1] == m.BaseHead &&
		m.Subject == "Merge branch '"+baseRef+"' into "+headRef
}

// decideMove is the rule for a live head the loop did not record (R-32,
// issue 10): a ready pull request leaves ready first, keeping the recorded
// head when the new one rewrote history; a rewritten history stops
// boundary; gallivant's own base merge is recorded as such; any other
// push is followed.
func decideMove(f LiveFacts) Action {
	rewritten := f.LedgerHead != "" && !f.Move.Contains
	switch {
	case f.Phase == ledger.PhaseReady && rewritten:
		return Action{Step: StepUnready, Head: f.LedgerHead, Detail: "its head was rewritten to " + short(f.Head)}
	case f.Phase == ledger.PhaseReady:
		return Action{Step: StepUnready, Head: f.Head, Detail: "its head moved to " + short(f.Head)}
	case rewritten:
		return Action{Step: StepRewritten}
	case IsBaseMerge(f.Move, f.LedgerHead, f.BaseRef, f.HeadRef):
		return Action{Step: StepBaseMerged}
	}
	return Action{Step: StepFollow}
}

// DecideLive is the first look: the first
// rule that applies wins, in the order docs/delivery.md lists them.
func DecideLive(f LiveFacts) Action {
	switch {
	case f.Owed == WriteReopen:
		return Action{Step: StepReopen}
	case f.Merged:
		return Action{Step: StepDone}
	case f.Closed && f.Leg:
		return Action{Step: StepLegClosed}
	case f.Closed:
		return Action{Step: StepStop, Reason: ledger.StopClosed, Detail: fmt.Sprintf("%s was closed without merging", f.PR)}
	case f.Owed != "":
		return Action{Step: StepPayOwed, Write: f.Owed, Arg: f.OwedArg}
	case f.Phase == ledger.PhaseReady && f.ChainHeld:
		return Action{Step: StepUnready, Head: f.LedgerHead, Detail: "it is chained: " + f.ChainWhy}
	case f.BaseRef != f.SpecBase:
		return Action{Step: StepStop, Reason: ledger.StopRetargeted, Detail: fmt.Sprintf("%s targets %s; the spec delivers into %s", f.PR, f.BaseRef, f.SpecBase)}
	case f.Head != f.LedgerHead:
		return decideMove(f)
	case f.BodyDrift:
		return Action{Step: StepRewriteBody}
	case f.Draft:
		return Action{Step: StepUndraft}
	}
	return Action{Step: StepJudge}
}

// JudgedFacts is what the second look needs: the verdict on the digest
// and what the ledger and the clock say about it.
type JudgedFacts struct {
	PR      PR
	Phase   ledger.Phase
	Verdict Verdict
	// HeadRef, HeadSHA and BaseRef are the digest's.
	HeadRef, HeadSHA, BaseRef string
	// ConflictAnswered: a conflict round was already dispatched for HeadSHA.
	ConflictAnswered bool
	// ChecksOverdue: CI is waited for and checks.wait has passed since the
	// loop first saw the head.
	ChecksOverdue bool
}

// DecideJudged is the second look: loop stops first, then
// the base merge of a branch that is only behind, conflicts, findings, and
// what the verdict's kind leaves. Ignored feedback (Verdict.Ignored) takes
// no step: it is never a control commit, only a line of the pass report
// (IgnoredNote).
func DecideJudged(f JudgedFacts) Action {
	v := f.Verdict
	if b, stop := v.LoopStop(); stop {
		return Action{Step: StepStop, Reason: ledger.StopReason(b.Code), Detail: fmt.Sprintf("%s: %s", f.PR, b.Reason)}
	}
	fs := v.ForRound()
	if v.BlockedBy(BlockBehind) && len(fs) == 0 {
		return Action{Step: StepMergeBase}
	}
	if v.BlockedBy(BlockConflict) {
		if f.ConflictAnswered {
			return Action{Step: StepStop, Reason: ledger.StopConflict,
				Detail: fmt.Sprintf("%s still conflicts with %s after a conflict round on %s", f.PR, f.BaseRef, short(f.HeadSHA))}
		}
		fs = append(fs, ConflictFinding(f.HeadRef, f.BaseRef))
	}
	if len(fs) > 0 {
		if f.Phase == ledger.PhaseReady {
			return Action{Step: StepUnready, Detail: "new feedback arrived after it was marked ready"}
		}
		return Action{Step: StepRound, Findings: fs}
	}
	switch v.Kind {
	case Mergeable:
		if f.Phase == ledger.PhaseReady {
			return Action{Step: StepHoldReady, Detail: fmt.Sprintf("%s is ready; waits for a person to merge it", f.PR)}
		}
		return Action{Step: StepReady}
	case Waiting:
		if v.WaitsForCI() && f.ChecksOverdue {
			return Action{Step: StepChecksQuiet, Reason: ledger.StopChecksSilent}
		}
		return Action{Step: StepWait, Detail: fmt.Sprintf("%s waits for %s", f.PR, strings.Join(v.WaitSentences(), "; "))}
	}
	return Action{Step: StepHold, Detail: fmt.Sprintf("%s is %s", f.PR, v.Line())}
}

// OpenFacts is what deciding to open a pull request needs once every row
// is closed: the work branch and its comparison with the base.
type OpenFacts struct {
	Repo, Branch, Base string
	// Exists is whether the work branch exists; Head is its head.
	Exists bool
	Head   string
	// HadPR: the ledger recorded a pull request. AnyDone: a row is done,
	// so work was delivered on the branch.
	HadPR, AnyDone bool
	// Unrelated: the branch shares no history with the base. AheadBy and
	// Files are the comparison's.
	Unrelated      bool
	AheadBy, Files int
	// Adopts: the spec names the pull request it adopts (pr:), whose
	// head branch is Branch.
	Adopts bool
}

// DecideOpen decides whether the work branch delivers anything: a branch
// that vanished after work was done on it, or that shares no history with
// the base, stops boundary; one that changes no file (or was never created
// because every row is cut) ends the entry without a pull request — once
// the evidence of its done rows holds on it (Prove).
func DecideOpen(f OpenFacts) Action {
	switch {
	case !f.Exists && (f.HadPR || f.AnyDone || f.Adopts):
		return Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: fmt.Sprintf("every row is closed but the work branch %s no longer exists in %s", f.Branch, f.Repo)}
	case !f.Exists:
		return Action{Step: StepNothing, Detail: fmt.Sprintf("every row is cut and the work branch %s was never created", f.Branch)}
	case f.Unrelated:
		return Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: fmt.Sprintf("the work branch %s at %s shares no history with %s in %s", f.Branch, short(f.Head), f.Base, f.Repo)}
	case f.AheadBy == 0 || f.Files == 0:
		return Action{Step: StepNothing, Detail: fmt.Sprintf("the work branch %s at %s changes no file against %s", f.Branch, short(f.Head), f.Base), Prove: f.AnyDone}
	case f.Adopts:
		return Action{Step: StepAdopt}
	}
	return Action{Step: StepOpen}
}
