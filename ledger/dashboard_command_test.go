package ledger

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A box ticked on the dashboard issue is performed as a pull-request
// command is, with the box's id and the issue's address in its trailers
// instead of a comment's (docs/requests.md, "The dashboard issue").
func TestApplyCommandFromTheDashboard(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	issue := PullRef{Repo: "acme/control", Number: 7}
	from := CommandOrigin{PR: issue, Login: "bob", CommentID: 1764590400001, URL: "https://github.com/acme/control/issues/7", Dashboard: true}
	stopped := mustParse(t, "testdata/roundtrip/stopped.md")
	r, err := ParseRequest("retry 1 | from the dashboard issue")
	if err != nil {
		t.Fatal(err)
	}
	n, c, err := ApplyCommand(stopped, r, from, now)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ApplyRequest(stopped, r, now)
	if err != nil {
		t.Fatal(err)
	}
	want.Requests = stopped.Requests
	if diff := cmp.Diff(string(Format(want)), string(Format(n))); diff != "" {
		t.Errorf("ledger (-as a ## Requests line +as a box):\n%s", diff)
	}
	if c.Subject != "loop: request retry from acme/control#7 by @bob" {
		t.Errorf("subject %q", c.Subject)
	}
	wantTrailers := []Trailer{{TrailerRequest, "retry 1 | from the dashboard issue"}, {TrailerBox, "1764590400001"}, {TrailerDashboard, from.URL}}
	if diff := cmp.Diff(wantTrailers, c.Trailers); diff != "" {
		t.Errorf("trailers (-want +got):\n%s", diff)
	}
	if want := "@bob ticked a box of the dashboard issue acme/control#7: "; len(c.Sentence) < len(want) || c.Sentence[:len(want)] != want {
		t.Errorf("sentence %q, want it to start %q", c.Sentence, want)
	}
	bad := from
	bad.CommentID = 0
	if _, _, err := ApplyCommand(stopped, r, bad, now); err == nil {
		t.Errorf("a box without an id was performed")
	}
}
