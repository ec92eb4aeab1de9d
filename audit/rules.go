package audit

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
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
// Adding a transition is adding a line to rules (and a test in
// rules_test.go): the lead merges other branches' new subjects here.
type rule struct {
	kind    string
	subject *regexp.Regexp
	// creates marks the one rule whose parent has no ledger.
	creates bool
	replay  func(s *step) []outcome
}

// step is what a replay reads.
type step struct {
	parent, child *ledger.Ledger
	c             *Change
	m             []string // the subject's submatches
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

const (
	num = `([1-9][0-9]*)`
	pr  = `(\S+#[1-9][0-9]*)`
)

func re(s string) *regexp.Regexp { return regexp.MustCompile(`^loop: ` + s + `$`) }

// rules is the table of known transitions, one line per commit subject
// (grammars.md section 7 and the code's subjects).
var rules = []rule{
	{kind: "seed ledger", subject: re(`seed ledger`), creates: true, replay: replaySeed},
	{kind: "dispatch", subject: re(`dispatch (seed|row ` + num + `)`), replay: replayDispatch},
	{kind: "record", subject: re(`record (\S+) (seed|row ` + num + `)`), replay: replayRecord},
	{kind: "repair", subject: re(`repair row ` + num), replay: replayRepair},
	{kind: "retry", subject: re(`retry row ` + num), replay: replayRequest},
	{kind: "raise allowance", subject: re(`raise allowance`), replay: replayRequest},
	{kind: "reopen row", subject: re(`reopen row ` + num), replay: replayRequest},
	{kind: "resume", subject: re(`resume`), replay: replayResume},
	{kind: "escalate", subject: re(`escalate row ` + num), replay: replayEscalate},
	{kind: "stop", subject: re(`stop (\S+)`), replay: replayStop},
	{kind: "migrate allowance", subject: re(`migrate allowance`), replay: replayMigrate},
	{kind: "amend", subject: re(`(amend|cut row ` + num + `)`), replay: replayAmend},
	{kind: "rerun", subject: re(`rerun (seed|row ` + num + `)`), replay: replayRerun},
	{kind: "verify", subject: re(`verify`), replay: replayVerify},
	{kind: "repair verification", subject: re(`repair verification`), replay: replayVerifyRepair},
	{kind: "open pr", subject: re(`open pr ` + pr), replay: replayOpen},
	{kind: "done", subject: re(`done( ` + pr + `)?`), replay: replayDone},
	{kind: "follow", subject: re(`follow ` + pr), replay: replayFollow},
	{kind: "ready for review", subject: re(`ready for review ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Undrafted(s.parent, p, childHead(s))) })},
	{kind: "merge base", subject: re(`merge base ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.BaseMerged(s.parent, p, "", childHead(s))) })},
	{kind: "unready", subject: re(`unready ` + pr), replay: replayUnready},
	{kind: "ready", subject: re(`ready ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		return one(gatekeep.Ready(s.parent, p, s.c.trailer(ledger.TrailerHead), ""))
	})},
	{kind: "announced", subject: re(`announced (.+) ` + pr), replay: replayAnnounced},
	{kind: "ignore", subject: re(`ignore ` + pr), replay: replayIgnore},
	{kind: "round", subject: re(`round ` + num + ` ` + pr), replay: replayRound},
	{kind: "pushed round", subject: re(`pushed round ` + num + ` ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.RoundPushed(s.parent, p, childHead(s), 0)) })},
	{kind: "empty round", subject: re(`empty round ` + num + ` ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		a, ac := gatekeep.RoundEmpty(s.parent, p)
		b, bc := gatekeep.RoundInterrupted(s.parent, p)
		return []outcome{{l: a, c: &ac}, {l: b, c: &bc}}
	})},
	{kind: "nudge", subject: re(`nudge ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome {
		return one(gatekeep.Nudged(s.parent, p, "", s.child.Delivery.Get(ledger.KeyNudged), time.Time{}))
	})},
	{kind: "reopen pr", subject: re(`reopen ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Reopened(s.parent, p)) })},
	{kind: "replace pr", subject: re(`replace pr ` + pr), replay: withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.Replaced(s.parent, p, "")) })},
	{kind: "write failed", subject: re(`write failed (\S+)`), replay: replayWriteFailed},
	{kind: "write landed", subject: re(`write landed (\S+)`), replay: replayWriteLanded},
	{kind: KindAccept, subject: re(`accept`), replay: replayRequest},
	{kind: "raise budget", subject: re(`raise budget`), replay: replayRequest},
	{kind: "notify", subject: re(`notify`), replay: replayNotify},
}

// KindAccept is the kind of `loop: accept`, which makes the hand edits of
// its ledger before it legal.
const KindAccept = "accept"

// match finds the rule of a subject; nil for an unknown transition.
func match(subject string) (*rule, []string) {
	for i := range rules {
		if m := rules[i].subject.FindStringSubmatch(subject); m != nil {
			return &rules[i], m
		}
	}
	return nil, nil
}

// Kinds lists the transition kinds the checker knows, in table order.
func Kinds() []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		if !slices.Contains(out, r.kind) {
			out = append(out, r.kind)
		}
	}
	return out
}

// borrow copies the child's value of each key into want: an input the
// control repository cannot know, which the transition wrote.
func borrow(want, child *ledger.Ledger, keys ...string) {
	for _, k := range keys {
		want.Delivery.Set(k, child.Delivery.Get(k))
	}
}

// borrowTimes copies the child's instants into want where the replay set
// one (it ran at the zero time) and the child holds a well-formed one.
func borrowTimes(want, parent, child *ledger.Ledger) {
	for _, k := range []string{ledger.KeyDispatchedAt, ledger.KeyHeadAt, ledger.KeyReviewerAsked} {
		if want.Delivery.Get(k) != parent.Delivery.Get(k) && !child.Delivery.Time(k).IsZero() {
			want.Delivery.Set(k, child.Delivery.Get(k))
		}
	}
}

func childTime(s *step, key string) time.Time { return s.child.Delivery.Time(key) }

func childHead(s *step) gatekeep.Head {
	return gatekeep.Head{SHA: s.child.Delivery.Get(ledger.KeyHead), Seen: childTime(s, ledger.KeyHeadAt), Asked: childTime(s, ledger.KeyReviewerAsked)}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

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
		return one(ch, ledger.Commit{Subject: "loop: seed ledger"})
	}
	bases := map[string]string{specs.HomeMember: ch.Base}
	for _, m := range ch.Members {
		bases[m.Name] = m.Base
	}
	want, c := ledger.Seed(ledger.SeedInput{Spec: s.c.Spec, SpecCommit: ch.Delivery.Get(ledger.KeySpecCommit), Bases: bases, Allowance: ch.Allowance})
	if s.c.Spec.Allowance > 0 && ch.Allowance != s.c.Spec.Allowance {
		want.Allowance = s.c.Spec.Allowance
	}
	borrow(want, ch, ledger.KeyChain)
	if v := ch.Delivery.Get(ledger.KeyChain); v != "" {
		c.Trailers = append(c.Trailers, ledger.Trailer{Key: ledger.TrailerChain, Value: v})
	}
	return one(want, c)
}

func replayDispatch(s *step) []outcome {
	if s.parent.Pending != nil {
		return refuse(SectionHeader, "a dispatch (%s) is already outstanding", s.parent.Pending)
	}
	if s.child.Pending == nil {
		return refuse(SectionHeader, "the ledger records no pending: tuple")
	}
	target := ledger.SeedTarget
	if s.m[2] != "" {
		target = atoi(s.m[2])
	}
	pd := s.child.Pending
	want, c := ledger.Dispatch(s.parent, ledger.Action{Target: target, Member: pd.Member, Model: s.parent.Delivery.Get(ledger.KeyModel)}, pd.SHA, childTime(s, ledger.KeyDispatchedAt))
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
		subject = "loop: seed evidence"
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
		subject = fmt.Sprintf("loop: row %d %s", r.N, r.Status)
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
		if spent := ch.Delivery.Get(ledger.KeySpent); spent != p.Delivery.Get(ledger.KeySpent) {
			was, _ := specs.ParseAmount(p.Delivery.Get(ledger.KeySpent))
			now, err := specs.ParseAmount(spent)
			if err != nil || now.Tokens < was.Tokens || now.Micros < was.Micros {
				return refuse(SectionDelivery, "spent went from %q to %q; a record only adds what its return reported", p.Delivery.Get(ledger.KeySpent), spent)
			}
			borrow(want, ch, ledger.KeySpent)
		}
		out = append(out, outcome{l: want, c: &c})
	}
	return out
}

func replayRepair(s *step) []outcome {
	p := s.parent
	if p.Pending == nil {
		return refuse(SectionHeader, "no dispatch is outstanding to repair")
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
	want, c, err := ledger.ApplyRequest(s.parent, r, time.Time{})
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
	if _, _, stopped := s.parent.Stop(); !stopped {
		return refuse(SectionDelivery, "the entry is not stopped")
	}
	want := s.parent.Clone()
	want.Delivery.Set(ledger.KeyStop, "")
	return one(want, ledger.Commit{Subject: "loop: resume"})
}

func replayEscalate(s *step) []outcome {
	model := s.child.Delivery.Get(ledger.KeyModel)
	if model == "" {
		return refuse(SectionDelivery, "an escalation records the escalation model")
	}
	want, c := ledger.Escalate(s.parent, atoi(s.m[1]), model)
	return one(want, c)
}

func replayStop(s *step) []outcome {
	reason := ledger.StopReason(s.m[1])
	if !reason.Known() {
		return refuse(SectionSubject, "%q is not a stop reason", reason)
	}
	got, detail, stopped := s.child.Stop()
	if !stopped || got != reason {
		return refuse(SectionDelivery, "the ledger records no %s stop", reason)
	}
	if reason == ledger.StopBoundary && s.child.Delivery.Get(ledger.KeyHead) != s.parent.Delivery.Get(ledger.KeyHead) && s.parent.Delivery.Get(ledger.KeyPR) != "" {
		// gatekeep.Rewritten: a head that does not contain the attested
		// one is followed and stopped in one commit.
		p, err := gatekeep.ParsePR(s.parent.Delivery.Get(ledger.KeyPR), "")
		if err != nil {
			return refuse(SectionDelivery, "pr: %v", err)
		}
		w, c := gatekeep.Rewritten(s.parent, p, s.parent.Delivery.Get(ledger.KeyHead), childHead(s))
		w.Delivery.Set(ledger.KeyStop, s.child.Delivery.Get(ledger.KeyStop))
		c.Text = ""
		return []outcome{{l: w, c: &c}}
	}
	want, c := ledger.Stop(s.parent, reason, detail, 0)
	if reason == ledger.StopStuck {
		// The fifth failure of a write stops the entry and keeps its count.
		borrow(want, s.child, ledger.KeyRetry)
	}
	c.Text = ""
	out := one(want, c)
	if reason == ledger.StopSeedRefused && s.parent.Pending != nil {
		// A refused seed return settles the dispatch as it stops
		// (ledger.Settle): the tuple and what belongs to it are cleared,
		// and the refused return is the commit's head.
		settled := s.parent.Clone()
		settled.Pending = nil
		for _, k := range []string{ledger.KeyDispatchedAt, ledger.KeyReruns, ledger.KeyModel} {
			settled.Delivery.Set(k, "")
		}
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
	want, c, err := ledger.Amend(s.parent, s.c.Approved, s.c.Spec, s.child.Delivery.Get(ledger.KeySpecCommit), r)
	if err != nil {
		return refuse(SectionRows, "%v", err)
	}
	return one(want, c)
}

func replayRerun(s *step) []outcome {
	if s.parent.Pending == nil {
		return refuse(SectionHeader, "no dispatch is outstanding to run again")
	}
	if s.parent.Delivery.Int(ledger.KeyReruns) >= ledger.MaxReruns {
		return refuse(SectionDelivery, "the dispatch already ran again %d time(s); the loop reruns at most %d", s.parent.Delivery.Int(ledger.KeyReruns), ledger.MaxReruns)
	}
	want, c := ledger.Rerun(s.parent, childTime(s, ledger.KeyDispatchedAt))
	return one(want, c)
}

func replayVerify(s *step) []outcome {
	head := s.c.trailer(ledger.TrailerHead)
	v, ok := gatekeep.VerifiedAt(s.child)
	if !ok {
		return refuse(SectionDelivery, "the ledger records no verification")
	}
	want, c := gatekeep.Verified(s.parent, head, v.Passed, v.Command, "")
	return one(want, c)
}

func replayVerifyRepair(s *step) []outcome {
	if s.parent.Delivery.Get(ledger.KeyVerifyRepair) != "" {
		return refuse(SectionDelivery, "the one verification repair was already dispatched")
	}
	want, c := gatekeep.VerifyRepairStarted(s.parent, s.c.trailer(ledger.TrailerHead), childTime(s, ledger.KeyDispatchedAt))
	return one(want, c)
}

// withPR parses the subject's pull request (its last submatch) and checks
// it is the entry's own before replaying.
func withPR(f func(s *step, p gatekeep.PR) []outcome) func(*step) []outcome {
	return func(s *step) []outcome {
		p, err := gatekeep.ParsePR(s.m[len(s.m)-1], "")
		if err != nil {
			return refuse(SectionSubject, "%v", err)
		}
		if own := s.parent.Delivery.Get(ledger.KeyPR); own != p.String() {
			return refuse(SectionSubject, "the subject names %s but the entry's pull request is %q", p, own)
		}
		return f(s, p)
	}
}

func replayOpen(s *step) []outcome {
	p, err := gatekeep.ParsePR(s.m[1], "")
	if err != nil {
		return refuse(SectionSubject, "%v", err)
	}
	since, err := gatekeep.ParseSince(s.child.Delivery.Get(ledger.KeySince))
	if err != nil {
		return refuse(SectionDelivery, "since: %v", err)
	}
	want, c := gatekeep.Opened(s.parent, gatekeep.OpenInput{PR: p, Created: since.At, Head: childHead(s), ReceiptHash: s.child.Delivery.Get(ledger.KeyReceipt)})
	return one(want, c)
}

func replayDone(s *step) []outcome {
	if s.m[2] == "" {
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
func replayIgnore(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		if o := cursorForward(s); o != nil {
			return o
		}
		want := s.parent.Clone()
		borrow(want, s.child, ledger.KeySince, ledger.KeyIgnored)
		return one(want, ledger.Commit{Subject: "loop: ignore " + p.String(), Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: p.String()}}})
	})(s)
}

// cursorForward refuses a feedback cursor that moved back.
func cursorForward(s *step) []outcome {
	was, err1 := gatekeep.ParseSince(s.parent.Delivery.Get(ledger.KeySince))
	now, err2 := gatekeep.ParseSince(s.child.Delivery.Get(ledger.KeySince))
	if err1 == nil && err2 == nil && now.At.Before(was.At) {
		return refuse(SectionDelivery, "the feedback cursor moved back from %s to %s", was.At.Format(time.RFC3339), now.At.Format(time.RFC3339))
	}
	if err2 != nil {
		return refuse(SectionDelivery, "since: %v", err2)
	}
	return nil
}

// replayRound cannot rebuild the round's findings (they live on GitHub):
// it proves the round count rose by one to the subject's k and that only
// the cursors RoundStarted moves changed, the feedback cursor forward.
func replayRound(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		k := s.parent.Delivery.Int(ledger.KeyRound) + 1
		if atoi(s.m[1]) != k {
			return refuse(SectionSubject, "the next round is %d, not %s", k, s.m[1])
		}
		if o := cursorForward(s); o != nil {
			return o
		}
		want := s.parent.Clone()
		borrow(want, s.child, ledger.KeySince, ledger.KeyRoundSince, ledger.KeyHead, ledger.KeyChecksHead, ledger.KeyReceipt, ledger.KeyDispatchedAt)
		want.Delivery.SetInt(ledger.KeyRound, k)
		head := s.child.Delivery.Get(ledger.KeyHead)
		return one(want, ledger.Commit{Subject: fmt.Sprintf("loop: round %d %s", k, p), Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: p.String()}, {Key: ledger.TrailerHead, Value: head}}})
	})(s)
}

func replayWriteFailed(s *step) []outcome {
	_, msg, ok := strings.Cut(s.child.Delivery.Get(ledger.KeyRetry), " | ")
	if !ok {
		return refuse(SectionDelivery, "the ledger records no failed write")
	}
	want, c := gatekeep.WriteFailed(s.parent, gatekeep.Write(s.m[1]), "", msg)
	return one(want, c)
}

func replayWriteLanded(s *step) []outcome {
	want, c, ok := gatekeep.WriteLanded(s.parent, gatekeep.Write(s.m[1]), "")
	if !ok {
		return refuse(SectionDelivery, "no failure of the %s write was counted", s.m[1])
	}
	return one(want, c)
}

// replayNotify proves a notification round changed only the notification
// keys (reconcile.Notify): deliveries, failed tries and given-up notes
// happen on the targets, not in the control repository.
func replayNotify(s *step) []outcome {
	want := s.parent.Clone()
	borrow(want, s.child, ledger.KeyNotify, ledger.KeyNotifyFailed)
	return []outcome{{l: want}}
}
