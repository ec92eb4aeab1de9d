package daemon

import (
	"strings"
	"time"
)

// DispatchFact is what a card says of an entry's outstanding dispatch:
// Term is the fact's name (running, returned, interrupted, dispatched)
// and Detail what is known of it.
type DispatchFact struct {
	Term, Detail string
}

// dispatchFact tells what became of e's outstanding dispatch, from the
// view (captured when the last pass ended) and what the daemon saw of its
// agent runs since: running is a run of the entry going now; ended the
// entry's last finished run, or nil. A run that ended after the view was
// captured has returned and waits for the next pass; a stopped entry's
// dispatch was interrupted. It returns nil without a dispatch.
func dispatchFact(e Entry, running []LiveRun, ended *LiveRun, captured, now time.Time) *DispatchFact {
	if e.Pending == "" {
		return nil
	}
	what := pendingText(e.Pending)
	switch {
	case e.Stop != nil:
		return &DispatchFact{Term: "interrupted", Detail: what + "; stopped before its return was admitted"}
	case len(running) > 0:
		r := running[0]
		return &DispatchFact{Term: "running", Detail: what + ": " + r.Task + ", started " + ago(now.Sub(r.Started))}
	case ended != nil && !ended.Ended.Before(captured):
		return &DispatchFact{Term: "returned", Detail: what + ": " + ended.Task + " ended " + ago(now.Sub(ended.Ended)) + "; the next pass admits or refuses it"}
	case !e.DispatchedAt.IsZero():
		return &DispatchFact{Term: "dispatched", Detail: what + ", " + ago(now.Sub(e.DispatchedAt))}
	}
	return &DispatchFact{Term: "dispatched", Detail: what}
}

// pendingText renders a ledger's pending `<target> | <member> | <sha>` as
// a person reads it: "row 2 of home, from abc1234".
func pendingText(s string) string {
	f := strings.Split(s, " | ")
	if len(f) != 3 {
		return s
	}
	what := "row " + f[0]
	if f[0] == "seed" {
		what = "the seed"
	}
	if len(f[2]) > 7 {
		f[2] = f[2][:7]
	}
	return what + " of " + f[1] + ", from " + f[2]
}

// withDispatch returns a copy of e with its dispatch fact as this server
// sees it now.
func (s *server) withDispatch(e Entry, captured time.Time) Entry {
	var ended *LiveRun
	if r, ok := s.Live.Ended(e.Spec); ok {
		ended = &r
	}
	e.Dispatch = dispatchFact(e, s.Live.Of(e.Spec), ended, captured, s.Now())
	return e
}
