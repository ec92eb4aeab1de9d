package gatekeep

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Since is the feedback cursor: events at or after At are new,
// except those whose ids are listed, which were already dispatched at
// exactly that second. GitHub timestamps only to the second, so the cursor
// is inclusive and the ids break the tie.
type Since struct {
	At  time.Time
	IDs []int64
}

// String renders the cursor as the ledger stores it; "" for the zero cursor.
func (s Since) String() string {
	if s.At.IsZero() {
		return ""
	}
	parts := []string{s.At.UTC().Format(time.RFC3339)}
	for _, id := range s.IDs {
		parts = append(parts, strconv.FormatInt(id, 10))
	}
	return strings.Join(parts, " ")
}

// IsNew reports whether an event at `at` with `id` is after the cursor.
func (s Since) IsNew(at time.Time, id int64) bool {
	at = at.Truncate(time.Second)
	cur := s.At.Truncate(time.Second)
	if at.After(cur) {
		return true
	}
	return at.Equal(cur) && !slices.Contains(s.IDs, id)
}

// FetchFrom is the instant to ask GitHub for events from: one second before
// the cursor, so the boundary second comes back whatever GitHub's own
// filter does. Zero for the zero cursor.
func (s Since) FetchFrom() time.Time {
	if s.At.IsZero() {
		return time.Time{}
	}
	return s.At.Add(-time.Second)
}

// Cursors are the four monotonic cursors of a pull request's loop:
// the feedback cursor, the head the loop last acted on, the head whose
// failing checks were dispatched, and the receipt hash when the last round
// started.
type Cursors struct {
	Since      Since
	Head       string
	ChecksHead string
	Receipt    string
}

// Move is a candidate advance: each set field is a candidate for its
// cursor; unset fields leave theirs alone.
type Move struct {
	// SinceAt and SinceIDs are the newest dispatched event's instant and
	// every id dispatched at exactly that instant.
	SinceAt    time.Time
	SinceIDs   []int64
	Head       string
	ChecksHead string
	Receipt    string
}

// ErrBackwards reports a candidate that would move a cursor backwards.
var ErrBackwards = errors.New("a cursor never moves backwards")

// Advance is the one function that moves cursors. A candidate
// earlier than the feedback cursor is refused outright, ids and all; at the
// same second the dispatched ids accumulate; at a later second they are
// replaced. A head, checks head or receipt cursor is never cleared.
func (c Cursors) Advance(m Move) (Cursors, error) {
	out := c
	out.Since.IDs = slices.Clone(c.Since.IDs)
	if !m.SinceAt.IsZero() {
		at := m.SinceAt.UTC().Truncate(time.Second)
		cur := c.Since.At.UTC().Truncate(time.Second)
		switch {
		case !c.Since.At.IsZero() && at.Before(cur):
			return c, fmt.Errorf("%w: since %s is earlier than %s", ErrBackwards, at.Format(time.RFC3339), cur.Format(time.RFC3339))
		case at.Equal(cur):
			for _, id := range m.SinceIDs {
				if !slices.Contains(out.Since.IDs, id) {
					out.Since.IDs = append(out.Since.IDs, id)
				}
			}
		default:
			out.Since = Since{At: at, IDs: slices.Clone(m.SinceIDs)}
		}
		slices.Sort(out.Since.IDs)
	}
	if m.Head != "" {
		out.Head = m.Head
	}
	if m.ChecksHead != "" {
		out.ChecksHead = m.ChecksHead
	}
	if m.Receipt != "" {
		out.Receipt = m.Receipt
	}
	return out, nil
}

// MoveFor is the feedback candidate for dispatching findings: the newest
// event instant among them and the ids at exactly that instant. Findings
// without an event time (failing checks) do not move the cursor.
func MoveFor(fs []Finding) Move {
	var m Move
	for _, f := range fs {
		if f.At.IsZero() || f.ID == 0 {
			continue
		}
		at := f.At.UTC().Truncate(time.Second)
		switch {
		case at.After(m.SinceAt):
			m.SinceAt, m.SinceIDs = at, []int64{f.ID}
		case at.Equal(m.SinceAt):
			m.SinceIDs = append(m.SinceIDs, f.ID)
		}
	}
	return m
}

// Silence is what the reviewer clock asks for.
type Silence int

// Reviewer-clock outcomes.
const (
	Quiet Silence = iota // nothing is due
	Nudge                // nudge the reviewer once about this head
	Stall                // stop reviewer-silent
)

// SilenceDue applies the reviewer clock: with a reviewer configured
// who has not cleared the head and has neither reviewed nor commented since
// asked, one nudge per head once rereview has passed, a stall after stall.
func SilenceDue(d Digest, reviewer string, asked time.Time, nudged string, now time.Time, rereview, stall time.Duration) Silence {
	if reviewer == "" || asked.IsZero() || ReviewerClear(d.Reviews, reviewer, d.HeadSHA) || ReviewerSpoke(d, reviewer, asked) {
		return Quiet
	}
	switch quiet := now.Sub(asked); {
	case quiet >= stall:
		return Stall
	case quiet > rereview && nudged != d.HeadSHA:
		// Strictly after: a clock floored at now − rereview does
		// not nudge in the pass that set it.
		return Nudge
	}
	return Quiet
}

// ReviewerClock is when the reviewer counts as asked about a head:
// the head commit's committer date, floored at now − rereview, so a commit
// made long before it was pushed cannot make the reviewer look silent.
func ReviewerClock(committed, now time.Time, rereview time.Duration) time.Time {
	floor := now.Add(-rereview)
	if committed.IsZero() || committed.Before(floor) {
		return floor.UTC().Truncate(time.Second)
	}
	if committed.After(now) {
		return now.UTC().Truncate(time.Second)
	}
	return committed.UTC().Truncate(time.Second)
}
