package ledger

import "testing"

// L-19: an allowance grant is history, not a decision about a row: the
// latest operational decision, and so the brief's previous decision, skips
// it.
func TestLatestOperationalSkipsGrants_L19(t *testing.T) {
	t.Parallel()
	const last = "row 1 failed | too slow | try caching"
	l := ledgerOf(t, 4, []string{"failed/1", "open/0"}, seeded, last, "rows +2 | more room")
	if d, ok := l.LatestOperational(); !ok || d.Line != last {
		t.Errorf("LatestOperational = %q, %v; want %q, true", d.Line, ok, last)
	}
	if d, ok := l.PreviousDecision(); !ok || d.Line != last {
		t.Errorf("PreviousDecision = %q, %v; want %q, true", d.Line, ok, last)
	}
}

// L-40: misses and empty returns are counted from the latest retry: a
// retry request starts new windows, raising the allowance does not.
func TestRetryOpensNewWindows_L40(t *testing.T) {
	t.Parallel()
	stopped := func() *Ledger {
		l := withStop(ledgerOf(t, 4, []string{"failed/4", "done/1"}, seeded, "row 1 failed | a | b"), "allowance")
		l.Delivery.Misses = 1
		l.Delivery.EmptyReturns = 2
		return l
	}
	tests := []struct {
		request             string
		misses, emptyReturn int
	}{
		{"retry 1 | use seconds", 0, 0},
		{"rows +2 | more room", 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			r, err := ParseRequest(tt.request)
			if err != nil {
				t.Fatal(err)
			}
			n, _, err := ApplyRequest(stopped(), r, now)
			if err != nil {
				t.Fatal(err)
			}
			if got, gotEmpty := n.Delivery.Misses, n.Delivery.EmptyReturns; got != tt.misses || gotEmpty != tt.emptyReturn {
				t.Errorf("after %q: misses %d, empty returns %d; want %d, %d", tt.request, got, gotEmpty, tt.misses, tt.emptyReturn)
			}
		})
	}
}
