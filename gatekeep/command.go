package gatekeep

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/ledger"
)

// This file is the grammar of pull-request commands (docs/requests.md): a
// comment or review body whose first line is `/gallivant <request>` asks
// for what a line under the ledger's `## Requests` asks for. The body is
// untrusted text: only its first line is read, bounded, and nothing in it
// is ever executed.

// CommandPrefix starts the first line of a command.
const CommandPrefix = "/gallivant"

// maxCommandLine bounds the first line a command is read from; the request
// itself is bounded again by ledger.ParseRequest (400 characters).
const maxCommandLine = 512

// Command is one parsed pull-request command: the ledger request it asks
// for.
type Command struct {
	Request ledger.Request
}

// Line is the command's request line.
func (c Command) Line() string { return strings.TrimSpace(c.Request.Line) }

// Word is the command's one-word name as a commit subject spells it: the
// request's kind (retry, rows, …).
func (c Command) Word() string { return c.Request.Kind.String() }

// CommandError is a malformed command: where in the comment (line 1, the
// column in characters from 1, as an editor counts), what is wrong, and an
// accepted example. Its text is what gallivant's reply says.
type CommandError struct {
	Line, Col int
	Msg       string
}

// commandExample is the accepted example every CommandError ends with.
const commandExample = "/gallivant retry 2 | read the README first"

func (e *CommandError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s; for example `%s`", e.Line, e.Col, e.Msg, commandExample)
}

// commandForms lists what may follow the prefix, for error messages.
const commandForms = "`retry <row> | <hint>`, `resume | <why>`, `recheck`, `rows +N | <why>`, `budget +<amount> | <why>`, `reopen <row> | <why>`, `pause` or `unpause`"

// ParseCommand reads a comment or review body. ok is false when the body
// is no command: its first line does not start, at its first column, with
// CommandPrefix followed by a space or the end of the line. A quoted line
// (`> /gallivant …`), an indented one, one inside a code block or any line
// but the first is therefore never a command. When ok is true and err is
// not nil, err is a *CommandError naming the position. It never panics.
func ParseCommand(body string) (c Command, ok bool, err error) {
	line, _, _ := strings.Cut(body, "\n")
	line = strings.TrimSuffix(line, "\r")
	rest, found := strings.CutPrefix(line, CommandPrefix)
	if !found || (rest != "" && rest[0] != ' ') {
		return Command{}, false, nil
	}
	// bad reports a problem at the byte offset at+1 of the line (the
	// offsets below are 1-based), as a column in characters.
	bad := func(at int, format string, args ...any) (Command, bool, error) {
		col := utf8.RuneCountInString(line[:min(at-1, len(line))]) + 1
		return Command{}, true, &CommandError{Line: 1, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if len(line) > maxCommandLine {
		return bad(maxCommandLine+1, "the command line is %d bytes; at most %d are read", len(line), maxCommandLine)
	}
	if !utf8.ValidString(line) {
		return bad(invalidAt(line)+1, "the command is not valid UTF-8")
	}
	if i := strings.IndexFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return bad(i+1, "the command contains a control character")
	}
	text := strings.TrimLeft(rest, " ")
	col := len(line) - len(text) + 1
	if text == "" {
		return bad(col, "the command names no request; write one of %s after %s", commandForms, CommandPrefix)
	}
	text = strings.TrimRight(text, " ")
	word, _, _ := strings.Cut(text, " ")
	switch word {
	case "resnapshot":
		return bad(col, "resnapshot follows an edit of the spec and is written under the ledger's ## Requests, next to it")
	case "accept":
		return bad(col, "accept makes a person's edit of the ledger its state and is written under the ledger's ## Requests, next to that edit")
	case "-":
		return bad(col, "write the request right after %s, without a list marker", CommandPrefix)
	}
	r, err := ledger.ParseRequest(text)
	if err != nil {
		return bad(col, "%v", err)
	}
	return Command{Request: r}, true, nil
}

// invalidAt is the byte offset of the first invalid UTF-8 sequence in s.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i
			}
		}
	}
	return len(s)
}
