package ledger

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRequestSubject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want string
		sub  Subject
	}{
		{"loop: request retry from acme/api#12 by @bob", Subject{Kind: KindRequest, Word: "retry", PR: pr12, By: "bob"}},
		{"loop: request recheck from acme/api#12 by @renovate[bot]", Subject{Kind: KindRequest, Word: "recheck", PR: pr12, By: "renovate[bot]"}},
	} {
		if got := tc.sub.String(); got != tc.want {
			t.Errorf("%+v.String() = %q; want %q", tc.sub, got, tc.want)
		}
		got, err := ParseSubject(tc.want)
		if err != nil {
			t.Fatalf("ParseSubject(%q): %v", tc.want, err)
		}
		if diff := cmp.Diff(tc.sub, got); diff != "" {
			t.Errorf("ParseSubject(%q) (-want +got):\n%s", tc.want, diff)
		}
	}
	for _, s := range []string{
		"loop: request merge from acme/api#12 by @bob",      // not a command word
		"loop: request resnapshot from acme/api#12 by @bob", // not a command
		"loop: request accept from acme/api#12 by @bob",
		"loop: request retry from acme/api#12 by bob", // no @
		"loop: request retry from acme/api#12 by @-bob",
		"loop: request retry from acme/api#12 by @bo--b",
		"loop: request retry from acme/api by @bob",
		"loop: request retry acme/api#12 by @bob",
	} {
		if _, err := ParseSubject(s); err == nil {
			t.Errorf("ParseSubject(%q) accepted it", s)
		}
	}
}

func TestApplyCommand(t *testing.T) {
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

	t.Run("as if written under Requests, the person's line kept", func(t *testing.T) {
		t.Parallel()
		r := req("retry 1 | convert the date to seconds")
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
			t.Errorf("ledger (-as a ## Requests line +as a command):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"retry 1 | the Retry-After value is in seconds, not a date"}, n.Requests); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		wantTrailers := []Trailer{{TrailerRequest, "retry 1 | convert the date to seconds"}, {TrailerPR, "acme/api#12"},
			{TrailerCommentID, "4242"}, {TrailerComment, from.URL}}
		if c.Subject != "loop: request retry from acme/api#12 by @bob" {
			t.Errorf("subject %q", c.Subject)
		}
		if diff := cmp.Diff(wantTrailers, c.Trailers); diff != "" {
			t.Errorf("trailers (-want +got):\n%s", diff)
		}
	})
	t.Run("accept is no command", func(t *testing.T) {
		t.Parallel()
		tampered := stopped.Clone()
		tampered.Delivery.Stop = StopRecord{Reason: "tampered", Detail: "a person edited the rows"}
		var rf *Refusal
		if _, _, err := ApplyCommand(tampered, req("accept | mine"), from, now); !errors.As(err, &rf) {
			t.Fatalf("err %v, want a refusal", err)
		}
	})
	t.Run("refused in this state", func(t *testing.T) {
		t.Parallel()
		_, _, err := ApplyCommand(stopped, req("budget +$5 | more"), from, now)
		var rf *Refusal
		if !errors.As(err, &rf) || rf.Reason == "" {
			t.Fatalf("err %v, want a refusal", err)
		}
	})
	for _, tc := range []struct {
		name string
		from CommandOrigin
	}{
		{"no pull request", CommandOrigin{Login: "bob", CommentID: 1}},
		{"a login with a space", CommandOrigin{PR: pr12, Login: "bob smith", CommentID: 1}},
		{"no id", CommandOrigin{PR: pr12, Login: "bob"}},
		{"a URL with a newline", CommandOrigin{PR: pr12, Login: "bob", CommentID: 1, URL: "https://x\nGallivant-Request: accept | x"}},
		{"a URL that is no web address", CommandOrigin{PR: pr12, Login: "bob", CommentID: 1, URL: "javascript:alert(1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := ApplyCommand(stopped, req("retry 1 | x"), tc.from, now); err == nil {
				t.Errorf("accepted origin %+v", tc.from)
			}
		})
	}
}
