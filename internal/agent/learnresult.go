package agent

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gallivant/gallivant/lessons"
)

// LearnNone is a learn task's status when no lesson generalises: the
// preset commits nothing, which admission records as no lessons.
const LearnNone = "none"

// learnResultExample is an accepted result of a learn task's dispatch.
const learnResultExample = "status: done / decision: added a lesson on rounding before tax | a person reviews the proposal"

// ParseLearnResult reads the result of a learn task's dispatch
// (docs/agents.md "The result"): `status: done` when the agent changed the
// lessons file, `status: none` when no lesson generalises, and a decision
// `<what happened> | <next step or blocker>`, whose first part becomes the
// return commit's body. Nothing else: no evidence, no row lines. Lines are
// read as ParseResult reads them, and every refusal names the line and
// gives an accepted example. It never panics.
func ParseLearnResult(data []byte) (Result, error) {
	r, err := readResultLines(data, true)
	if err != nil {
		return Result{}, err
	}
	if err := statusAndDecision(r, "done (you changed the lessons file) or none (no lesson generalises)", learnResultExample); err != nil {
		return Result{}, err
	}
	return r, nil
}

// ResultError is a result a preset's agent gave that gallivant cannot
// complete into a return: the result does not parse, or it contradicts what
// the agent left in the checkout. Source names where the result was read
// (the result file or the agent's final message); Err is the precise,
// positioned reason, which the pass may quote to the agent (a learn task's
// refusal is quoted in its next brief).
type ResultError struct {
	Source string
	Err    error
}

func (e *ResultError) Error() string { return e.Source + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *ResultError) Unwrap() error { return e.Err }

// AsResultError reports the ResultError err wraps, if any.
func AsResultError(err error) (*ResultError, bool) {
	var re *ResultError
	ok := errors.As(err, &re)
	return re, ok
}

// learnFileRE finds the lessons file a learn brief names in its header
// (gatekeep.LearnBrief): `lessons: lessons/<owner>/<name>.md`.
var learnFileRE = regexp.MustCompile(`(?m)^lessons: (\S+)$`)

// LearnMessage builds the return commit message of learn task t from its
// result r and whether the agent changed the checkout (changed: uncommitted
// changes or commits of its own): for done and a change, `Propose lessons
// for <owner>/<name>`, the decision's first part (one line, at most 200
// characters), then trailers; ok is false for none and no change, where the
// return is no commit. A done without a change, a none with one, or a brief
// without its lessons: line is an error.
func (r Result) LearnMessage(t Task, changed bool, trailers []string) (msg string, ok bool, err error) {
	m := learnFileRE.FindStringSubmatch(t.Brief)
	if m == nil {
		return "", false, fmt.Errorf("the learn brief has no `lessons: <file>` line to answer")
	}
	repo, valid := lessons.RepoOf(m[1])
	if !valid {
		return "", false, fmt.Errorf("the learn brief's lessons file %q is not lessons/<owner>/<name>.md", clip(m[1]))
	}
	switch {
	case r.Status == LearnNone && changed:
		return "", false, fmt.Errorf("the status is none, but the checkout has changes; give status: done to propose them, or leave the checkout unchanged when no lesson generalises")
	case r.Status == LearnNone:
		return "", false, nil
	case !changed:
		return "", false, fmt.Errorf("the status is done, but the checkout has no change; edit %s, or give status: none when no lesson generalises", m[1])
	}
	summary := decisionSummary(r.Decision)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n", lessons.ReturnSubject(repo), summary)
	if len(trailers) > 0 {
		b.WriteString("\n" + strings.Join(trailers, "\n") + "\n")
	}
	return b.String(), true, nil
}

// learnChanged is whether a learn run left work to commit: uncommitted
// changes (the checkout's status) or commits of its own.
func learnChanged(status string, commits int) bool { return status != "" || commits > 0 }

// learnReturn is the return commit message a learn run's result (data,
// read from source) builds, with changed whether the agent left work: ok is
// false when the return is no commit (status none, or no result and no
// change). A result that does not parse or contradicts the checkout — a
// change and no result among them — is a *ResultError.
//
// For status none, none is the result's decision as one line of at most
// maxNoneDecision characters (white space collapsed), for the record of
// the no-lessons transition.
func learnReturn(t Task, data []byte, source string, u Usage, changed bool) (msg string, ok bool, none string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		if changed {
			return "", false, "", &ResultError{Source: source, Err: fmt.Errorf("the agent changed the checkout but gave no result; end with status: and decision: lines, e.g. %q", learnResultExample)}
		}
		return "", false, "", nil
	}
	r, err := ParseLearnResult(data)
	if err != nil {
		return "", false, "", &ResultError{Source: source, Err: err}
	}
	if msg, ok, err = r.LearnMessage(t, changed, u.trailers()); err != nil {
		return "", false, "", &ResultError{Source: source, Err: err}
	}
	if !ok && r.Status == LearnNone {
		none = strings.Join(strings.Fields(r.Decision), " ")
		if rs := []rune(none); len(rs) > maxNoneDecision {
			none = string(rs[:maxNoneDecision-1]) + "…"
		}
	}
	return msg, ok, none, nil
}

// maxNoneDecision bounds the decision of a none learn result that the
// no-lessons record quotes.
const maxNoneDecision = 500
