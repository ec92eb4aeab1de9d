package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file performs the requests people post on a pull request
// (docs/requests.md) as control commits: the same effect as the request
// written under `## Requests`, a `loop: request <word> from <pr> by
// @<login>` subject, and trailers that name the comment.

// Trailers of a `loop: request` commit, besides Gallivant-Request (the
// request line) and Gallivant-PR.
const (
	// TrailerComment is the URL of the comment or review that asked.
	TrailerComment = "Gallivant-Comment"
	// TrailerCommentID is its GitHub id: the record that it was acted on.
	TrailerCommentID = "Gallivant-Comment-Id"
	// TrailerDashboard is the web address of the dashboard issue whose
	// ticked box asked (docs/requests.md), in place of Gallivant-PR and
	// Gallivant-Comment.
	TrailerDashboard = "Gallivant-Dashboard"
	// TrailerBox is the id of the dashboard box whose tick was acted on,
	// in place of Gallivant-Comment-Id: the record that it was.
	TrailerBox = "Gallivant-Box"
)

// RequestWord reports whether w names what a `loop: request` subject may
// perform: the kind of a request a pull-request command may ask for. Not
// resnapshot and not accept: they answer an edit of the control repository
// and are written next to it, under `## Requests`.
func RequestWord(w string) bool {
	switch w {
	case RequestRetry.String(), RequestRows.String(), RequestResume.String(), RequestRecheck.String(),
		RequestReopen.String(), RequestBudget.String(), RequestPause.String(), RequestUnpause.String():
		return true
	}
	return false
}

// validLogin reports whether s is a GitHub login as a subject spells it:
// letters, digits and single hyphens, at most 39 characters, or an App's
// `<name>[bot]`.
func validLogin(s string) bool {
	name, bot := s, false
	if n, ok := strings.CutSuffix(s, "[bot]"); ok {
		name, bot = n, true
	}
	if name == "" || len(name) > 39 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' && name[i-1] != '-':
		case c == '_' && bot:
		default:
			return false
		}
	}
	return true
}

// CommandOrigin is where a pull-request command came from. A command
// from the dashboard issue (Dashboard true) names the issue in PR (an
// issue of the control repository: GitHub numbers issues and pull
// requests alike), the box's id in CommentID and the web address
// in URL.
type CommandOrigin struct {
	PR        PullRef
	Login     string
	CommentID int64
	URL       string
	Dashboard bool
}

func (o CommandOrigin) check() error {
	switch {
	case o.PR.IsZero():
		return fmt.Errorf("a command names its pull request")
	case !validLogin(o.Login):
		return fmt.Errorf("login %q is not a GitHub login", o.Login)
	case o.CommentID <= 0 && o.Dashboard:
		return fmt.Errorf("box id %d is not a dashboard box's id", o.CommentID)
	case o.CommentID <= 0:
		return fmt.Errorf("comment id %d is not a GitHub id", o.CommentID)
	case len(o.URL) > 512 || hasControl(o.URL) || strings.ContainsAny(o.URL, " \t") || (o.URL != "" && !strings.HasPrefix(o.URL, "https://") && !strings.HasPrefix(o.URL, "http://")):
		return fmt.Errorf("comment URL %s is not a web address of at most 512 bytes", quote(o.URL))
	}
	return nil
}

// ApplyCommand performs a request posted on a pull request exactly as
// ApplyRequest performs one written under `## Requests` (the same
// acceptance, the same change), except that no line of `## Requests` is
// removed: the request was never there. A state that does not accept it
// returns ApplyRequest's *Refusal. The commit is `loop: request <word>
// from <pr> by @<login>` with the request line, the pull request and the
// comment's URL and id in its trailers.
func ApplyCommand(l *Ledger, r Request, from CommandOrigin, now time.Time) (*Ledger, Commit, error) {
	if err := from.check(); err != nil {
		return nil, Commit{}, err
	}
	if !RequestWord(r.Kind.String()) {
		return nil, Commit{}, &Refusal{Request: r.Line, Reason: fmt.Sprintf("%s is written under ## Requests, next to the edit it answers", r.Kind)}
	}
	apply := ApplyRequest
	if r.Kind == RequestPause || r.Kind == RequestUnpause {
		apply = func(l *Ledger, r Request, _ time.Time) (*Ledger, Commit, error) { return applyPause(l, r, from) }
	}
	n, c, err := apply(l, r, now)
	if err != nil {
		return nil, Commit{}, err
	}
	n.Requests = slices.Clone(l.Requests)
	c.Subject = Subject{Kind: KindRequest, Word: r.Kind.String(), PR: from.PR, By: from.Login}.String()
	did := c.Sentence
	c.Sentence = fmt.Sprintf("@%s asked on %s: %s", from.Login, from.PR, did)
	if from.Dashboard {
		c.Sentence = fmt.Sprintf("@%s ticked a box of the dashboard issue %s: %s", from.Login, from.PR, did)
		c.Trailers = []Trailer{{TrailerRequest, r.Line}, {TrailerBox, strconv.FormatInt(from.CommentID, 10)}}
		if from.URL != "" {
			c.Trailers = append(c.Trailers, Trailer{TrailerDashboard, from.URL})
		}
		return n, c, nil
	}
	c.Trailers = []Trailer{{TrailerRequest, r.Line}, {TrailerPR, from.PR.String()},
		{TrailerCommentID, strconv.FormatInt(from.CommentID, 10)}}
	if from.URL != "" {
		c.Trailers = append(c.Trailers, Trailer{TrailerComment, from.URL})
	}
	return n, c, nil
}
