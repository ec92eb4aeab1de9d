package ledger

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    Pause
		wantErr bool
	}{
		{in: "@bob acme/api#3", want: Pause{Login: "bob", PR: PullRef{Repo: "acme/api", Number: 3}}},
		{in: "@renovate[bot] acme/api#12", want: Pause{Login: "renovate[bot]", PR: pr12}},
		{in: "bob acme/api#3", wantErr: true},
		{in: "@bob", wantErr: true},
		{in: "@bob acme/api", wantErr: true},
		{in: "@-bob acme/api#3", wantErr: true},
		{in: "@bob acme/api#3 extra", wantErr: true},
	} {
		got, err := ParsePause(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParsePause(%q) error = %v; want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParsePause(%q) (-want +got):\n%s", tc.in, diff)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("ParsePause(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestApplyCommandPause(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	from := CommandOrigin{PR: pr12, Login: "bob", CommentID: 4242, URL: "https://github.com/acme/api/pull/12#issuecomment-4242"}
	stopped := mustParse(t, "testdata/roundtrip/stopped.md")
	req := func(line string) Request {
		r, err := ParseRequest(line)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	paused, c, err := ApplyCommand(stopped, req("pause | waiting for the API freeze"), from, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Subject, "loop: request pause from acme/api#12 by @bob"; got != want {
		t.Errorf("subject = %q; want %q", got, want)
	}
	if !strings.Contains(c.Sentence, "Reason: waiting for the API freeze.") {
		t.Errorf("sentence %q does not carry the reason", c.Sentence)
	}
	p, ok := paused.Paused()
	if !ok || p.Describe() != "paused by @bob from acme/api#12" {
		t.Errorf("Paused() = %+v, %v; want paused by @bob from acme/api#12", p, ok)
	}
	// Only the paused: line changes: rows, stop and requests stay.
	back := paused.Clone()
	back.delivery().Paused = Pause{}
	if diff := cmp.Diff(string(Format(stopped)), string(Format(back))); diff != "" {
		t.Errorf("pause changed more than paused: (-before +after without it):\n%s", diff)
	}
	// The paused ledger round-trips through the format and its check.
	reread, diags := Parse("paused.md", Format(paused))
	if len(diags) != 0 {
		t.Fatalf("the paused ledger does not parse: %v", diags)
	}
	if got, _ := reread.Paused(); got != p {
		t.Errorf("re-read pause = %+v; want %+v", got, p)
	}

	unpaused, c, err := ApplyCommand(paused, req("unpause"), CommandOrigin{PR: pr12, Login: "carol", CommentID: 4243}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Subject, "loop: request unpause from acme/api#12 by @carol"; got != want {
		t.Errorf("subject = %q; want %q", got, want)
	}
	if !strings.Contains(c.Sentence, "it was paused by @bob from acme/api#12") {
		t.Errorf("sentence %q does not name the pause it lifts", c.Sentence)
	}
	if diff := cmp.Diff(string(Format(stopped)), string(Format(unpaused))); diff != "" {
		t.Errorf("unpause did not restore the ledger (-before pause +after unpause):\n%s", diff)
	}

	for _, tc := range []struct {
		name string
		l    *Ledger
		line string
		want string
	}{
		{"pause twice", paused, "pause", "already paused by @bob from acme/api#12"},
		{"unpause when not paused", stopped, "unpause", "not paused"},
	} {
		_, _, err := ApplyCommand(tc.l, req(tc.line), from, now)
		var rf *Refusal
		if !errors.As(err, &rf) || !strings.Contains(rf.Reason, tc.want) {
			t.Errorf("%s: err = %v; want a refusal containing %q", tc.name, err, tc.want)
		}
	}
	// Under ## Requests a pause is refused: the spec's status: paused is
	// the control repository's way.
	_, _, err = ApplyRequest(stopped, req("pause"), now)
	var rf *Refusal
	if !errors.As(err, &rf) || !strings.Contains(rf.Reason, "status: paused") {
		t.Errorf("ApplyRequest(pause) err = %v; want a refusal naming status: paused", err)
	}
}
