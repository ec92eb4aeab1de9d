package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// A dispatch that names the lessons file version it carried replays clean;
// a malformed, repeated or misplaced Gallivant-Lessons trailer is reported
// at the trailers (docs/learning.md).
func TestLessonsTrailer(t *testing.T) {
	t.Parallel()
	running := fixture(t, "running.md")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	head := strings.Repeat("a", 40)
	dispatched, c := ledger.Dispatch(mustParse(t, running), ledger.Action{Target: 2, Member: "home"}, head, now)
	good := ledger.Trailer{Key: ledger.TrailerLessons, Value: "lessons/acme/api.md@" + strings.Repeat("b", 40)}
	with := func(c ledger.Commit, ts ...ledger.Trailer) string {
		c.Trailers = append(append([]ledger.Trailer{}, c.Trailers...), ts...)
		return c.Message()
	}
	stopL, stopCommit := ledger.Stop(mustParse(t, running), ledger.StopNeeds, "row 2 needs a database", 2)
	rerun, rerunCommit := ledger.Rerun(dispatched, now.Add(time.Minute))
	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		want          []found
	}{
		{"dispatch carrying lessons", with(c, good), running, ledger.Format(dispatched), nil},
		{"rerun carrying lessons", with(rerunCommit, good), ledger.Format(dispatched), ledger.Format(rerun), nil},
		{"malformed value", with(c, ledger.Trailer{Key: ledger.TrailerLessons, Value: "specs/x.md@" + strings.Repeat("b", 40)}), running, ledger.Format(dispatched),
			[]found{{SectionTrailers, lp}}},
		{"given twice", with(c, good, good), running, ledger.Format(dispatched), []found{{SectionTrailers, lp}}},
		{"on a stop", with(stopCommit, good), running, ledger.Format(stopL), []found{{SectionTrailers, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
		})
	}
}
