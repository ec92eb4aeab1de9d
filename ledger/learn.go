package ledger

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file is the `learn:` line of a done entry's `## Delivery` section
// (docs/learning.md "The learn task"): where the entry's learn task stands,
// from its write-ahead dispatch to the lessons pull request on the control
// repository being merged or declined.

// KeyLearn is the `learn:` delivery key.
const KeyLearn = "learn"

// LearnState is the closed vocabulary of a learn task's states.
type LearnState string

// Learn states, in the order an entry goes through them.
const (
	// LearnDispatched: the learn task was dispatched at Learn.At; its
	// return is not admitted yet.
	LearnDispatched LearnState = "dispatched"
	// LearnNone: the task proposed nothing (no commit, or only candidates
	// people declined before). Final.
	LearnNone LearnState = "none"
	// LearnRefused: the return broke the learn contract and was refused;
	// nothing was proposed. The task is dispatched once more, its brief
	// quoting why, until it has had MaxLearnAttempts.
	LearnRefused LearnState = "refused"
	// LearnProposed: the lessons pull request Learn.PR is open on the
	// control repository with the candidates Learn.Candidates.
	LearnProposed LearnState = "proposed"
	// LearnMerged: a person merged the proposal. Final.
	LearnMerged LearnState = "merged"
	// LearnDeclined: a person closed the proposal unmerged; its
	// candidates are never proposed again. Final.
	LearnDeclined LearnState = "declined"
)

// Known reports whether s is a learn state.
func (s LearnState) Known() bool {
	switch s {
	case LearnDispatched, LearnNone, LearnRefused, LearnProposed, LearnMerged, LearnDeclined:
		return true
	}
	return false
}

// MaxLearnAttempts bounds the learn tasks of one entry: a refused return
// is dispatched once more, its brief quoting the refusal.
const MaxLearnAttempts = 2

// Learn is the `learn:` line: the state, when the task was dispatched
// (LearnDispatched only), which attempt it is (dispatched and refused;
// 1 unless written), the proposal on the control repository and the
// fingerprints of its candidate lessons (proposed, merged, declined).
type Learn struct {
	State      LearnState
	At         time.Time
	Attempt    int
	PR         PullRef
	Candidates []string
}

// Final reports whether nothing more happens to the learn task: it
// proposed nothing, a person decided its proposal, or its last attempt was
// refused.
func (l Learn) Final() bool {
	switch l.State {
	case LearnNone, LearnMerged, LearnDeclined:
		return true
	case LearnRefused:
		return l.Attempts() >= MaxLearnAttempts
	}
	return false
}

// Attempts is how many learn tasks the entry dispatched: Attempt, or 1
// when the line does not say.
func (l Learn) Attempts() int {
	if l.Attempt > 1 {
		return l.Attempt
	}
	return 1
}

// IsZero reports whether no learn task was ever dispatched.
func (l Learn) IsZero() bool { return l.State == "" }

// String renders the value as the `learn:` line holds it:
// `dispatched 2026-11-29T10:00:00Z`, `none`, `refused`, or `proposed
// acme/control#3 3fa85f6457c2 0a1b2c3d4e5f` (merged, declined alike); a
// second attempt's dispatch and refusal end in `attempt 2`.
func (l Learn) String() string {
	attempt := ""
	if l.Attempt > 1 {
		attempt = " attempt " + strconv.Itoa(l.Attempt)
	}
	switch l.State {
	case "":
		return ""
	case LearnDispatched:
		return string(l.State) + " " + TimeText(l.At) + attempt
	case LearnRefused:
		return string(l.State) + attempt
	case LearnProposed, LearnMerged, LearnDeclined:
		return strings.Join(append([]string{string(l.State), l.PR.String()}, l.Candidates...), " ")
	}
	return string(l.State)
}

// clone copies the candidate list.
func (l Learn) clone() Learn {
	l.Candidates = append([]string(nil), l.Candidates...)
	return l
}

// MaxLearnCandidates bounds the fingerprints one `learn:` line names.
const MaxLearnCandidates = 64

// ParseLearn reads a `learn:` value as Learn.String writes it.
func ParseLearn(v string) (Learn, error) {
	const want = "must be `dispatched <time> [attempt <n>]`, `none`, `refused [attempt <n>]`, or `proposed|merged|declined <owner/name>#<n> <fingerprint>...`, like `proposed acme/control#3 3fa85f6457c2`"
	f := strings.Fields(v)
	if len(f) == 0 {
		return Learn{}, fmt.Errorf("%s", want)
	}
	l := Learn{State: LearnState(f[0])}
	// attempt reads a trailing `attempt <n>`, 2 ≤ n ≤ MaxLearnAttempts,
	// off the fields after the first k.
	attempt := func(k int) error {
		switch len(f) {
		case k:
			return nil
		case k + 2:
			n, err := strconv.Atoi(f[k+1])
			if f[k] != "attempt" || err != nil || n < 2 || n > MaxLearnAttempts || f[k+1] != strconv.Itoa(n) {
				return fmt.Errorf("%s (attempt 2 to %d)", want, MaxLearnAttempts)
			}
			l.Attempt = n
			return nil
		}
		return fmt.Errorf("%s", want)
	}
	switch l.State {
	case LearnDispatched:
		if len(f) < 2 {
			return Learn{}, fmt.Errorf("%s", want)
		}
		t, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			return Learn{}, fmt.Errorf("%s: %q is not an RFC 3339 time", want, f[1])
		}
		l.At = Stamp(t)
		if err := attempt(2); err != nil {
			return Learn{}, err
		}
	case LearnRefused:
		if err := attempt(1); err != nil {
			return Learn{}, err
		}
	case LearnNone:
		if len(f) != 1 {
			return Learn{}, fmt.Errorf("%s", want)
		}
	case LearnProposed, LearnMerged, LearnDeclined:
		if len(f) < 2 || len(f)-2 > MaxLearnCandidates {
			return Learn{}, fmt.Errorf("%s (at most %d fingerprints)", want, MaxLearnCandidates)
		}
		pr, err := ParsePullRef(f[1])
		if err != nil {
			return Learn{}, fmt.Errorf("%s: %w", want, err)
		}
		l.PR = pr
		for _, fp := range f[2:] {
			if !isHex(fp, 12) {
				return Learn{}, fmt.Errorf("%s: %q is not a 12-character lowercase hex fingerprint", want, fp)
			}
			l.Candidates = append(l.Candidates, fp)
		}
	default:
		return Learn{}, fmt.Errorf("%s", want)
	}
	return l, nil
}
