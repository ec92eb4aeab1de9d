package gatekeep

import (
	"testing"
	"time"
)

// SilenceNext never lies about the clock: at every moment before it,
// SilenceDue answers Quiet for the same digest; at it or after it (when
// it is not zero), SilenceDue is not always Quiet.
func TestSilenceNextBoundsSilenceDue(t *testing.T) {
	t.Parallel()
	asked := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	head := "abc"
	rereview, stall := time.Hour, 48*time.Hour
	for _, tc := range []struct {
		name     string
		d        Digest
		reviewer string
		asked    time.Time
		nudged   string
		never    bool
	}{
		{"no reviewer", Digest{HeadSHA: head}, "", asked, "", true},
		{"never asked", Digest{HeadSHA: head}, "alice", time.Time{}, "", true},
		{"approved the head", Digest{HeadSHA: head, Reviews: []Review{{ID: 1, User: "alice", State: "APPROVED", CommitID: head, SubmittedAt: asked.Add(time.Minute)}}}, "alice", asked, "", true},
		{"spoke after asked", Digest{HeadSHA: head, Comments: []Comment{{User: "alice", UpdatedAt: asked.Add(time.Minute)}}}, "alice", asked, "", true},
		{"silent", Digest{HeadSHA: head}, "alice", asked, "", false},
		{"silent, nudged on this head", Digest{HeadSHA: head}, "alice", asked, head, false},
		{"silent, nudged on an older head", Digest{HeadSHA: head}, "alice", asked, "old", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			next := SilenceNext(tc.d, tc.reviewer, tc.asked, tc.nudged, rereview, stall)
			if next.IsZero() != tc.never {
				t.Fatalf("SilenceNext = %v, want zero %v", next, tc.never)
			}
			fired := false
			for step := time.Duration(0); step <= 50*time.Hour; step += 7 * time.Minute {
				now := asked.Add(step)
				due := SilenceDue(tc.d, tc.reviewer, tc.asked, tc.nudged, now, rereview, stall)
				if due != Quiet && (next.IsZero() || now.Before(next)) {
					t.Fatalf("at %v SilenceDue = %v before SilenceNext %v", now, due, next)
				}
				fired = fired || due != Quiet
			}
			if !tc.never && !fired {
				t.Errorf("SilenceDue never fired; SilenceNext %v", next)
			}
		})
	}
}

func TestChecksFinal(t *testing.T) {
	t.Parallel()
	done := Check{Name: "ci", Kind: KindCheckRun, Status: "completed", Conclusion: "success"}
	for _, tc := range []struct {
		name string
		d    Digest
		want bool
	}{
		{"unread", Digest{Checks: []Check{done}}, false},
		{"completed", Digest{ChecksKnown: true, Checks: []Check{done}}, true},
		{"a queued run", Digest{ChecksKnown: true, Checks: []Check{done, {Name: "lint", Kind: KindCheckRun, Status: "queued"}}}, false},
		{"a pending status", Digest{ChecksKnown: true, Checks: []Check{{Name: "ci", Status: "pending"}}}, false},
		{"a required check has not reported", Digest{ChecksKnown: true, Checks: []Check{done}, Required: []string{"ci", "e2e"}}, false},
		{"required checks completed", Digest{ChecksKnown: true, Checks: []Check{done}, Required: []string{"ci"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ChecksFinal(tc.d); got != tc.want {
				t.Errorf("ChecksFinal = %v, want %v", got, tc.want)
			}
		})
	}
}
