package audit

import "github.com/gallivant/gallivant/ledger"

// replayReplayMiss proves a `loop: repair row <n>` with no dispatch
// outstanding: the repair of a failed evidence replay (ledger.RepairReplay)
// on the head of its Gallivant-Head trailer, which the parent's `## Proof`
// must record as a failed run of row n's own evidence command there.
func replayReplayMiss(s *step) []outcome {
	head := s.c.trailer(ledger.TrailerHead)
	want, c, err := ledger.RepairReplay(s.parent, s.sub.Row, head)
	if err != nil {
		return refuse(SectionHeader, "no dispatch is outstanding to repair, and the parent records no failed evidence replay of row %d on %.7s: %v", s.sub.Row, head, err)
	}
	return one(want, c)
}
