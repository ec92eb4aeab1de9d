package ledger

import (
	"fmt"
	"strings"
)

// This file is the paused state a pull-request command sets
// (docs/requests.md): `/gallivant pause` writes `paused: @<login>
// <owner/name>#<n>` under `## Delivery`, and `/gallivant unpause` removes
// it. The person's spec is never rewritten; while the line is there the
// reconciler starts no dispatch and no review round for the entry.

// Pause is a parsed `paused:` value.
type Pause struct {
	Login string
	PR    PullRef
}

// IsZero reports whether no pause is recorded.
func (p Pause) IsZero() bool { return p.Login == "" && p.PR.IsZero() }

// String renders the value as the ledger writes it.
func (p Pause) String() string { return "@" + p.Login + " " + p.PR.String() }

// Describe is the pause as status and why say it: `paused by @bob from
// acme/api#3`.
func (p Pause) Describe() string { return fmt.Sprintf("paused by @%s from %s", p.Login, p.PR) }

// ParsePause reads a `paused:` value, `@<login> <owner/name>#<n>`.
func ParsePause(v string) (Pause, error) {
	f := strings.Fields(v)
	if len(f) != 2 || !strings.HasPrefix(f[0], "@") || !validLogin(f[0][1:]) {
		return Pause{}, fmt.Errorf("must be @<login> <owner/name>#<n>, like @bob acme/api#3")
	}
	pr, err := ParsePullRef(f[1])
	if err != nil {
		return Pause{}, fmt.Errorf("must be @<login> <owner/name>#<n>, like @bob acme/api#3: %w", err)
	}
	return Pause{Login: f[0][1:], PR: pr}, nil
}

// Paused reports whether a `/gallivant pause` holds the entry, and who
// paused it from where. A `paused:` value that does not parse makes the
// ledger invalid (its check reports it), so no pass runs the entry: a pause
// is never lifted by accident.
func (l *Ledger) Paused() (Pause, bool) {
	if l.Delivery == nil || l.Delivery.Paused.IsZero() {
		return Pause{}, false
	}
	return l.Delivery.Paused, true
}

// applyPause performs `pause` or `unpause` posted on the entry's pull
// request: pause is accepted when the entry is not paused, unpause when it
// is. Neither touches rows, stops or the pull request.
func applyPause(l *Ledger, r Request, from CommandOrigin) (*Ledger, Commit, error) {
	refuse := func(format string, args ...any) (*Ledger, Commit, error) {
		return nil, Commit{}, &Refusal{Request: r.Line, Reason: fmt.Sprintf(format, args...)}
	}
	if l.Phase() == PhaseDone {
		return refuse("the entry is done; there is nothing to %s", r.Kind)
	}
	cur, paused := l.Paused()
	n := l.Clone()
	c := Commit{}
	switch r.Kind {
	case RequestPause:
		if paused {
			return refuse("the entry is already %s", cur.Describe())
		}
		p := Pause{Login: from.Login, PR: from.PR}
		n.delivery().Paused = p
		c.Sentence = "Paused: no agent starts and no review round runs for this entry until `/gallivant unpause`; the pull request is left as it is."
	case RequestUnpause:
		if !paused {
			return refuse("the entry is not paused")
		}
		n.delivery().Paused = Pause{}
		c.Sentence = fmt.Sprintf("Unpaused (it was %s): dispatches and review rounds are due again.", cur.Describe())
	default:
		return refuse("%s is not pause or unpause", r.Kind)
	}
	if r.Text != "" {
		c.Sentence += " Reason: " + r.Text + "."
	}
	return n, c, nil
}
