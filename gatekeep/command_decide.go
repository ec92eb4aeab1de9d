package gatekeep

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// CommandStep is what the loop does with one comment or review.
type CommandStep string

// Command steps.
const (
	CommandNone   CommandStep = "none"   // no command, gallivant's own, or answered already
	CommandIgnore CommandStep = "ignore" // from someone who may not steer: the pass report only, no commit, no answer
	CommandApply  CommandStep = "apply"  // commit Next with Commit, push, then answer Reply
	CommandAnswer CommandStep = "answer" // performed by an earlier pass: the answer is owed
	CommandRefuse CommandStep = "refuse" // answer Reply; nothing is committed
)

// CommandFacts is what deciding one comment or review needs.
type CommandFacts struct {
	// Body is the comment's text; Author its login; Self gallivant's.
	Body, Author, Self string
	// MaySteer: the author is the configured reviewer or has write access
	// to the target (the permission API, read once per login and pass).
	MaySteer bool
	// Acted is the subject of the control commit that performed this
	// comment already ("" when none): the record that makes it at most
	// once. Answered: gallivant's answer to it is on the pull request.
	Acted    string
	Answered bool
	// Ledger is the entry's ledger; Origin names the comment; Now is the
	// pass's clock.
	Ledger *ledger.Ledger
	Origin ledger.CommandOrigin
	Now    time.Time
}

// CommandAction is the decision on one comment or review.
type CommandAction struct {
	Step CommandStep
	// Reply is the answer gallivant posts once (apply, answer, refuse).
	Reply string
	// Next and Commit are the transition an apply commits.
	Next   *ledger.Ledger
	Commit ledger.Commit
}

// DecideCommand decides one comment or review (docs/requests.md), in this
// order: no command or gallivant's own, nothing; answered, nothing (so an
// edit of an answered comment is ignored); performed but unanswered (a
// crash between the commit and the answer), the answer; from someone who
// may not steer, ignored without an answer, so that nobody else can make
// gallivant write (issue 29); malformed, refused with the parser's
// position; a request the state does not accept, refused with why;
// otherwise performed as ledger.ApplyCommand performs it.
func DecideCommand(f CommandFacts) (CommandAction, error) {
	if strings.EqualFold(f.Author, f.Self) {
		return CommandAction{Step: CommandNone}, nil
	}
	cmd, ok, perr := ParseCommand(f.Body)
	switch {
	case !ok, f.Answered:
		return CommandAction{Step: CommandNone}, nil
	case f.Acted != "":
		return CommandAction{Step: CommandAnswer, Reply: fmt.Sprintf("Done: `%s` is on the control branch.", f.Acted)}, nil
	case !f.MaySteer:
		return CommandAction{Step: CommandIgnore}, nil
	case perr != nil:
		return CommandAction{Step: CommandRefuse, Reply: "Malformed: " + perr.Error() + "."}, nil
	}
	n, c, err := ledger.ApplyCommand(f.Ledger, cmd.Request, f.Origin, f.Now)
	var rf *ledger.Refusal
	if errors.As(err, &rf) {
		return CommandAction{Step: CommandRefuse, Reply: "Not accepted now: " + strings.TrimSuffix(rf.Reason, ".") + "."}, nil
	}
	if err != nil {
		return CommandAction{}, err
	}
	return CommandAction{Step: CommandApply, Next: n, Commit: c,
		Reply: fmt.Sprintf("Done: `%s`. %s", c.Subject, c.Sentence)}, nil
}

// commandAnswerKey is the marker key of gallivant's answer to comment id.
func commandAnswerKey(id int64) string { return fmt.Sprintf("command-%d", id) }

// CommandAnswerMarker is the marker that gallivant's answer to comment id
// carries, by which a later pass knows it was answered.
func CommandAnswerMarker(id int64) string { return "<!-- gallivant:" + commandAnswerKey(id) + " -->" }

// CommandAnswered returns the comment id a comment of gallivant's answers,
// read from its CommandAnswerMarker.
func CommandAnswered(body string) (int64, bool) {
	const open = "<!-- gallivant:command-"
	i := strings.Index(body, open)
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(open):]
	j := strings.Index(rest, " -->")
	if j <= 0 || j > 18 {
		return 0, false
	}
	var id int64
	for _, r := range rest[:j] {
		if r < '0' || r > '9' {
			return 0, false
		}
		id = id*10 + int64(r-'0')
	}
	return id, id > 0
}

// IsCommand reports whether a comment or review body is a command, well
// formed or not: commands are requests to gallivant, never review
// feedback a fix round answers.
func IsCommand(body string) bool {
	_, ok, _ := ParseCommand(body)
	return ok
}
