package reconcile

import (
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// repairReplays answers a failed evidence replay on head before the pull
// request opens: each row whose own evidence failed there, or selected no
// test, is repaired in the row loop (`loop: repair row <n>`, one attempt of
// that row's allowance), and the row loop dispatches it again. ok is false
// when no row's replay failed on head (a Verify command failed instead).
func (p *passState) repairReplays(e *entry, head string) (stepResult, bool, error) {
	rows := ledger.ReplayMisses(e.l, head)
	if len(rows) == 0 {
		return finished, false, nil
	}
	if e.leg != nil {
		// The row loop is the entry's: a leg's row is repaired in the
		// entry's ledger, which holds the leg's proofs (ledger.WithLeg).
		e = e.leg.parent
	}
	if p.DryRun {
		return waitFor("would repair %s: its evidence failed when replayed on %s", rowList(rows), short(head)), true, nil
	}
	for _, n := range rows {
		nl, c, err := ledger.RepairReplay(e.l, n, head)
		if err != nil {
			return progressed, true, err
		}
		if err := p.apply(e, nl, c); err != nil {
			return progressed, true, err
		}
	}
	return progressed, true, nil
}

// replayOutput is the output tail of the failed replay a row's repair
// dispatch answers, when this pass ran it; "" after a restart (the brief
// then points to the loop: verify commit).
func (p *passState) replayOutput(e *entry, row int) string {
	_, why, ok := e.l.Refusal(row)
	if !ok || !strings.HasPrefix(why, ledger.ReplayMissPrefix) {
		return ""
	}
	return p.tails[e.key()]
}

// rowList names rows: `row 2`, `rows 2, 3`.
func rowList(rows []int) string {
	var b strings.Builder
	if len(rows) == 1 {
		b.WriteString("row ")
	} else {
		b.WriteString("rows ")
	}
	for i, n := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
