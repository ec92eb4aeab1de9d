package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// The first look on the live pull request, rule by rule in its order
// (docs/delivery.md, "Each pass in review").
func TestDecideLive(t *testing.T) {
	t.Parallel()
	quiet := LiveFacts{PR: pr1, Phase: ledger.PhaseReview, BaseRef: "main", SpecBase: "main", Head: head, LedgerHead: head}
	with := func(change func(*LiveFacts)) LiveFacts { f := quiet; change(&f); return f }
	tests := []struct {
		name string
		f    LiveFacts
		want Action
	}{
		{"nothing on the live pull request: judge it", quiet, Action{Step: StepJudge}},
		{"a resume after closed owes the reopening, even when merged", with(func(f *LiveFacts) { f.Owed, f.Merged = WriteReopen, true }), Action{Step: StepReopen}},
		{"merged", with(func(f *LiveFacts) { f.Merged, f.Owed = true, WriteRoundComment }), Action{Step: StepDone}},
		{"a leg closed", with(func(f *LiveFacts) { f.Closed, f.Leg = true, true }), Action{Step: StepLegClosed}},
		{"closed unmerged stops closed", with(func(f *LiveFacts) { f.Closed = true }),
			Action{Step: StepStop, Reason: ledger.StopClosed, Detail: "acme/api#1 was closed without merging"}},
		{"an owed write is paid first (R-25)", with(func(f *LiveFacts) { f.Owed, f.OwedArg, f.BaseRef = WriteRoundComment, "2", "dev" }),
			Action{Step: StepPayOwed, Write: WriteRoundComment, Arg: "2"}},
		{"ready and chained behind an unmerged milestone: unready (issue 26)", with(func(f *LiveFacts) {
			f.Phase, f.ChainHeld, f.ChainWhy, f.Head = ledger.PhaseReady, true, "waits for milestone 1", "moved"
		}), Action{Step: StepUnready, Head: head, Detail: "it is chained: waits for milestone 1"}},
		{"a chain hold does not unready an entry in review", with(func(f *LiveFacts) { f.ChainHeld = true }), Action{Step: StepJudge}},
		{"retargeted (R-7)", with(func(f *LiveFacts) { f.BaseRef, f.Head = "dev", "moved" }),
			Action{Step: StepStop, Reason: ledger.StopRetargeted, Detail: "acme/api#1 targets dev; the spec delivers into main"}},
		{"a head the loop did not push (R-32)", with(func(f *LiveFacts) { f.Head, f.BodyDrift, f.Move.Contains = "moved", true, true }), Action{Step: StepFollow}},
		{"body drift before the draft", with(func(f *LiveFacts) { f.BodyDrift, f.Draft = true, true }), Action{Step: StepRewriteBody}},
		{"a draft is marked ready for review (R-24)", with(func(f *LiveFacts) { f.Draft = true }), Action{Step: StepUndraft}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DecideLive(tt.f)); diff != "" {
				t.Errorf("DecideLive (-want +got):\n%s", diff)
			}
		})
	}
}

// The second look on the verdict.
func TestDecideJudged(t *testing.T) {
	t.Parallel()
	comment := Finding{Source: SourceComment, ID: 3, Author: "bob", New: true}
	old := Finding{Source: SourceComment, ID: 2, Author: "bob"}
	gate := Finding{Source: SourceGate, Where: "receipt", New: true}
	block := func(c BlockCode) Block { return Block{Code: c, Reason: string(c) + " reason"} }
	base := JudgedFacts{PR: pr1, Phase: ledger.PhaseReview, HeadRef: "gallivant/x", HeadSHA: head, BaseRef: "main"}
	with := func(v Verdict, change func(*JudgedFacts)) JudgedFacts {
		f := base
		f.Verdict = v
		if change != nil {
			change(&f)
		}
		return f
	}
	ready := func(f *JudgedFacts) { f.Phase = ledger.PhaseReady }
	conflictRound := ConflictFinding("gallivant/x", "main")
	tests := []struct {
		name string
		f    JudgedFacts
		want Action
	}{
		{"checks red on its own head stops", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockChecksRed)}, Findings: []Finding{comment}}, nil),
			Action{Step: StepStop, Reason: ledger.StopChecksRed, Detail: "acme/api#1: checks-red reason"}},
		{"behind with nothing to answer: merge the base (R-28)", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockBehind)}}, nil), Action{Step: StepMergeBase}},
		{"behind with feedback: the round first", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockBehind)}, Findings: []Finding{comment}}, nil),
			Action{Step: StepRound, Findings: []Finding{comment}}},
		{"a conflict is answered by a round (R-27)", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockConflict)}}, nil),
			Action{Step: StepRound, Findings: []Finding{conflictRound}}},
		{"a conflict still there after its round stops", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockConflict)}}, func(f *JudgedFacts) { f.ConflictAnswered = true }),
			Action{Step: StepStop, Reason: ledger.StopConflict, Detail: "acme/api#1 still conflicts with main after a conflict round on " + head[:7]}},
		{"new feedback in review: a round of the new findings only", with(Verdict{Kind: Fixable, Findings: []Finding{old, comment, gate}}, nil),
			Action{Step: StepRound, Findings: []Finding{comment}}},
		{"new feedback when ready: unready first", with(Verdict{Kind: Fixable, Findings: []Finding{comment}}, ready),
			Action{Step: StepUnready, Detail: "new feedback arrived after it was marked ready"}},
		// Issue 29: strangers cannot write history.
		{"ignored feedback takes no step: mergeable is labelled ready", with(Verdict{Kind: Mergeable, Ignored: []Finding{comment}}, nil), Action{Step: StepReady}},
		{"ignored feedback on a ready pull request: still a person's merge", with(Verdict{Kind: Mergeable, Ignored: []Finding{comment}}, ready),
			Action{Step: StepHoldReady, Detail: "acme/api#1 is ready; waits for a person to merge it"}},
		{"ignored feedback while waiting: the wait", with(func() Verdict {
			v := waiting(Wait{Kind: WaitApproval, User: "rev", Head: "abc"})
			v.Ignored = []Finding{comment}
			return v
		}(), nil), Action{Step: StepWait, Detail: "acme/api#1 waits for an approval by @rev of abc"}},
		{"mergeable: label ready", with(Verdict{Kind: Mergeable}, nil), Action{Step: StepReady}},
		{"mergeable and ready: wait for a person", with(Verdict{Kind: Mergeable}, ready),
			Action{Step: StepHoldReady, Detail: "acme/api#1 is ready; waits for a person to merge it"}},
		{"waiting for CI past checks.wait stops checks-silent", with(waiting(Wait{Kind: WaitFirstCI, Head: "abc"}), func(f *JudgedFacts) { f.ChecksOverdue = true }),
			Action{Step: StepChecksQuiet, Reason: ledger.StopChecksSilent}},
		{"waiting for CI within checks.wait", with(waiting(Wait{Kind: WaitFirstCI, Head: "abc"}, Wait{Kind: WaitApproval, User: "rev", Head: "abc"}), nil),
			Action{Step: StepWait, Detail: "acme/api#1 waits for " + WaitCI + " abc; an approval by @rev of abc"}},
		{"waiting for a review past checks.wait is no checks stop", with(waiting(Wait{Kind: WaitApproval, User: "rev", Head: "abc"}), func(f *JudgedFacts) { f.ChecksOverdue = true }),
			Action{Step: StepWait, Detail: "acme/api#1 waits for an approval by @rev of abc"}},
		{"blocked with nothing to do", with(Verdict{Kind: Blocked, Blocks: []Block{block(BlockGate)}, Findings: []Finding{gate}}, nil),
			Action{Step: StepHold, Detail: "acme/api#1 is blocked - gate reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DecideJudged(tt.f)); diff != "" {
				t.Errorf("DecideJudged (-want +got):\n%s", diff)
			}
		})
	}
}

// Opening: whether the work branch delivers anything once every row is
// closed (docs/delivery.md, "Nothing to deliver").
func TestDecideOpen(t *testing.T) {
	t.Parallel()
	delivers := OpenFacts{Repo: "acme/api", Branch: "gallivant/x", Base: "main", Exists: true, Head: head, AnyDone: true, AheadBy: 2, Files: 3}
	with := func(change func(*OpenFacts)) OpenFacts { f := delivers; change(&f); return f }
	tests := []struct {
		name string
		f    OpenFacts
		want Action
	}{
		{"the branch delivers: open", delivers, Action{Step: StepOpen}},
		{"the branch vanished after work was done on it", with(func(f *OpenFacts) { f.Exists = false }),
			Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: "every row is closed but the work branch gallivant/x no longer exists in acme/api"}},
		{"the branch vanished after a pull request was recorded", with(func(f *OpenFacts) { f.Exists, f.AnyDone, f.HadPR = false, false, true }),
			Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: "every row is closed but the work branch gallivant/x no longer exists in acme/api"}},
		{"every row cut and no branch", with(func(f *OpenFacts) { f.Exists, f.AnyDone = false, false }),
			Action{Step: StepNothing, Detail: "every row is cut and the work branch gallivant/x was never created"}},
		{"unrelated history is no empty branch (issue 26)", with(func(f *OpenFacts) { f.Unrelated, f.AheadBy, f.Files = true, 0, 0 }),
			Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: "the work branch gallivant/x at " + head[:7] + " shares no history with main in acme/api"}},
		{"commits that change no file, after rows an agent said are done: proved first", with(func(f *OpenFacts) { f.Files = 0 }),
			Action{Step: StepNothing, Detail: "the work branch gallivant/x at " + head[:7] + " changes no file against main", Prove: true}},
		{"no commits", with(func(f *OpenFacts) { f.AheadBy = 0 }),
			Action{Step: StepNothing, Detail: "the work branch gallivant/x at " + head[:7] + " changes no file against main", Prove: true}},
		{"no commits and no row done (every row cut)", with(func(f *OpenFacts) { f.AheadBy, f.AnyDone = 0, false }),
			Action{Step: StepNothing, Detail: "the work branch gallivant/x at " + head[:7] + " changes no file against main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DecideOpen(tt.f)); diff != "" {
				t.Errorf("DecideOpen (-want +got):\n%s", diff)
			}
		})
	}
}

// waiting is a waiting verdict on ws, its sentences in step with them.
func waiting(ws ...Wait) Verdict {
	v := Verdict{Kind: Waiting}
	for _, w := range ws {
		v.waitFor(w)
	}
	return v
}
