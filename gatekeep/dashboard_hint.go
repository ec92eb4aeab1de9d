package gatekeep

import (
	"strings"
	"time"
)

// DashboardComment is a comment on the dashboard issue, read for the
// hints of ticked boxes: who wrote it, when, and what it says.
type DashboardComment struct {
	Author, Body string
	Created      time.Time
}

// DashboardHint returns the hint or reason a follow-up comment gives a
// ticked box (docs/requests.md "A hint in a follow-up comment"), "" when
// no comment gives one. A comment gives box b its hint when it was
// written by ticker, the login that ticked the box, no earlier than the
// second the box was written in (a box's id is the Unix time in
// milliseconds it was written at, or later; GitHub counts comments'
// times in whole seconds), and reads, on its first two lines,
//
//	/gallivant <the box's text> | <hint>
//	<the entry's spec path>
//
// the spec path as the dashboard shows it, backticks allowed. The newest
// such comment wins. A comment is never a command by itself: the box's
// tick is. The hint goes through ParseCommand with the box's request, so
// it has that parser's bounds.
func DashboardHint(b DashboardBox, ticker string, comments []DashboardComment) string {
	if ticker == "" || b.Text == "" {
		return ""
	}
	written := time.UnixMilli(b.ID)
	hint, at := "", time.Time{}
	for _, c := range comments {
		if !strings.EqualFold(c.Author, ticker) || c.Created.Before(written.Truncate(time.Second)) || c.Created.Before(at) {
			continue
		}
		if h, ok := hintFor(b, c.Body); ok {
			hint, at = h, c.Created
		}
	}
	return hint
}

// hintFor reads a comment's first two lines as a hint for box b.
func hintFor(b DashboardBox, body string) (string, bool) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	first, rest, _ := strings.Cut(body, "\n")
	second, _, _ := strings.Cut(rest, "\n")
	if len(first) > maxCommandLine {
		return "", false
	}
	req, ok := strings.CutPrefix(first, CommandPrefix+" ")
	if !ok {
		return "", false
	}
	text, hint, ok := strings.Cut(req, "|")
	hint = strings.TrimSpace(hint)
	if !ok || strings.TrimSpace(text) != b.Text || hint == "" {
		return "", false
	}
	if strings.Trim(strings.TrimSpace(second), "`") != b.Spec {
		return "", false
	}
	return hint, true
}
