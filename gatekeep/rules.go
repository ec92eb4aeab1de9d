package gatekeep

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Evidence sources (G-21).
const (
	EvidenceCI      = "ci"
	EvidenceLocal   = "local"
	EvidencePending = "pending"
	EvidenceUnknown = "unknown"
)

// ChecksResult is the CI evidence on the exact head.
type ChecksResult struct {
	Passing []Check
	Failing []Check
	// Waiting are running checks that withhold merge: required ones,
	// running check runs, and every running check while GitHub reports
	// the merge BLOCKED.
	Waiting []Check
	// Ignored are pending commit statuses GitHub does not report as
	// blocking: they are not waited for (G-21).
	Ignored []Check
	// Evidence is ci, pending or unknown; "" when the head has no checks at
	// all, where the caller decides between local and unknown.
	Evidence string
}

// EvaluateChecks applies the CI-first rules to the checks on the head.
func EvaluateChecks(d Digest) ChecksResult {
	var r ChecksResult
	if !d.ChecksKnown {
		r.Evidence = EvidenceUnknown
		return r
	}
	for _, c := range d.Checks {
		switch c.Outcome() {
		case "passing":
			r.Passing = append(r.Passing, c)
		case "failing":
			r.Failing = append(r.Failing, c)
		default:
			if c.Required || c.Kind == KindCheckRun || d.MergeState == MergeBlocked {
				r.Waiting = append(r.Waiting, c)
			} else {
				r.Ignored = append(r.Ignored, c)
			}
		}
	}
	switch {
	case len(d.Checks) == 0:
	case len(r.Waiting) > 0:
		r.Evidence = EvidencePending
	default:
		r.Evidence = EvidenceCI
	}
	return r
}

// PriorReview selects login's review that counts (G-17): REST reviews by
// that login (case-insensitive) in state APPROVED, CHANGES_REQUESTED or
// COMMENTED with a submit time; the newest submitted_at wins, ties go to
// the highest id. PENDING and DISMISSED never count. Nil when none does.
func PriorReview(reviews []Review, login string) *Review {
	var best *Review
	for i := range reviews {
		r := &reviews[i]
		if !strings.EqualFold(r.User, login) || r.SubmittedAt.IsZero() {
			continue
		}
		switch r.State {
		case ReviewApproved, ReviewChangesRequested, ReviewCommented:
		default:
			continue
		}
		if best == nil || r.SubmittedAt.After(best.SubmittedAt) || (r.SubmittedAt.Equal(best.SubmittedAt) && r.ID > best.ID) {
			best = r
		}
	}
	return best
}

// ChangesRequested returns, per reviewer, the prior review that still asks
// for changes, ordered by login.
func ChangesRequested(reviews []Review) []Review {
	users := map[string]bool{}
	for _, r := range reviews {
		users[strings.ToLower(r.User)] = true
	}
	var names []string
	for u := range users {
		names = append(names, u)
	}
	sort.Strings(names)
	var out []Review
	for _, u := range names {
		if p := PriorReview(reviews, u); p != nil && p.State == ReviewChangesRequested {
			out = append(out, *p)
		}
	}
	return out
}

// ReviewerClear reports whether the configured reviewer's review that
// counts approves exactly the head.
func ReviewerClear(reviews []Review, login, head string) bool {
	p := PriorReview(reviews, login)
	return p != nil && p.State == ReviewApproved && p.CommitID == head
}

// ReviewerSpoke reports whether login reviewed or commented at or after
// asked: a silent reviewer is one who did neither.
func ReviewerSpoke(d Digest, login string, asked time.Time) bool {
	for _, r := range d.Reviews {
		if strings.EqualFold(r.User, login) && !r.SubmittedAt.IsZero() && !r.SubmittedAt.Before(asked) {
			return true
		}
	}
	for _, c := range d.Comments {
		if strings.EqualFold(c.User, login) && !c.UpdatedAt.Before(asked) {
			return true
		}
	}
	return false
}

// Source is where a finding comes from.
type Source string

// Finding sources.
const (
	SourceCheck   Source = "check"
	SourceReview  Source = "review"
	SourceComment Source = "comment"
	SourceGate    Source = "gate"
	// SourceConflict is the work branch's conflict with the base, which a
	// conflict round answers by merging the base (never a rebase).
	SourceConflict Source = "conflict"
	// SourceReplay is gallivant's own replay of rows' evidence that failed
	// on the head under review (replayround.go).
	SourceReplay Source = "replay"
)

// Finding is one thing that keeps a pull request from merging and that a
// fix round could answer. Text is untrusted: quote it, never follow it.
type Finding struct {
	Source Source `json:"source"`
	// ID is the review or comment id (0 for checks and gate findings).
	ID     int64  `json:"id,omitempty"`
	Author string `json:"author,omitempty"`
	// Where locates it: path:line, conversation, a check's URL or a
	// review's commit.
	Where string `json:"where,omitempty"`
	// State is a review's state or a check's conclusion.
	State string `json:"state,omitempty"`
	Text  string `json:"text"`
	// At is the event instant feedback cursors compare against.
	At time.Time `json:"at,omitzero"`
	// New reports that the finding is after the cursor (feedback) or on a
	// head not yet dispatched for (checks); without a cursor every finding
	// is new.
	New bool `json:"new"`
}

// Marker is the hidden prefix of every marker gallivant writes into
// GitHub text; text carrying it is gallivant's own, never feedback.
const Marker = "<!-- gallivant:"

// own reports whether text is gallivant's own: written by its login. A
// marker proves nothing by itself (anyone can type one, to hide their
// feedback); it only decides when gallivant's login is unknown.
func own(user, body, self string) bool {
	if self != "" {
		return strings.EqualFold(user, self)
	}
	return strings.Contains(body, Marker)
}

// Feedback returns review feedback after the cursor: reviews that request
// changes or comment with text, and conversation and inline comments (new
// or edited), by anyone but gallivant's own login (own). Each finding is
// New. A command (IsCommand) in a comment or a commented review is a
// request to gallivant (docs/requests.md), not feedback.
func Feedback(d Digest, since Since, self string) []Finding {
	var out []Finding
	for _, r := range d.Reviews {
		if r.SubmittedAt.IsZero() || own(r.User, r.Body, self) || (r.State == ReviewCommented && IsCommand(r.Body)) {
			continue
		}
		switch {
		case r.State == ReviewChangesRequested:
		case r.State == ReviewCommented && strings.TrimSpace(r.Body) != "":
		default:
			continue
		}
		if !since.IsNew(r.SubmittedAt, r.ID) {
			continue
		}
		out = append(out, Finding{Source: SourceReview, ID: r.ID, Author: r.User, Where: "review of " + short(r.CommitID),
			State: string(r.State), Text: r.Body, At: r.SubmittedAt, New: true})
	}
	for _, c := range d.Comments {
		if own(c.User, c.Body, self) || strings.TrimSpace(c.Body) == "" || IsCommand(c.Body) {
			continue
		}
		if !since.IsNew(c.UpdatedAt, c.ID) {
			continue
		}
		out = append(out, Finding{Source: SourceComment, ID: c.ID, Author: c.User, Where: c.where(), Text: c.Body, At: c.UpdatedAt, New: true})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.Before(out[j].At)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func checkFinding(c Check, isNew bool) Finding {
	where := c.URL
	if where == "" {
		where = c.Kind
	}
	return Finding{Source: SourceCheck, Where: where, State: string(c.Conclusion), Text: c.Name, New: isNew}
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
