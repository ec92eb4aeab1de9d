package gatekeep

import (
	"strings"
	"testing"
	"time"
)

// A follow-up comment gives a ticked box its hint only in the strict form
// docs/requests.md names: by the ticker, after the box was written, the
// box's own request on the first line and the entry's spec on the second.
func TestDashboardHint(t *testing.T) {
	t.Parallel()
	written := time.Date(2026, 12, 1, 10, 0, 0, 250e6, time.UTC)
	box := DashboardBox{ID: written.UnixMilli(), Spec: "specs/feature.md", Text: "retry 2", Ticked: true}
	after := written.Add(time.Minute)
	c := func(author, body string, at time.Time) DashboardComment {
		return DashboardComment{Author: author, Body: body, Created: at}
	}
	for _, tc := range []struct {
		name     string
		ticker   string
		comments []DashboardComment
		want     string
	}{
		{"the strict form", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | read the README first\nspecs/feature.md", after)}, "read the README first"},
		{"the spec in backticks, CRLF, more text after", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | read the README first\r\n`specs/feature.md`\r\nthanks!", after)}, "read the README first"},
		{"the login's case", "Bob", []DashboardComment{c("bob", "/gallivant retry 2 | hint\nspecs/feature.md", after)}, "hint"},
		{"the newest wins", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | newer\nspecs/feature.md", after.Add(time.Minute)), c("bob", "/gallivant retry 2 | older\nspecs/feature.md", after)}, "newer"},
		{"in the box's second, GitHub's whole seconds", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | same second\nspecs/feature.md", written.Truncate(time.Second))}, "same second"},
		{"before the box was written", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | stale\nspecs/feature.md", written.Add(-time.Second))}, ""},
		{"by someone else", "bob", []DashboardComment{c("mallory", "/gallivant retry 2 | mine\nspecs/feature.md", after)}, ""},
		{"nobody known ticked it", "", []DashboardComment{c("bob", "/gallivant retry 2 | hint\nspecs/feature.md", after)}, ""},
		{"another request", "bob", []DashboardComment{c("bob", "/gallivant retry 1 | hint\nspecs/feature.md", after)}, ""},
		{"another entry", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | hint\nspecs/other.md", after)}, ""},
		{"no spec line", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | hint", after)}, ""},
		{"no hint", "bob", []DashboardComment{c("bob", "/gallivant retry 2 |  \nspecs/feature.md", after)}, ""},
		{"quoted", "bob", []DashboardComment{c("bob", "> /gallivant retry 2 | hint\nspecs/feature.md", after)}, ""},
		{"in a code block", "bob", []DashboardComment{c("bob", "```\n/gallivant retry 2 | hint\nspecs/feature.md\n```", after)}, ""},
		{"too long a line", "bob", []DashboardComment{c("bob", "/gallivant retry 2 | "+strings.Repeat("x", 600)+"\nspecs/feature.md", after)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := DashboardHint(box, tc.ticker, tc.comments); got != tc.want {
				t.Errorf("DashboardHint = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzDashboardHint(f *testing.F) {
	f.Add("/gallivant retry 2 | read the README first\nspecs/feature.md")
	f.Add("/gallivant retry 2 |\n`specs/feature.md`")
	f.Fuzz(func(t *testing.T, body string) {
		box := DashboardBox{ID: 1, Spec: "specs/feature.md", Text: "retry 2", Ticked: true}
		hint := DashboardHint(box, "bob", []DashboardComment{{Author: "bob", Body: body, Created: time.UnixMilli(2)}})
		if hint == "" {
			return
		}
		box.Hint = hint
		// What a comment gives is read by the one command parser, which
		// bounds it.
		_, _, _ = ParseCommand(DashboardCommand(box))
	})
}
