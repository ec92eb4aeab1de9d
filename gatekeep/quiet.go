package gatekeep

import "time"

// ChecksFinal reports that the digest's checks can no longer change without
// a new head: they were read, every check on the head has completed, and
// every check the base branch's protection requires has reported. A pull
// request whose checks are not final must be read again every pass,
// because a check finishing moves neither its head nor its updated_at.
func ChecksFinal(d Digest) bool {
	if !d.ChecksKnown {
		return false
	}
	done := map[string]bool{}
	for _, c := range d.Checks {
		if c.Status != CheckCompleted {
			return false
		}
		done[c.Name] = true
	}
	for _, name := range d.Required {
		if !done[name] {
			return false
		}
	}
	return true
}

// SilenceNext is the earliest time at which SilenceDue could answer
// something other than Quiet for the same digest, reviewer clock and nudge
// record, or the zero time when it never will (no reviewer, never asked,
// or the reviewer already answered). Before that time, a pass that sees
// nothing new on GitHub has no reviewer rule due.
func SilenceNext(d Digest, reviewer string, asked time.Time, nudged string, rereview, stall time.Duration) time.Time {
	if reviewer == "" || asked.IsZero() || ReviewerClear(d.Reviews, reviewer, d.HeadSHA) || ReviewerSpoke(d, reviewer, asked) {
		return time.Time{}
	}
	next := asked.Add(stall)
	if nudged != d.HeadSHA {
		if n := asked.Add(rereview); n.Before(next) {
			next = n
		}
	}
	return next
}
