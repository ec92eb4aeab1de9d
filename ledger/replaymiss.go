package ledger

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A replay miss (docs/delivery.md "Evidence replay"): a done row whose
// evidence command gallivant replayed on the work branch's head failed, or
// selected no test. Before the pull request opens that is a miss against
// the row, not against the verification: `loop: repair row <n>` fails the
// row and charges it one attempt, exactly like a validation miss, and the
// row loop dispatches it again until its allowance is spent.

// ReplayMissPrefix starts the miss a replay repair writes after
// `iteration <i>: ` in the row's evidence; briefs and stops recognise a
// replay miss by it.
const ReplayMissPrefix = "evidence replay failed on "

// ErrNoReplayMiss is returned by RepairReplay for a row whose recorded run
// on the head is not a failed replay of its own evidence command.
var ErrNoReplayMiss = errors.New("no failed evidence replay to repair")

// ReplayMisses returns the done rows whose own evidence command gallivant
// ran on head (not carried there) and which failed or selected no test, in
// row order. Nothing is returned while a dispatch is outstanding.
func ReplayMisses(l *Ledger, head string) []int {
	if l.Pending != nil || head == "" {
		return nil
	}
	var out []int
	for _, r := range l.ViewRows() {
		if replayMissed(l, r, head) {
			out = append(out, r.N)
		}
	}
	return out
}

func replayMissed(l *Ledger, r Row, head string) bool {
	if r.Status != Done {
		return false
	}
	p, ok := l.ProofOf(r.N)
	return ok && p.Head == head && p.CarriedFrom == "" && p.Command == EvidenceCommand(r.Evidence) && !p.Proved()
}

// ReplayMiss is the miss a failed replay of p writes into its row's
// evidence: `evidence replay failed on <sha>: <command> exited 1
// (assertion)`, or `... exited 0 but selected no test (0 tests)`.
func ReplayMiss(p Proof) string {
	what := fmt.Sprintf("exited %d (%s)", p.Exit, p.Tests)
	if p.Exit == 0 {
		what = fmt.Sprintf("exited 0 but selected no test (%s)", p.Tests)
	}
	return ReplayMissPrefix + short(p.Head) + ": " + p.Command + " " + what
}

// RepairReplay records the replay miss of row n on head (`loop: repair row
// <n>`): the row failed, attempts +1, evidence `iteration <i>: <miss>`
// with i the ledger's last consumed iteration, as a validation miss
// writes it. The recorded proof stays in `## Proof`; the consecutive-miss
// count is not raised, because the return itself kept the contract.
func RepairReplay(l *Ledger, n int, head string) (*Ledger, Commit, error) {
	if !slices.Contains(ReplayMisses(l, head), n) {
		return nil, Commit{}, fmt.Errorf("row %d on %s: %w", n, short(head), ErrNoReplayMiss)
	}
	p, _ := l.ProofOf(n)
	c := l.Clone()
	row, _ := c.Row(n)
	row.Status = Failed
	row.Attempts++
	miss := ReplayMiss(p)
	row.Evidence = cleanEvidence(fmt.Sprintf("iteration %d: %s", l.Iterations-1, miss))
	return c, Commit{
		Subject:  Subject{Kind: KindRepair, Row: n}.String(),
		Sentence: fmt.Sprintf("The evidence of row %d failed when gallivant replayed it: %s; the row is repaired in the row loop.", n, strings.TrimPrefix(miss, ReplayMissPrefix)),
		Trailers: []Trailer{{TrailerHead, head}},
	}, nil
}
