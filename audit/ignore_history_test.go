package audit

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// Strangers cannot write history (issue 29): gallivant no longer commits
// `loop: ignore`, but control repositories keep the ones it made, and
// `gallivant verify` must still prove them (only the feedback cursor,
// forward, and `ignored:` changed) and refuse one that did more.
func TestHistoricIgnoreStillVerifies(t *testing.T) {
	t.Parallel()
	review := edit(t, fixture(t, "running.md"), "phase: implement\n",
		"phase: review\npr: acme/shop#9\nsince: 2026-11-30T10:00:00Z\n")
	ignored := func(since string) []byte {
		return edit(t, review, "since: 2026-11-30T10:00:00Z\n",
			"since: "+since+"\nignored: comment 1003 by @mallory | not the reviewer, no write access to acme/shop\n")
	}
	msg := message("loop: ignore acme/shop#9", ledger.Trailer{Key: ledger.TrailerPR, Value: "acme/shop#9"})
	for _, tc := range []struct {
		name  string
		after []byte
		want  []found
	}{
		{"the cursor forward and ignored:", ignored("2026-11-30T12:00:00Z 1003"), nil},
		{"the cursor moved back", ignored("2026-11-30T09:00:00Z 1003"), []found{{SectionDelivery, lp}}},
		{"another key changed too", edit(t, ignored("2026-11-30T12:00:00Z 1003"), "phase: review\n", "phase: ready\n"), []found{{SectionDelivery, lp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: msg, Path: lp, Before: review, After: tc.after})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != "ignore" {
				t.Errorf("kind = %q, want ignore", r.Kind)
			}
		})
	}
}
