package gatekeep

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// This file holds the pull-request phases' state changes as pure
// transitions, exactly as ledger holds the row loop's: each takes the
// ledger and plain observed values and returns the new ledger and its
// commit. The reconciler observes GitHub, performs the GitHub write a
// transition depends on, then commits what the transition returns.

// Write names a GitHub write whose consecutive failures are counted (R-14,
// Its name appears in `owed:` and `retry:` and in commit subjects.
type Write string

// Named writes.
const (
	WriteIdentity     Write = "identity"
	WriteReadyLabel   Write = "ready-label"
	WriteUnreadyLabel Write = "unready-label"
	WriteRoundComment Write = "round-comment"
	WriteReadyComment Write = "ready-comment"
	WriteNudge        Write = "nudge"
	WriteReopen       Write = "reopen"
	WriteUpdateBranch Write = "update-branch"
	WriteUndraft      Write = "ready-for-review"
)

// StuckAfter is how many consecutive failures of one named write stop an
// entry `stuck`: a constant, not a setting, so that a token that
// cannot write never loops forever and never stops on one bad minute.
const StuckAfter = 5

// Head is a pull-request head the loop starts watching: its SHA, when the
// loop first saw it, and when the reviewer counts as asked about it
// (ReviewerClock).
type Head struct {
	SHA   string
	Seen  time.Time
	Asked time.Time
}

func trailers(pr PR, head string) []ledger.Trailer {
	ts := []ledger.Trailer{{Key: ledger.TrailerPR, Value: pr.String()}}
	if head != "" {
		ts = append(ts, ledger.Trailer{Key: ledger.TrailerHead, Value: head})
	}
	return ts
}

// watch moves the head cursor to h and restarts the reviewer clock and the
// checks wait; the nudge is available again.
func watch(d *ledger.Delivery, h Head) {
	d.Head = h.SHA
	d.HeadAt = ledger.Stamp(h.Seen)
	d.ReviewerAsked = ledger.Stamp(h.Asked)
	d.Nudged = ""
}

// OpenInput is what recording a pull request needs.
type OpenInput struct {
	PR             PR
	Branch, Base   string
	Created        time.Time
	Head           Head
	ReceiptHash    string
	RecordedExists bool // the pull request existed already (a crash between creating and recording it)
}

// Opened records the entry's pull request (`loop: open pr`): phase review,
// the feedback cursor at its creation, the receipt hash, no rounds.
func Opened(l *ledger.Ledger, in OpenInput) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	d := n.Delivery
	d.Phase = ledger.PhaseReview
	d.PR = in.PR.Ref()
	d.Since = ledger.Cursor{At: ledger.Stamp(in.Created)}
	d.Receipt = in.ReceiptHash
	d.Round = 0
	d.Retry = ledger.WriteRetry{}
	watch(d, in.Head)
	verb := "Opened"
	if in.RecordedExists {
		verb = "Recorded the existing"
	}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindOpenPR, PR: in.PR.Ref()}.String(),
		Sentence: fmt.Sprintf("%s pull request %s from %s into %s with the identity block and the receipt.", verb, in.PR, in.Branch, in.Base),
		Trailers: trailers(in.PR, in.Head.SHA)}
}

// NothingToDeliver ends an entry whose rows are all closed but whose work
// branch holds no change against the base (or never existed, as when every
// row is cut): `loop: done` without a pull request, saying why. No pull
// request with zero changed files is ever opened, let alone labelled.
func NothingToDeliver(l *ledger.Ledger, why string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	d := n.Delivery
	d.Phase = ledger.PhaseDone
	d.Stop = ledger.StopRecord{}
	d.DispatchedAt = time.Time{}
	d.Owed = ledger.OwedWrite{}
	d.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindDone}.String(),
		Sentence: fmt.Sprintf("Nothing to deliver: %s, so no pull request was opened.", strings.TrimSuffix(why, "."))}
}

// NothingDelivered reports whether a done entry ended without a pull
// request (NothingToDeliver).
func NothingDelivered(l *ledger.Ledger) bool {
	if l.Phase() != ledger.PhaseDone || !l.Delivery.PR.IsZero() {
		return false
	}
	for _, m := range l.Delivery.Legs() {
		if !l.Delivery.PerMember[m].PR.IsZero() {
			return false
		}
	}
	return true
}

// Reentered puts an entry whose rows were reopened and closed again back in
// review of the pull request it already has (`loop: follow`), keeping its
// rounds and cursors so that no answered feedback counts as new again.
func Reentered(l *ledger.Ledger, pr PR, h Head) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Phase = ledger.PhaseReview
	n.Delivery.Retry = ledger.WriteRetry{}
	watch(n.Delivery, h)
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindFollow, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Every row is closed again; the loop watches %s again at %s.", pr, short(h.SHA)),
		Trailers: trailers(pr, h.SHA)}
}

// Followed follows a head the loop did not push: the head cursor
// moves and the reviewer clock restarts.
func Followed(l *ledger.Ledger, pr PR, h Head) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	watch(n.Delivery, h)
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindFollow, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("A push the loop did not make moved %s to %s; the reviewer clock restarts.", pr, short(h.SHA)),
		Trailers: trailers(pr, h.SHA)}
}

// Undrafted records that gallivant marked its draft pull request ready for
// review: the reviewer gets a fresh window on the head.
func Undrafted(l *ledger.Ledger, pr PR, h Head) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	watch(n.Delivery, h)
	n.Delivery.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindReadyForReview, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("%s was a draft; gallivant marked it ready for review at %s and the reviewer is asked again.", pr, short(h.SHA)),
		Trailers: trailers(pr, h.SHA)}
}

// BaseMerged records that gallivant merged the base into the work branch
// of a pull request that was behind it: a merge commit, never a
// rebase. The new head is gallivant's own push, so it is not "a person's
// push", yet the reviewer is asked about it again.
func BaseMerged(l *ledger.Ledger, pr PR, base string, h Head) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	watch(n.Delivery, h)
	n.Delivery.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindMergeBase, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("%s was behind %s; gallivant merged %s into its work branch as %s (a merge commit, no rewrite).", pr, base, base, short(h.SHA)),
		Trailers: trailers(pr, h.SHA)}
}

// Unready records leaving ready (`loop: unready`) once the label is gone;
// h is the new head when it moved, nil otherwise.
func Unready(l *ledger.Ledger, pr PR, label, why string, h *Head) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Phase = ledger.PhaseReview
	n.Delivery.Retry = ledger.WriteRetry{}
	head := l.Delivery.Head
	if h != nil {
		watch(n.Delivery, *h)
		head = h.SHA
	}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindUnready, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("%s left ready (label %s removed): %s.", pr, label, strings.TrimSuffix(why, ".")),
		Trailers: trailers(pr, head)}
}

// Ready records the ready label once it is written (`loop: ready`) and owes
// the ready notification.
func Ready(l *ledger.Ledger, pr PR, head, label string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Phase = ledger.PhaseReady
	n.Delivery.Retry = ledger.WriteRetry{}
	n.Delivery.Owed = ledger.OwedWrite{Write: string(WriteReadyComment), Arg: head}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindReady, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("%s passed the completion gate on %s and is labelled %s for a person to merge.", pr, short(head), label),
		Trailers: trailers(pr, head)}
}

// Owed parses the ledger's `owed:` value: the write and its argument.
func Owed(l *ledger.Ledger) (Write, string, bool) {
	o := l.Delivery.Owed
	if o.IsZero() {
		return "", "", false
	}
	return Write(o.Write), o.Arg, true
}

// Announced records that an owed comment landed and clears it.
func Announced(l *ledger.Ledger, pr PR, w Write, arg string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Owed = ledger.OwedWrite{}
	n.Delivery.Retry = ledger.WriteRetry{}
	c := ledger.Commit{Trailers: trailers(pr, "")}
	switch w {
	case WriteRoundComment:
		// arg is the round number the owed write recorded; ledger
		// validation keeps it a number.
		k, _ := strconv.Atoi(arg)
		c.Subject, c.Sentence = ledger.Subject{Kind: ledger.KindAnnounced, Write: ledger.WriteNameRoundComment, Round: k, PR: pr.Ref()}.String(), fmt.Sprintf("Round %s of %s was announced on the pull request.", arg, pr)
	case WriteReadyComment:
		c.Subject, c.Sentence = ledger.Subject{Kind: ledger.KindAnnounced, Write: ledger.WriteNameReadyComment, PR: pr.Ref()}.String(), fmt.Sprintf("The ready notification for %s was posted once.", pr)
	default:
		c.Subject, c.Sentence = ledger.Subject{Kind: ledger.KindAnnounced, Write: string(w), PR: pr.Ref()}.String(), fmt.Sprintf("An owed %s write gallivant does not know was dropped.", w)
	}
	return n, c
}

// ConflictFinding is what a conflict round answers: merge the
// base into the work branch, never rebase, and keep every criterion true.
func ConflictFinding(headRef, baseRef string) Finding {
	return Finding{Source: SourceConflict, Where: baseRef, New: true,
		Text: fmt.Sprintf("The work branch %s conflicts with %s. Merge %s into it (git merge, never a rebase), resolve every conflict so that each acceptance criterion still holds, and commit the merge.", headRef, baseRef, baseRef)}
}

// ConflictAnswered reports whether a conflict round was already dispatched
// for head (RoundStarted moves checks-head to it): a conflict still there on
// that head needs a person, and stops the entry `conflict`.
func ConflictAnswered(l *ledger.Ledger, head string) bool {
	return l.Delivery.ChecksHead == head
}

// RoundInput is what dispatching a fix round needs.
type RoundInput struct {
	PR        PR
	MaxRounds int
	Head      string
	Findings  []Finding
	// Receipt is the receipt hash the round starts from.
	Receipt string
	Now     time.Time
}

// RoundStarted records a review/fix round (`loop: round <k>`), the
// write-ahead record pushed before the executor starts: the head, checks
// and receipt cursors move, the round count rises and dispatched-at is
// set. The feedback cursor does not move past the feedback the round
// answers until its agent has had its say (RoundPushed, RoundEmpty):
// `round-since:` holds where it moves to, so that a round that is
// interrupted (RoundInterrupted) leaves that feedback unanswered and new.
// The commit body lists the findings by id and author, never their text.
// A round wanted past MaxRounds stops the entry `iterations` instead.
func RoundStarted(l *ledger.Ledger, in RoundInput) (*ledger.Ledger, ledger.Commit, error) {
	k := l.Delivery.Round + 1
	if k > in.MaxRounds {
		n, c := ledger.Stop(l, ledger.StopIterations, fmt.Sprintf("%s has new findings but %d rounds (defaults.max_rounds) are spent", in.PR, in.MaxRounds), 0)
		return n, c, nil
	}
	since := Since(l.Delivery.Since)
	cur := Cursors{Since: since, Head: l.Delivery.Head, ChecksHead: l.Delivery.ChecksHead, Receipt: l.Delivery.Receipt}
	m := MoveFor(in.Findings)
	m.Head = in.Head
	m.Receipt = in.Receipt
	for _, f := range in.Findings {
		// A round answers failing checks, or a conflict, on this head: if
		// they are still there on the same head afterwards, a person is
		// needed (checks-red, conflict).
		if f.Source == SourceCheck || f.Source == SourceConflict || f.Source == SourceReplay {
			m.ChecksHead = in.Head
		}
	}
	next, err := cur.Advance(m)
	if err != nil {
		return nil, ledger.Commit{}, err
	}
	n := l.Clone()
	d := n.Delivery
	if next.Since.String() != since.String() {
		d.RoundSince = ledger.Cursor(next.Since)
	}
	d.Head = next.Head
	d.ChecksHead = next.ChecksHead
	d.Receipt = next.Receipt
	d.Round = k
	d.DispatchedAt = ledger.Stamp(in.Now)
	var lines []string
	for _, f := range in.Findings {
		lines = append(lines, "- "+FindingLine(f))
	}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindRound, Round: k, PR: in.PR.Ref()}.String(),
		Sentence: fmt.Sprintf("Round %d of %d answers %s on %s.", k, in.MaxRounds, plural(len(in.Findings), "new finding", "new findings"), short(in.Head)),
		Text:     strings.Join(lines, "\n"),
		Trailers: trailers(in.PR, in.Head)}, nil
}

// FindingLine is a finding's one-line audit entry: its source, id and
// author, never its untrusted text.
func FindingLine(f Finding) string {
	clean := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	switch f.Source {
	case SourceCheck:
		return fmt.Sprintf("check %q %s", clean(f.Text), f.State)
	case SourceReview:
		return fmt.Sprintf("review %d by @%s (%s)", f.ID, f.Author, f.State)
	case SourceGate:
		return "completion gate " + f.Where
	case SourceConflict:
		return "conflict with " + clean(f.Where)
	case SourceReplay:
		return "evidence replay " + clean(f.Where)
	}
	return fmt.Sprintf("comment %d by @%s at %s", f.ID, f.Author, clean(f.Where))
}

// answered moves the feedback cursor past what the settled round answered.
func answered(d *ledger.Delivery) {
	if !d.RoundSince.IsZero() {
		d.Since = d.RoundSince
	}
	d.RoundSince = ledger.Cursor{}
}

// RoundPushed settles a round whose push was observed: the round counts,
// the feedback cursor moves past what it answered, the head cursor moves,
// the reviewer clock restarts and the round's announcement is owed.
func RoundPushed(l *ledger.Ledger, pr PR, h Head, commits int) (*ledger.Ledger, ledger.Commit) {
	k := l.Delivery.Round
	n := l.Clone()
	answered(n.Delivery)
	n.Delivery.DispatchedAt = time.Time{}
	n.Delivery.Owed = ledger.OwedWrite{Write: string(WriteRoundComment), Arg: strconv.Itoa(k)}
	watch(n.Delivery, h)
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindPushedRound, Round: k, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Round %d pushed %s to %s; its announcement is owed.", k, plural(commits, "commit", "commits"), short(h.SHA)),
		Trailers: trailers(pr, h.SHA)}
}

// RoundEmpty settles a round whose agent finished without a push:
// no round is charged, and the feedback it was given counts as answered.
func RoundEmpty(l *ledger.Ledger, pr PR) (*ledger.Ledger, ledger.Commit) {
	k := l.Delivery.Round
	n := l.Clone()
	answered(n.Delivery)
	n.Delivery.DispatchedAt = time.Time{}
	n.Delivery.Round = k - 1
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindEmptyRound, Round: k, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Round %d of %s ended without a push; no round is charged and the loop watches again.", k, pr),
		Trailers: trailers(pr, "")}
}

// RoundInterrupted settles a round whose dispatch is over with no outcome
// of its agent (killed, crashed, or failed and then resumed): no round is
// charged and the feedback cursor stays before the feedback it was to
// answer, so that feedback is new again and the next look runs the round
// again; no pull request is labelled ready past it.
func RoundInterrupted(l *ledger.Ledger, pr PR) (*ledger.Ledger, ledger.Commit) {
	k := l.Delivery.Round
	n := l.Clone()
	n.Delivery.RoundSince = ledger.Cursor{}
	n.Delivery.DispatchedAt = time.Time{}
	n.Delivery.Round = k - 1
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindEmptyRound, Round: k, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Round %d of %s ended without a push and without its agent's answer; no round is charged and its feedback is answered by the next round.", k, pr),
		Trailers: trailers(pr, "")}
}

// Nudged records the one nudge of the reviewer about a head.
func Nudged(l *ledger.Ledger, pr PR, reviewer, head string, asked time.Time) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Nudged = head
	n.Delivery.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindNudge, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Nudged @%s about %s once; the reviewer has been quiet since %s.", reviewer, short(head), asked.UTC().Format(time.RFC3339)),
		Trailers: trailers(pr, head)}
}

// Merged records a merge (`loop: done`). The caller has established that
// it is a merge of this entry's own head into its base (DoneCheck).
func Merged(l *ledger.Ledger, pr PR, mergeCommit, baseRef string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	d := n.Delivery
	d.Phase = ledger.PhaseDone
	if l.View == "" {
		// One leg's merge does not clear a coordinated entry's stop:
		// the stop is the entry's, and another leg may be its cause.
		d.Stop = ledger.StopRecord{}
	}
	d.DispatchedAt = time.Time{}
	d.RoundSince = ledger.Cursor{}
	d.Owed = ledger.OwedWrite{}
	d.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindDone, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("%s was merged into %s as %s.", pr, baseRef, short(mergeCommit)),
		Trailers: trailers(pr, mergeCommit)}
}

// Reopened records that a closed pull request was reopened after `resume`.
func Reopened(l *ledger.Ledger, pr PR) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Owed = ledger.OwedWrite{}
	n.Delivery.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindReopenPR, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("Reopened %s after a person's resume; the loop watches it again.", pr),
		Trailers: trailers(pr, "")}
}

// Replaced drops a closed pull request GitHub refused to reopen: the entry
// goes back to opening one (phase implement, rounds and cursors cleared),
// and the next step opens a new pull request from the same work branch.
func Replaced(l *ledger.Ledger, pr PR, why string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	d := n.Delivery
	// Everything about the refused pull request goes; the dispatch,
	// verification and ignored feedback stay.
	d.PullState = ledger.PullState{Phase: ledger.PhaseImplement, DispatchedAt: d.DispatchedAt, Verified: d.Verified,
		VerifyRepair: d.VerifyRepair, Ignored: d.Ignored}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindReplacePR, PR: pr.Ref()}.String(),
		Sentence: fmt.Sprintf("GitHub refused to reopen %s (%s); a new pull request is opened from the same work branch.", pr, strings.TrimSuffix(why, ".")),
		Trailers: trailers(pr, "")}
}

// Retry parses the `retry:` value: the write whose consecutive failures are
// counted and the count.
func Retry(l *ledger.Ledger) (Write, int) {
	r := l.Delivery.Retry
	return Write(r.Write), r.Count
}

// WriteFailed counts a failed named write: consecutive failures of
// the same write add up, another write starts its own count, and the
// StuckAfter-th stops the entry `stuck` naming the write and what GitHub
// said. msg is GitHub's answer, already redacted.
func WriteFailed(l *ledger.Ledger, w Write, what, msg string) (*ledger.Ledger, ledger.Commit) {
	msg = strings.Join(strings.Fields(msg), " ")
	count := 1
	if last, c := Retry(l); last == w {
		count = c + 1
	}
	value := ledger.WriteRetry{Write: string(w), Count: count, Err: msg}
	if count >= StuckAfter {
		n, c := ledger.Stop(l, ledger.StopStuck, fmt.Sprintf("the %s write for %s failed %d times in a row; GitHub said: %s", w, what, count, msg), 0)
		n.Delivery.Retry = value
		return n, c
	}
	n := l.Clone()
	n.Delivery.Retry = value
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindWriteFailed, Write: string(w)}.String(),
		Sentence: fmt.Sprintf("The %s write for %s failed (%d of %d before a stuck stop): %s.", w, what, count, StuckAfter, strings.TrimSuffix(msg, "."))}
}

// WriteLanded clears a named write's failure count once it lands; ok is
// false when nothing was counted for w, and then there is nothing to commit.
func WriteLanded(l *ledger.Ledger, w Write, what string) (*ledger.Ledger, ledger.Commit, bool) {
	if last, _ := Retry(l); last != w {
		return nil, ledger.Commit{}, false
	}
	n := l.Clone()
	n.Delivery.Retry = ledger.WriteRetry{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindWriteLanded, Write: string(w)}.String(),
		Sentence: fmt.Sprintf("The %s write for %s landed; its failure count is cleared.", w, what)}, true
}

// Resumed clears a pull-request stop that a person resolved on GitHub (a
// reopened pull request, a resolved conflict).
func Resumed(l *ledger.Ledger, pr PR, why string) (*ledger.Ledger, ledger.Commit) {
	n := l.Clone()
	n.Delivery.Stop = ledger.StopRecord{}
	return n, ledger.Commit{Subject: ledger.Subject{Kind: ledger.KindResume}.String(), Sentence: "Resumed: " + why + ".", Trailers: trailers(pr, "")}
}
