package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The `learn:` line reads back what it writes, and every malformed value
// is refused with what was expected (docs/learning.md "The learn task").
func TestParseLearn(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	ok := []Learn{
		{State: LearnDispatched, At: at},
		{State: LearnNone},
		{State: LearnRefused},
		{State: LearnDispatched, At: at, Attempt: 2},
		{State: LearnRefused, Attempt: 2},
		{State: LearnProposed, PR: PullRef{Repo: "acme/control", Number: 3}, Candidates: []string{"3fa85f6457c2", "0a1b2c3d4e5f"}},
		{State: LearnMerged, PR: PullRef{Repo: "acme/control", Number: 3}},
		{State: LearnDeclined, PR: PullRef{Repo: "acme/control", Number: 3}, Candidates: []string{"3fa85f6457c2"}},
	}
	for _, want := range ok {
		got, err := ParseLearn(want.String())
		if err != nil {
			t.Errorf("ParseLearn(%q): %v", want.String(), err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ParseLearn(%q) (-want +got):\n%s", want.String(), diff)
		}
	}
	for _, bad := range []string{"", "dispatched", "dispatched yesterday", "none extra", "proposed", "proposed acme/control", "proposed acme/control#3 XYZ",
		"merged acme/control#3 3fa85f6457c", "learning", "declined acme/control#0", "refused attempt", "refused attempt 1", "refused attempt 3", "refused try 2", "dispatched 2026-11-29T10:00:00Z attempt 02", "proposed acme/control#3 " + strings.Repeat("3fa85f6457c2 ", MaxLearnCandidates+1)} {
		if _, err := ParseLearn(bad); err == nil || !strings.Contains(err.Error(), "must be") {
			t.Errorf("ParseLearn(%q) = %v, want a refusal saying what it must be", bad, err)
		}
	}
}

// FuzzParseLearn: reading a `learn:` value never panics, and what it
// reads writes back to a value that reads the same.
func FuzzParseLearn(f *testing.F) {
	for _, s := range []string{"dispatched 2026-11-29T10:00:00Z", "none", "proposed acme/control#3 3fa85f6457c2", "declined a/b#1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		l, err := ParseLearn(v)
		if err != nil {
			return
		}
		again, err := ParseLearn(l.String())
		if err != nil {
			t.Fatalf("%q reads as %+v, which writes %q that does not read: %v", v, l, l.String(), err)
		}
		if diff := cmp.Diff(l, again); diff != "" {
			t.Fatalf("%q does not read back (-first +again):\n%s", v, diff)
		}
	})
}

// A refused first attempt is dispatched once more; the second refusal is
// final, as are none, merged and declined.
func TestLearnFinal(t *testing.T) {
	for _, tt := range []struct {
		l     Learn
		final bool
	}{
		{Learn{}, false}, {Learn{State: LearnDispatched}, false}, {Learn{State: LearnProposed}, false},
		{Learn{State: LearnRefused}, false}, {Learn{State: LearnRefused, Attempt: 2}, true},
		{Learn{State: LearnNone}, true}, {Learn{State: LearnMerged}, true}, {Learn{State: LearnDeclined}, true},
	} {
		if got := tt.l.Final(); got != tt.final {
			t.Errorf("%q.Final() = %v, want %v", tt.l.String(), got, tt.final)
		}
	}
}
