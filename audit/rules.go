package audit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// rule proves one kind of `loop:` commit. replay rebuilds, from the parent
// ledger and the inputs the commit records, what the transition writes;
// Check then compares it with the child section by section. Inputs the
// control repository cannot know (an instant, a head SHA of the target
// repository, a stop's detail) are read from the child and the trailers,
// and only from the keys the transition itself sets, so borrowing one can
// never hide an edit elsewhere.
//
// Adding a transition is adding its form to the subject vocabulary
// (ledger/subject.go) and a line to rules (and a test in rules_test.go).
type rule struct {
	kind string
	// of are the subject kinds (ledger.ParseSubject) this rule proves.
	of []ledger.Kind
	// creates marks the one rule whose parent has no ledger.
	creates bool
	replay  func(s *step) []outcome
}

// step is what a replay reads.
type step struct {
	parent, child *ledger.Ledger
	c             *Change
	sub           ledger.Subject // the parsed subject, leg removed
}

// outcome is one candidate the transition could have written; some
// transitions have two forms (a head moved or not) and the change is legal
// when either matches.
type outcome struct {
	l   *ledger.Ledger
	c   *ledger.Commit
	err error
}

// section names where a refused replay's problem lies.
func (o outcome) section() string {
	var se *sectionError
	if errors.As(o.err, &se) {
		return se.section
	}
	return SectionLedger
}

// sectionError is a replay refusal about a particular section.
type sectionError struct {
	section string
	err     error
}

func (e *sectionError) Error() string { return e.err.Error() }

func refuse(section, format string, args ...any) []outcome {
	return []outcome{{err: &sectionError{section, fmt.Errorf(format, args...)}}}
}

func one(l *ledger.Ledger, c ledger.Commit) []outcome { return []outcome{{l: l, c: &c}} }

func of(k ...ledger.Kind) []ledger.Kind { return k }

// rules is the table of known transitions, one line per kind of commit
// subject (ledger/subject.go holds their grammar).
var rules = []rule{
	{kind: "seed ledger", of: of(ledger.KindSeedLedger), creates: true, replay: replaySeed},
	{kind: "adopt", of: of(ledger.KindAdopt), creates: true, replay: replayAdopt},
	{kind: "dispatch", of: of(ledger.KindDispatch), replay: replayDispatch},
	{kind: "record", of: of(ledger.KindRecord), replay: replayRecord},
	{kind: "repair", of: of(ledger.KindRepair), replay: replayRepair},
	{kind: "retry", of: of(ledger.KindRetry), replay: replayRequest},
	{kind: "raise allowance", of: of(ledger.KindRaiseAllowance), replay: replayRequest},
	{kind: "reopen row", of: of(ledger.KindReopenRow), replay: replayRequest},
	{kind: "resume", of: of(ledger.KindResume), replay: replayResume},
	{kind: "escalate", of: of(ledger.KindEscalate), replay: replayEscalate},
	{kind: "stop", of: of(ledger.KindStop), replay: replayStop},
	{kind: "migrate allowance", of: of(ledger.KindMigrateAllowance), replay: replayMigrate},
	{kind: "amend", of: of(ledger.KindAmend, ledger.KindCutRow), replay: replayAmend},
	{kind: "rerun", of: of(ledger.KindRerun), replay: replayRerun},
	{kind: "withdraw", of: of(ledger.KindWithdraw), replay: replayWithdraw},
	{kind: "verify", of: of(ledger.KindVerify), replay: replayVerify},
	{kind: "repair verification", of: of(ledger.KindRepairVerification), replay: replayVerifyRepair},
	{kind: "open pr", of: of(ledger.KindOpenPR), replay: replayOpen},
	{kind: "done", of: of(ledger.KindDone), replay: replayDone},
	{kind: "follow", of: of(ledger.KindFollow), replay: replayFollow},
	{kind: "ready for review", of: of(ledger.KindReadyForReview), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Undrafted(s.parent, p, childHead(s))) })},
	{kind: "merge base", of: of(ledger.KindMergeBase), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.BaseMerged(s.parent, p, "", childHead(s))) })},
	{kind: "unready", of: of(ledger.KindUnready), replay: replayUnready},
	{kind: "ready", of: of(ledger.KindReady), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		return one(gatekeep.Ready(s.parent, p, s.c.trailer(ledger.TrailerHead), ""))
	})},
	{kind: "announced", of: of(ledger.KindAnnounced), replay: replayAnnounced},
	{kind: "ignore", of: of(ledger.KindIgnore), replay: replayIgnore},
	{kind: "round", of: of(ledger.KindRound), replay: replayRound},
	{kind: "pushed round", of: of(ledger.KindPushedRound), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.RoundPushed(s.parent, p, childHead(s), 0)) })},
	{kind: "empty round", of: of(ledger.KindEmptyRound), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		a, ac := gatekeep.RoundEmpty(s.parent, p)
		b, bc := gatekeep.RoundInterrupted(s.parent, p)
		x, xc := gatekeep.RoundNotRun(s.parent, p)
		return []outcome{{l: a, c: &ac}, {l: b, c: &bc}, {l: x, c: &xc}}
	})},
	{kind: "nudge", of: of(ledger.KindNudge), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		return one(gatekeep.Nudged(s.parent, p, "", s.child.Delivery.Nudged, time.Time{}))
	})},
	{kind: "reopen pr", of: of(ledger.KindReopenPR), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Reopened(s.parent, p)) })},
	{kind: "replace pr", of: of(ledger.KindReplacePR), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Replaced(s.parent, p, "")) })},
	{kind: "write failed", of: of(ledger.KindWriteFailed), replay: replayWriteFailed},
	{kind: "write landed", of: of(ledger.KindWriteLanded), replay: replayWriteLanded},
	{kind: KindAccept, of: of(ledger.KindAccept), replay: replayRequest},
	{kind: "raise budget", of: of(ledger.KindRaiseBudget), replay: replayRequest},
	{kind: "notify", of: of(ledger.KindNotify), replay: replayNotify},
	{kind: "request", of: of(ledger.KindRequest), replay: replayCommand},
	{kind: "dispatch task", of: of(ledger.KindDispatchTask), replay: replayDispatchTask},
	{kind: "record task", of: of(ledger.KindRecordTask), replay: replayRecordTask},
	{kind: "withdraw task", of: of(ledger.KindWithdrawTask), replay: replayWithdrawTask},
	{kind: "close rows by replay", of: of(ledger.KindCloseRows), replay: replayCloseRows},
	{kind: "learn", of: of(ledger.KindLearn), replay: replayLearn},
	{kind: "learn return", of: of(ledger.KindProposeLessons, ledger.KindNoLessons, ledger.KindRefuseLessons), replay: replayLearnReturn},
	{kind: "lessons decided", of: of(ledger.KindLessonsMerged, ledger.KindLessonsDeclined), replay: replayProposalDecided},
}

// KindAccept is the kind of `loop: accept`, which makes the hand edits of
// its ledger before it legal.
const KindAccept = "accept"

// match finds the rule of a subject; nil for an unknown transition (and for
// an agent's result subject, which only a record transition admits).
func match(sub ledger.Subject) *rule {
	for i := range rules {
		if slices.Contains(rules[i].of, sub.Kind) {
			return &rules[i]
		}
	}
	return nil
}

// replayNow is the instant replays run at: the clock of the pass is not in
// the history, so what a replay stamps with it is recognisable and is
// taken from the child (borrowTimes).
var replayNow = time.Unix(1, 0).UTC()

// borrowTimes copies the child's instants into want where the replay set
// one (it ran at replayNow) and the child holds one.
func borrowTimes(want, parent, child *ledger.Ledger) {
	for _, at := range []func(*ledger.Delivery) *time.Time{
		func(d *ledger.Delivery) *time.Time { return &d.DispatchedAt },
		func(d *ledger.Delivery) *time.Time { return &d.HeadAt },
		func(d *ledger.Delivery) *time.Time { return &d.ReviewerAsked },
	} {
		if !at(want.Delivery).Equal(*at(parent.Delivery)) && !at(child.Delivery).IsZero() {
			*at(want.Delivery) = *at(child.Delivery)
		}
	}
}

func childHead(s *step) gatekeep.Head {
	return gatekeep.Head{SHA: s.child.Delivery.Head, Seen: s.child.Delivery.HeadAt, Asked: s.child.Delivery.ReviewerAsked}
}

func replaySeed(s *step) []outcome {
	ch := s.child
	if s.c.Spec == nil {
		// Without the spec only the shape of a fresh ledger is provable.
		if ch.Iterations != 0 || ch.Pending != nil || len(ch.Decisions) != 0 {
			return refuse(SectionHeader, "a seeded ledger has no iterations, no pending dispatch and no decisions")
		}
		for _, r := range ch.Rows {
			if r.Attempts != 0 || (r.Status != ledger.Open && r.Status != ledger.Cut) {
				return refuse(SectionRows, "seeded row %d is %s with %d attempts; a seed writes open or cut rows with 0 attempts", r.N, r.Status, r.Attempts)
			}
		}
		if o := seededTasks(s); o != nil {
			return o
		}
		return one(ch, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindSeedLedger}.String()})
	}
	bases := map[string]string{specs.HomeMember: ch.Base}
	for _, m := range ch.Members {
		bases[m.Name] = m.Base
	}
	// The chain position is an input of the seed (the control repository's
	// chains at the pass), read from the child and its trailer.
	want, c := ledger.Seed(ledger.SeedInput{Spec: s.c.Spec, SpecCommit: ch.Delivery.SpecCommit, Bases: bases, Allowance: ch.Allowance, Chain: ch.Delivery.Chain})
	if s.c.Spec.Allowance > 0 && ch.Allowance != s.c.Spec.Allowance {
		want.Allowance = s.c.Spec.Allowance
	}
	if o := seededTasks(s); o != nil {
		return o
	}
	want.Tasks = ch.Tasks
	return one(want, c)
}

func replayDispatch(s *step) []outcome {
	if s.parent.Pending != nil {
		return refuse(SectionHeader, "a dispatch (%s) is already outstanding", s.parent.Pending)
	}
	if s.child.Pending == nil {
		return refuse(SectionHeader, "the ledger records no pending: tuple")
	}
	target := s.sub.Row
	pd := s.child.Pending
	want, c := ledger.Dispatch(s.parent, ledger.Action{Target: target, Member: pd.Member, Model: s.parent.Delivery.Model}, pd.SHA, s.child.Delivery.DispatchedAt)
	return one(want, c)
}

// replayRecord rebuilds the return the record admits from what the child
// holds (the row line and the appended decision) and admits it on the
// parent: the contract checks of ledger.Admit are the proof.
func replayRecord(s *step) []outcome {
	p, ch := s.parent, s.child
	if p.Pending == nil {
		return refuse(SectionHeader, "no dispatch is outstanding to record")
	}
	if len(ch.Decisions) != len(p.Decisions)+1 {
		return refuse(SectionDecisions, "a record appends exactly one decision; %d became %d", len(p.Decisions), len(ch.Decisions))
	}
	d := ch.Decisions[len(ch.Decisions)-1]
	head := s.c.trailer(ledger.TrailerHead)
	var subject string
	var rows []string
	if p.Pending.Target == ledger.SeedTarget {
		subject = ledger.Subject{Kind: ledger.KindSeedEvidence}.String()
		for _, r := range p.MemberRows(p.Pending.Member) {
			if got, ok := ch.Row(r.N); ok && r.Status != ledger.Cut {
				rows = append(rows, got.Line())
			}
		}
	} else {
		r, ok := ch.Row(p.Pending.Target)
		if !ok {
			return refuse(SectionRows, "row %d is gone", p.Pending.Target)
		}
		subject = ledger.Subject{Kind: ledger.KindRowResult, Row: r.N, Status: r.Status}.String()
		rows = []string{r.Line()}
	}
	body := fmt.Sprintf("pending: %s\niteration: %d\n\n%s\n\n%s\n", p.Pending, p.Iterations, strings.Join(rows, "\n"), d.Line)
	var out []outcome
	for _, files := range []int{1, 0} {
		want, c, err := ledger.Admit(p, ledger.Return{SHA: head, Subject: subject, Body: body, ChangedFiles: files})
		if err != nil {
			return refuse(SectionRows, "the recorded return breaks the return contract: %v", err)
		}
		// What the return reported spending (its tokens:/cost: trailers)
		// lives in the target repository: the spend is taken from the
		// child, but only ever upwards from the parent's.
		if now, was := ch.Delivery.Spent, p.Delivery.Spent; now != was {
			if now.Tokens < was.Tokens || now.Micros < was.Micros {
				return refuse(SectionDelivery, "spent went from %q to %q; a record only adds what its return reported", was, now)
			}
			want.Delivery.Spent = now
		}
		out = append(out, outcome{l: want, c: &c})
	}
	return out
}

func replayRepair(s *step) []outcome {
	p := s.parent
	if p.Pending == nil {
		return replayReplayMiss(s)
	}
	r, ok := s.child.Row(p.Pending.Target)
	if !ok {
		return refuse(SectionRows, "row %d is gone", p.Pending.Target)
	}
	prefix := fmt.Sprintf("iteration %d: ", p.Iterations-1)
	miss, found := strings.CutPrefix(r.Evidence, prefix)
	if !found {
		return refuse(SectionRows, "a repair writes row %d's evidence as %q followed by the miss", r.N, prefix)
	}
	want, c, err := ledger.Repair(p, miss, s.c.trailer(ledger.TrailerHead))
	if err != nil {
		return refuse(SectionHeader, "%v", err)
	}
	return one(want, c)
}

// replayRequest performs the request the commit names in its
// Gallivant-Request trailer; the line must be in the parent's requests,
// so no person-less request can be performed.
func replayRequest(s *step) []outcome {
	line := s.c.trailer(ledger.TrailerRequest)
	if line == "" {
		return refuse(SectionTrailers, "it names no Gallivant-Request: a request transition performs a person's request line")
	}
	if !slices.Contains(s.parent.Requests, line) {
		return refuse(SectionRequests, "the request %q it performs is not in the parent's ## Requests", line)
	}
	r, err := ledger.ParseRequest(line)
	if err != nil {
		return refuse(SectionRequests, "the request %q is malformed: %v", line, err)
	}
	want, c, err := ledger.ApplyRequest(s.parent, r, replayNow)
	if err != nil {
		return refuse(SectionRequests, "%v", err)
	}
	borrowTimes(want, s.parent, s.child)
	return one(want, c)
}

// replayResume tells a performed request from the loop's own resume (a
// stop a person resolved elsewhere: the return arrived, GitHub reports no
// conflict), which clears the stop and nothing else.
func replayResume(s *step) []outcome {
	if s.c.trailer(ledger.TrailerRequest) != "" {
		return replayRequest(s)
	}
	want, c, err := ledger.Resumed(s.parent, "")
	if err != nil {
		return refuse(SectionDelivery, "%v", err)
	}
	return one(want, c)
}

func replayEscalate(s *step) []outcome {
	model := s.child.Delivery.Model
	if model == "" {
		return refuse(SectionDelivery, "an escalation records the escalation model")
	}
	want, c := ledger.Escalate(s.parent, s.sub.Row, model)
	return one(want, c)
}

func replayStop(s *step) []outcome {
	reason := s.sub.Reason
	if !reason.Known() {
		return refuse(SectionSubject, "%q is not a stop reason", reason)
	}
	got, detail, stopped := s.child.Stop()
	if !stopped || got != reason {
		return refuse(SectionDelivery, "the ledger records no %s stop", reason)
	}
	if reason == ledger.StopBoundary && s.child.Delivery.Head != s.parent.Delivery.Head && !s.parent.Delivery.PR.IsZero() {
		// gatekeep.Rewritten: a head that does not contain the attested
		// one is followed and stopped in one commit.
		w, c := gatekeep.Rewritten(s.parent, gatekeep.PR(s.parent.Delivery.PR), s.parent.Delivery.Head, childHead(s))
		w.Delivery.Stop = s.child.Delivery.Stop
		c.Text = ""
		return []outcome{{l: w, c: &c}}
	}
	want, c := ledger.Stop(s.parent, reason, detail, 0)
	if reason == ledger.StopStuck {
		// The fifth failure of a write stops the entry and keeps its count.
		want.Delivery.Retry = s.child.Delivery.Retry
	}
	c.Text = ""
	out := one(want, c)
	if reason == ledger.StopSeedRefused && s.parent.Pending != nil {
		// A refused seed return settles the dispatch as it stops
		// (ledger.Settle): the tuple and what belongs to it are cleared,
		// and the refused return is the commit's head.
		settled := s.parent.Clone()
		settled.Pending = nil
		settled.Delivery.DispatchedAt, settled.Delivery.Reruns, settled.Delivery.Model = time.Time{}, 0, ""
		w2, c2 := ledger.Stop(settled, reason, detail, 0)
		c2.Text = ""
		if h := s.c.trailer(ledger.TrailerHead); h != "" {
			c2.Trailers = append(c2.Trailers, ledger.Trailer{Key: ledger.TrailerHead, Value: h})
		}
		out = append(out, outcome{l: w2, c: &c2})
	}
	return out
}

func replayMigrate(s *step) []outcome {
	if s.parent.Cap == 0 || s.parent.Allowance != 0 {
		return refuse(SectionHeader, "the parent has no legacy cap: header to migrate")
	}
	want, c := ledger.MigrateAllowance(s.parent, s.child.Allowance)
	return one(want, c)
}

func replayAmend(s *step) []outcome {
	if s.c.Spec == nil || s.c.Approved == nil {
		return refuse(SectionLedger, "the approved and the edited spec are needed to replay an amendment and could not be read")
	}
	line := s.c.trailer(ledger.TrailerRequest)
	if !slices.Contains(s.parent.Requests, line) {
		return refuse(SectionRequests, "the resnapshot %q it performs is not in the parent's ## Requests", line)
	}
	r, err := ledger.ParseRequest(line)
	if err != nil {
		return refuse(SectionRequests, "the request %q is malformed: %v", line, err)
	}
	want, c, err := ledger.Amend(s.parent, s.c.Approved, s.c.Spec, s.child.Delivery.SpecCommit, r)
	if err != nil {
		return refuse(SectionRows, "%v", err)
	}
	return one(want, c)
}

func replayRerun(s *step) []outcome {
	if s.parent.Pending == nil {
		return refuse(SectionHeader, "no dispatch is outstanding to run again")
	}
	if s.parent.Delivery.Reruns >= ledger.MaxReruns {
		return refuse(SectionDelivery, "the dispatch already ran again %d time(s); the loop reruns at most %d", s.parent.Delivery.Reruns, ledger.MaxReruns)
	}
	want, c := ledger.Rerun(s.parent, s.child.Delivery.DispatchedAt)
	return one(want, c)
}

func replayVerify(s *step) []outcome {
	head := s.c.trailer(ledger.TrailerHead)
	v, ok := gatekeep.VerifiedAt(s.child)
	if !ok {
		return refuse(SectionDelivery, "the ledger records no verification")
	}
	var proofs []ledger.Proof
	for _, t := range s.c.Trailers() {
		if t.Key != ledger.TrailerProof {
			continue
		}
		p, _, err := ledger.ParseProof(t.Value)
		if err != nil {
			return refuse(SectionTrailers, "the evidence record %s: %v", t.Value, err)
		}
		if r, ok := s.parent.Row(p.Row); !ok || r.Status != ledger.Done || ledger.EvidenceCommand(r.Evidence) != p.Command || p.Head != head {
			return refuse(SectionTrailers, "the evidence record %s is not a run of a done row's evidence command on %s", t.Value, head)
		}
		if pp, ok := s.parent.ProofOf(p.Row); p.CarriedFrom != "" && (!ok || !pp.Proved() || pp.Ran() != p.CarriedFrom || !sameRun(pp, p)) {
			return refuse(SectionTrailers, "the evidence record %s carries a proof the parent does not hold: a passed run of the row on %.7s", t.Value, p.CarriedFrom)
		}
		proofs = append(proofs, p)
	}
	want, c := gatekeep.Verified(s.parent, head, v.Passed, v.Command, "", proofs)
	return one(want, c)
}

// sameRun reports whether two proofs record the same run of a command.
func sameRun(a, b ledger.Proof) bool {
	return a.Command == b.Command && a.Exit == b.Exit && a.Tests == b.Tests && a.Duration == b.Duration
}

func replayVerifyRepair(s *step) []outcome {
	if s.parent.Delivery.VerifyRepair != "" {
		return refuse(SectionDelivery, "the one verification repair was already dispatched")
	}
	want, c := gatekeep.VerifyRepairStarted(s.parent, s.c.trailer(ledger.TrailerHead), s.child.Delivery.DispatchedAt)
	return one(want, c)
}

// withPR parses the subject's pull request (its last submatch) and checks
// it is the entry's own before replaying.
func withPR(f func(s *step, p gatekeep.PR) []outcome) func(*step) []outcome {
	return func(s *step) []outcome {
		p, err := gatekeep.ParsePR(s.sub.PR.String(), "")
		if err != nil {
			return refuse(SectionSubject, "%v", err)
		}
		if own := s.parent.Delivery.PR; own != p.Ref() {
			return refuse(SectionSubject, "the subject names %s but the entry's pull request is %q", p, own)
		}
		return f(s, p)
	}
}

func replayOpen(s *step) []outcome {
	p, err := gatekeep.ParsePR(s.sub.PR.String(), "")
	if err != nil {
		return refuse(SectionSubject, "%v", err)
	}
	since := s.child.Delivery.Since
	want, c := gatekeep.Opened(s.parent, gatekeep.OpenInput{PR: p, Created: since.At, Head: childHead(s), ReceiptHash: s.child.Delivery.Receipt})
	return one(want, c)
}

func replayDone(s *step) []outcome {
	if s.sub.PR.IsZero() {
		want, c := gatekeep.NothingToDeliver(s.parent, "")
		return one(want, c)
	}
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		return one(gatekeep.Merged(s.parent, p, s.c.trailer(ledger.TrailerHead), ""))
	})(s)
}

func replayFollow(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		a, ac := gatekeep.Followed(s.parent, p, childHead(s))
		b, bc := gatekeep.Reentered(s.parent, p, childHead(s))
		return []outcome{{l: a, c: &ac}, {l: b, c: &bc}}
	})(s)
}

func replayUnready(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		h := childHead(s)
		a, ac := gatekeep.Unready(s.parent, p, "", "", nil)
		b, bc := gatekeep.Unready(s.parent, p, "", "", &h)
		return []outcome{{l: a, c: &ac}, {l: b, c: &bc}}
	})(s)
}

func replayAnnounced(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		w, arg, ok := gatekeep.Owed(s.parent)
		if !ok {
			return refuse(SectionDelivery, "no write was owed to announce")
		}
		return one(gatekeep.Announced(s.parent, p, w, arg))
	})(s)
}

// replayIgnore cannot rebuild the ignored feedback (it lives on GitHub):
// it proves that only the feedback cursor moved, forward, and `ignored:`.
// gallivant no longer writes `loop: ignore` (strangers cannot write
// history); the rule stays so that older histories still verify.
func replayIgnore(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		if o := cursorForward(s); o != nil {
			return o
		}
		want := s.parent.Clone()
		want.Delivery.Since, want.Delivery.Ignored = s.child.Delivery.Since, s.child.Delivery.Ignored
		return one(want, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindIgnore, PR: p.Ref()}.String(), Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: p.String()}}})
	})(s)
}

// cursorForward refuses a feedback cursor that moved back.
func cursorForward(s *step) []outcome {
	was, now := s.parent.Delivery.Since, s.child.Delivery.Since
	if now.At.Before(was.At) {
		return refuse(SectionDelivery, "the feedback cursor moved back from %s to %s", was.At.Format(time.RFC3339), now.At.Format(time.RFC3339))
	}
	return nil
}

// replayRound cannot rebuild the round's findings (they live on GitHub):
// it proves the round count rose by one to the subject's k and that only
// the cursors RoundStarted moves changed, the feedback cursor forward.
func replayRound(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		k := s.parent.Delivery.Round + 1
		if s.sub.Round != k {
			return refuse(SectionSubject, "the next round is %d, not %d", k, s.sub.Round)
		}
		if o := cursorForward(s); o != nil {
			return o
		}
		want := s.parent.Clone()
		w, c := want.Delivery, s.child.Delivery
		w.Since, w.RoundSince, w.Head, w.ChecksHead, w.Receipt, w.DispatchedAt = c.Since, c.RoundSince, c.Head, c.ChecksHead, c.Receipt, c.DispatchedAt
		want.Delivery.Round = k
		head := s.child.Delivery.Head
		return one(want, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindRound, Round: k, PR: p.Ref()}.String(), Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: p.String()}, {Key: ledger.TrailerHead, Value: head}}})
	})(s)
}

func replayWriteFailed(s *step) []outcome {
	r := s.child.Delivery.Retry
	msg := r.Err
	if r.IsZero() {
		return refuse(SectionDelivery, "the ledger records no failed write")
	}
	want, c := gatekeep.WriteFailed(s.parent, gatekeep.Write(s.sub.Write), "", msg)
	return one(want, c)
}

func replayWriteLanded(s *step) []outcome {
	want, c, ok := gatekeep.WriteLanded(s.parent, gatekeep.Write(s.sub.Write), "")
	if !ok {
		return refuse(SectionDelivery, "no failure of the %s write was counted", s.sub.Write)
	}
	return one(want, c)
}

// replayNotify proves a notification round changed only the notification
// keys (reconcile.Notify): deliveries, failed tries and given-up notes
// happen on the targets, not in the control repository.
func replayNotify(s *step) []outcome {
	want, c := ledger.Notified(s.parent, notifyAttempts(s.parent, s.child))
	return one(want, c)
}

// notifyAttempts reads what a notification round did from the two
// versions of the ledger: an owed notification the child still owes with
// one more try was retried; the one the child's `notify-failed:` newly
// names was given up with that error; every other one was delivered. The
// round's outcomes happen on the targets; the ledger records them so.
func notifyAttempts(parent, child *ledger.Ledger) []ledger.NotifyAttempt {
	still := child.OwedNotifications()
	gone, msg, gaveUp := ledger.GaveUp(child.Delivery.NotifyFailed)
	if child.Delivery.NotifyFailed == parent.Delivery.NotifyFailed {
		gaveUp = false
	}
	var out []ledger.NotifyAttempt
	for _, o := range parent.OwedNotifications() {
		a := ledger.NotifyAttempt{Owed: o, Fate: ledger.NotifyDelivered}
		next := o
		next.Tries++
		switch {
		case slices.Contains(still, next):
			a.Fate = ledger.NotifyRetried
		case gaveUp && gone == o:
			a.Fate, a.Err = ledger.NotifyGaveUp, msg
		}
		out = append(out, a)
	}
	return out
}
