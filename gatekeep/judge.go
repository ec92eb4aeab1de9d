package gatekeep

import (
	"fmt"
	"strings"
)

// Kind is a verdict's kind.
type Kind string

// Verdict kinds.
const (
	Mergeable Kind = "mergeable"
	Fixable   Kind = "fixable"
	Blocked   Kind = "blocked"
	Waiting   Kind = "waiting"
)

// BlockCode says why a verdict is blocked. The codes that stop the loop are
// also ledger stop reasons (Verdict.LoopStop).
type BlockCode string

// Block codes: why a verdict is blocked.
const (
	BlockMerged       BlockCode = "merged"
	BlockClosed       BlockCode = "closed"
	BlockDraft        BlockCode = "draft"
	BlockConflict     BlockCode = "conflict"
	BlockMergeUnknown BlockCode = "merge-unknown"
	BlockBehind       BlockCode = "behind"
	BlockChecksRed    BlockCode = "checks-red"
	BlockGate         BlockCode = "gate"
	BlockNoEvidence   BlockCode = "no-evidence"
	BlockUnreadable   BlockCode = "unreadable"
	BlockGitHub       BlockCode = "github-blocked"
)

// Block is one reason a pull request cannot merge that no fix round
// answers, with what clears it.
type Block struct {
	Code   BlockCode `json:"code"`
	Reason string    `json:"reason"`
	Clears string    `json:"clears"`
}

// Input is everything Judge weighs besides the digest.
type Input struct {
	// Reviewer is the configured reviewer's login; "" when none.
	Reviewer string
	// Self is gallivant's own login: its comments are never feedback.
	Self string
	// Repolled reports that mergeability was already re-polled once, so an
	// unknown merge state now withholds merge for good (G-22).
	Repolled bool
	// Gate is the completion gate's input; nil when the pull request is
	// not a gallivant delivery or its control repository is not at hand.
	Gate *GateInput
	// Cursors are the loop's cursors; nil (the CLI) makes every finding
	// new.
	Cursors *Cursors
	// Steerers, when not nil, are the lower-cased logins whose reviews and
	// comments count as feedback: the configured reviewer and the people
	// with write access to the target. Everyone else's text is ignored
	// (Verdict.Ignored) and can neither start a round nor hold a merge. Nil
	// (the CLI) counts everyone.
	Steerers map[string]bool
	// NoCI declares that the target has no CI (checks.none). Only then does
	// a delivery whose head has no check run and no status count as
	// verified by its receipt; otherwise the checks are waited for.
	NoCI bool
}

// Verdict is the judgement of one pull request.
type Verdict struct {
	Kind Kind `json:"verdict"`
	// Blocks are the blocking reasons, the first being the verdict's.
	Blocks []Block `json:"blocks,omitempty"`
	// Findings are what a fix round answers; Nits are comments that do not
	// hold the merge.
	Findings []Finding `json:"findings,omitempty"`
	Nits     []Finding `json:"nits,omitempty"`
	// Ignored is feedback from people who may not steer the loop (not the
	// reviewer, no write access): reported, never acted on.
	Ignored []Finding `json:"ignored,omitempty"`
	// WaitsFor is what a waiting verdict waits for, typed; appended only
	// by waitFor. The JSON output spells each wait as its sentence.
	WaitsFor []Wait       `json:"waits,omitempty"`
	Checks   ChecksResult `json:"-"`
	Evidence string       `json:"evidence"`
	// Blockers counts blocking items; -1 when the reviews could not be read.
	Blockers int `json:"blockers"`
	// GateRun reports whether the completion gate ran; Gate lists its
	// problems.
	GateRun bool      `json:"gate_run"`
	Gate    []Problem `json:"gate,omitempty"`
}

// Line is the one-line verdict of the batch summary.
func (v Verdict) Line() string {
	switch v.Kind {
	case Blocked:
		return "blocked - " + v.Blocks[0].Reason
	case Fixable:
		return "fixable - " + plural(len(v.Findings), "finding", "findings")
	case Waiting:
		s := "waiting - " + v.WaitsFor[0].String()
		if len(v.WaitsFor) > 1 {
			s += fmt.Sprintf(" (and %d more)", len(v.WaitsFor)-1)
		}
		return s
	}
	return string(Mergeable)
}

// BlockersString renders the blocker count, or unknown.
func (v Verdict) BlockersString() string {
	if v.Blockers < 0 {
		return "unknown"
	}
	return fmt.Sprint(v.Blockers)
}

// NewFindings returns the findings a round has not answered yet.
func (v Verdict) NewFindings() []Finding {
	var out []Finding
	for _, f := range v.Findings {
		if f.New {
			out = append(out, f)
		}
	}
	return out
}

// ForRound returns the new findings a fix round answers. Gate findings are
// not among them: gallivant answers those by rewriting its own regions of
// the body, not by dispatching an agent.
func (v Verdict) ForRound() []Finding {
	var out []Finding
	for _, f := range v.NewFindings() {
		if f.Source != SourceGate {
			out = append(out, f)
		}
	}
	return out
}

// BlockedBy reports whether the verdict is blocked with code.
func (v Verdict) BlockedBy(code BlockCode) bool {
	_, ok := v.blockOf(code)
	return ok
}

func (v Verdict) blockOf(code BlockCode) (Block, bool) {
	for _, b := range v.Blocks {
		if b.Code == code {
			return b, true
		}
	}
	return Block{}, false
}

// LoopStop returns the block that stops the pull-request loop, if any: a
// merge state still unknown after the re-poll, or checks still red on a
// head a round was dispatched for. Its code is the stop reason. The loop
// answers a conflict with a conflict round and a pull request behind its
// base by merging the base; other blocks (a draft, GitHub's unexplained
// BLOCKED) wait for a person without a stop.
func (v Verdict) LoopStop() (Block, bool) {
	for _, code := range []BlockCode{BlockMergeUnknown, BlockChecksRed} {
		if b, ok := v.blockOf(code); ok {
			return b, true
		}
	}
	return Block{}, false
}

// Judge weighs a digest (G-21..G-26, R-32): terminal state, draft, merge
// state, CI-first checks on the exact head, outstanding changes requested
// and new feedback, the configured reviewer's clearance, and the
// completion gate. Blocked wins over fixable, fixable over waiting.
func Judge(d Digest, in Input) Verdict {
	var v Verdict
	switch {
	case d.Merged:
		v.block(BlockMerged, "merged as "+short(d.MergeCommit), "nothing: the pull request is merged")
		return finish(v, d)
	case d.State == PRClosed:
		v.block(BlockClosed, "closed without merging", "reopen the pull request")
		return finish(v, d)
	}
	v.judgeMergeState(d, in)
	missing := v.judgeChecks(d, in)
	v.judgeReviews(d, in)
	if in.Gate != nil {
		v.GateRun = true
		v.Gate = Gate(d, *in.Gate)
		for _, p := range v.Gate {
			if p.Blocking {
				v.block(BlockGate, "completion gate: "+p.Message, p.Clears)
			} else {
				v.Findings = append(v.Findings, Finding{Source: SourceGate, Where: string(p.Rule), Text: p.Message, New: true})
			}
		}
	}
	if have := Approvals(d.Reviews); d.MergeState == MergeBlocked && d.RequiredApprovals > have {
		// GitHub blocks for want of approvals the base branch requires:
		// people's work, waited for, not a block.
		v.waitFor(Wait{Kind: WaitApprovals, Head: d.HeadSHA, Need: d.RequiredApprovals, Have: have})
	}
	if d.MergeState == MergeBlocked && len(v.WaitsFor) == 0 && len(v.Findings) == 0 && len(v.Blocks) == 0 {
		// G-23: nothing gatekeep sees explains it.
		v.block(BlockGitHub, "GitHub reports BLOCKED, no local repair applies", "a person with access checks the protection rules of "+d.BaseRef)
	}
	v.judgeEvidence(d, in, missing)
	for _, f := range v.Findings {
		if f.Source == SourceCheck && !f.New {
			v.block(BlockChecksRed, fmt.Sprintf("checks still red on %s after a fix round for them", short(d.HeadSHA)),
				"a person fixes the checks (a new push is followed), then resume | <why>")
			break
		}
	}
	return finish(v, d)
}

func (v *Verdict) block(code BlockCode, reason, clears string) {
	v.Blocks = append(v.Blocks, Block{Code: code, Reason: reason, Clears: clears})
}

// judgeMergeState weighs a draft and GitHub's merge state (G-22): unknown
// waits for one re-poll, then withholds the merge; dirty is a conflict;
// behind needs the base merged in.
func (v *Verdict) judgeMergeState(d Digest, in Input) {
	if d.Draft {
		v.block(BlockDraft, "the pull request is a draft", "mark it ready for review")
	}
	switch {
	case d.Mergeable == nil || !d.MergeState.Computed():
		if in.Repolled {
			v.block(BlockMergeUnknown, "merge state unknown after a re-poll", "recheck once GitHub has computed mergeability")
		} else {
			v.waitFor(Wait{Kind: WaitMergeability})
		}
	case !*d.Mergeable || d.MergeState == MergeDirty:
		v.block(BlockConflict, fmt.Sprintf("conflicts with %s", d.BaseRef), fmt.Sprintf("merge %s into %s and resolve the conflicts", d.BaseRef, d.HeadRef))
	case d.MergeState == MergeBehind:
		v.block(BlockBehind, fmt.Sprintf("behind %s, whose protection requires branches to be up to date", d.BaseRef), fmt.Sprintf("merge %s into %s", d.BaseRef, d.HeadRef))
	}
}

// judgeChecks applies the CI-first rules on the exact head (G-21): failing
// checks are findings, once per head; running and required-but-unreported
// checks are waited for. It returns how many required checks have not
// reported.
func (v *Verdict) judgeChecks(d Digest, in Input) (missing int) {
	v.Checks = EvaluateChecks(d)
	for _, c := range v.Checks.Failing {
		v.Findings = append(v.Findings, checkFinding(c, in.Cursors == nil || in.Cursors.ChecksHead != d.HeadSHA))
	}
	for _, c := range v.Checks.Waiting {
		v.waitFor(Wait{Kind: WaitCheck, Name: c.Name, Head: d.HeadSHA})
	}
	if !d.ChecksKnown {
		v.waitFor(Wait{Kind: WaitChecksReadable, Head: d.HeadSHA})
		return 0
	}
	for _, name := range d.Required {
		reported := false
		for _, c := range d.Checks {
			reported = reported || c.Name == name
		}
		if !reported {
			missing++
			v.waitFor(Wait{Kind: WaitRequiredCheck, Name: name, Head: d.HeadSHA})
		}
	}
	return missing
}

// judgeReviews weighs reviews and comments from the people who may steer
// (R-32, G-17): without cursors (the CLI) outstanding changes requested are
// findings and commented reviews nits; with cursors only feedback after the
// cursor is new, and answered changes wait for a re-review. The configured
// reviewer's approval of exactly the head is waited for.
func (v *Verdict) judgeReviews(d Digest, in Input) {
	steers := func(login string) bool { return in.Steerers == nil || in.Steerers[strings.ToLower(login)] }
	if in.Cursors == nil {
		for _, r := range ChangesRequested(d.Reviews) {
			f := Finding{Source: SourceReview, ID: r.ID, Author: r.User, Where: "review of " + short(r.CommitID),
				State: string(r.State), Text: r.Body, At: r.SubmittedAt, New: true}
			if !steers(r.User) {
				f.New = false
				v.Ignored = append(v.Ignored, f)
				continue
			}
			v.Findings = append(v.Findings, f)
		}
		for _, r := range d.Reviews {
			if p := PriorReview(d.Reviews, r.User); p != nil && p.ID == r.ID && p.State == ReviewCommented && strings.TrimSpace(p.Body) != "" && !strings.EqualFold(r.User, in.Self) {
				v.Nits = append(v.Nits, Finding{Source: SourceReview, ID: r.ID, Author: r.User, Where: "review of " + short(r.CommitID), State: string(r.State), Text: r.Body, At: r.SubmittedAt})
			}
		}
	} else {
		for _, f := range Feedback(d, in.Cursors.Since, in.Self) {
			if steers(f.Author) {
				v.Findings = append(v.Findings, f)
			} else {
				v.Ignored = append(v.Ignored, f)
			}
		}
		for _, r := range ChangesRequested(d.Reviews) {
			if steers(r.User) && !in.Cursors.Since.IsNew(r.SubmittedAt, r.ID) {
				v.waitFor(Wait{Kind: WaitReReview, User: r.User, Head: r.CommitID})
			}
		}
	}
	if in.Reviewer != "" && !ReviewerClear(d.Reviews, in.Reviewer, d.HeadSHA) {
		v.waitFor(Wait{Kind: WaitApproval, User: in.Reviewer, Head: d.HeadSHA})
	}
}

// judgeEvidence decides where the verdict's evidence comes from (G-21):
// CI, pending CI, the receipt (local, only for a target declared to have
// no CI), or none, which blocks a pull request without a receipt.
func (v *Verdict) judgeEvidence(d Digest, in Input, missing int) {
	v.Evidence = v.Checks.Evidence
	if missing > 0 {
		v.Evidence = EvidencePending
	}
	if v.Evidence == "" && v.GateRun && !in.NoCI && d.ChecksKnown {
		// No check run and no status: CI has not started (or the token
		// that opened the pull request starts no workflows). Untested work
		// is never green unless the target is declared to have no CI.
		v.Evidence = EvidencePending
		v.waitFor(Wait{Kind: WaitFirstCI, Head: d.HeadSHA})
	}
	if v.Evidence != "" {
		return
	}
	if v.GateRun && len(v.Gate) == 0 {
		v.Evidence = EvidenceLocal
		return
	}
	v.Evidence = EvidenceUnknown
	if !v.GateRun {
		v.block(BlockNoEvidence, "no verification evidence: the head has no checks and the body no gallivant receipt",
			"add CI checks that run on the head, or deliver the change through gallivant")
	}
}

// WaitCI begins the wait a head with no checks at all gets.
const WaitCI = "a first check run or status on"

// WaitsForCI reports whether the verdict waits only because no CI has
// reported on the head at all (the checks-silent clock applies).
func (v Verdict) WaitsForCI() bool {
	for _, w := range v.WaitsFor {
		if w.Kind == WaitFirstCI {
			return true
		}
	}
	return false
}

func finish(v Verdict, d Digest) Verdict {
	v.Blockers = len(v.Blocks)
	for _, f := range v.Findings {
		if f.Source != SourceComment {
			v.Blockers++
		}
	}
	if !d.ReviewsKnown && !d.Merged && d.State != PRClosed {
		v.Blockers = -1
		v.waitFor(Wait{Kind: WaitReviewsReadable})
	}
	switch {
	case len(v.Blocks) > 0:
		v.Kind = Blocked
	case len(v.NewFindings()) > 0:
		v.Kind = Fixable
	case len(v.WaitsFor) > 0:
		v.Kind = Waiting
	default:
		v.Kind = Mergeable
	}
	if v.Evidence == "" {
		v.Evidence = EvidenceUnknown
	}
	return v
}

// Approvals counts the people whose latest deciding review (an approval,
// a request for changes or a dismissal; a comment decides nothing) is an
// approval: what GitHub counts against a required number of approving
// reviews.
func Approvals(reviews []Review) int {
	latest := map[string]ReviewState{}
	for _, r := range reviews {
		switch r.State {
		case ReviewApproved, ReviewChangesRequested, ReviewDismissed:
			latest[strings.ToLower(r.User)] = r.State
		}
	}
	n := 0
	for _, st := range latest {
		if st == ReviewApproved {
			n++
		}
	}
	return n
}
