package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// A `loop: request` commit (docs/requests.md) verifies when it is exactly
// the request its trailers name, performed on the entry's own pull
// request; forged or widened ones do not.
func TestCommandReplay(t *testing.T) {
	t.Parallel()
	before := edit(t, fixture(t, "running.md"), "phase: implement\n",
		"phase: review\npr: acme/shop#9\nstop: checks-red | acme/shop#9: checks still red\n")
	pr := ledger.PullRef{Repo: "acme/shop", Number: 9}
	from := ledger.CommandOrigin{PR: pr, Login: "bob", CommentID: 4242, URL: "https://github.com/acme/shop/pull/9#issuecomment-4242"}
	r, err := ledger.ParseRequest("resume | I fixed the flaky test")
	if err != nil {
		t.Fatal(err)
	}
	n, c, err := ledger.ApplyCommand(mustParse(t, before), r, from, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	after := ledger.Format(n)
	msg := c.Message() + "\nGallivant-Spec: specs/checkout.md\n"
	for _, tc := range []struct {
		name   string
		msg    string
		before []byte
		after  []byte
		want   []found
	}{
		{"the command as performed", msg, before, after, nil},
		{"the subject names another request", strings.Replace(msg, "request resume from", "request retry from", 1), before, after, []found{{SectionSubject, lp}}},
		{"another entry's pull request", strings.ReplaceAll(msg, "acme/shop#9", "acme/shop#10"), before, after, []found{{SectionSubject, lp}}},
		{"no comment id", strings.Replace(msg, "Gallivant-Comment-Id: 4242\n", "", 1), before, after, []found{{SectionTrailers, lp}}},
		{"no request trailer", strings.Replace(msg, "Gallivant-Request: resume | I fixed the flaky test\n", "", 1), before, after, []found{{SectionTrailers, lp}}},
		{"the stop it does not clear", msg, edit(t, before, "stop: checks-red", "stop: budget"), after, []found{{SectionRequests, lp}}},
		{"more than the request", msg, before, edit(t, after, "phase: review\n", "phase: ready\n"), []found{{SectionDelivery, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(res.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, res.Violations)
			}
			if res.Kind != "request" {
				t.Errorf("kind = %q, want request", res.Kind)
			}
		})
	}
}
