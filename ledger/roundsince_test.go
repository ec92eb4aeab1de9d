package ledger

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// round-since (issue 26) has since's grammar: it round-trips byte-stable
// in its place after since, per member too, and a malformed value is a
// positioned diagnostic.
func TestRoundSince(t *testing.T) {
	t.Parallel()
	sp := specOf(t, acList(1, nil))
	seeded, _ := Seed(SeedInput{Spec: sp, SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	l := seeded.Clone()
	l.Delivery.Since = mustCursor(t, "2026-11-30T10:00:00Z")
	l.Delivery.RoundSince = mustCursor(t, "2026-11-30T11:59:00Z 7 8")
	l.Delivery.Ignored = "comment 3 by @m | not the reviewer"
	src := Format(l)
	if !strings.Contains(string(src), "since: 2026-11-30T10:00:00Z\nround-since: 2026-11-30T11:59:00Z 7 8\nignored: ") {
		t.Errorf("round-since is not in its place after since:\n%s", src)
	}
	back, ds := Parse("plans/x-ledger.md", src)
	if Fatal(ds) {
		t.Fatalf("%v", ds)
	}
	if diff := cmp.Diff(string(src), string(Format(back))); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if !IsLegKey(KeyRoundSince) {
		t.Error("round-since is not kept per member")
	}
	for _, bad := range []string{"soon", "2026-11-30T11:59:00Z seven"} {
		text := strings.Replace(string(src), "round-since: 2026-11-30T11:59:00Z 7 8", "round-since: "+bad, 1)
		line := 0
		for i, ln := range strings.Split(text, "\n") {
			if strings.HasPrefix(ln, "round-since: ") {
				line = i + 1
			}
		}
		_, ds := Parse("plans/x-ledger.md", []byte(text))
		found := false
		for _, d := range ds {
			found = found || d.Rule == RuleDelivery && d.Line == line && d.Col == len(KeyRoundSince)+3 && strings.Contains(d.Message, "round-since")
		}
		if !found {
			t.Errorf("round-since: %s: want a %s diagnostic at %d:%d, got %v", bad, RuleDelivery, line, len(KeyRoundSince)+3, ds)
		}
	}
}
