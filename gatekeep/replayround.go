package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// A failed evidence replay under review (docs/delivery.md "Evidence
// replay"). Before the pull request opens a replay miss is a miss against
// its row (ledger.RepairReplay). Once the pull request is open, the row
// loop is over and the head belongs to the pull-request loop, so a replay
// that fails on a new head is answered like red CI on it: one fix
// round for that head with the failure as its finding, bounded by
// defaults.max_rounds; still failing on the head a round was dispatched
// for (its agent pushed nothing) stops verify-failed.

// ReplayAnswer is what a failed verification of the head under review asks
// for.
type ReplayAnswer int

// Answers to a failed verification under review.
const (
	// ReplayNothing: the head's verification did not fail.
	ReplayNothing ReplayAnswer = iota
	// ReplayRound: a fix round answers the rows' failed replays.
	ReplayRound
	// ReplayStop: stop verify-failed — a Verify command failed (a person
	// decides), or a fix round was already dispatched for this head.
	ReplayStop
)

// AnswerReplay decides what the failed verification of head, the head
// under review, asks for.
func AnswerReplay(l *ledger.Ledger, head string) ReplayAnswer {
	v, ok := VerifiedAt(l)
	if !ok || v.Head != head || v.Passed {
		return ReplayNothing
	}
	if len(ledger.ReplayMisses(l, head)) == 0 || l.Delivery.ChecksHead == head {
		return ReplayStop
	}
	return ReplayRound
}

// ReplayFindings are the findings of a fix round for the failed replays on
// head: one a failing command, naming its rows, the command and what the
// run found, with the output's tail (untrusted, quoted as data by the
// brief) as its text; "" tail says where the output is.
func ReplayFindings(l *ledger.Ledger, head, tail string) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, n := range ledger.ReplayMisses(l, head) {
		p, _ := l.ProofOf(n)
		if seen[p.Command] {
			continue
		}
		seen[p.Command] = true
		if tail == "" {
			tail = "(the output is in the loop: verify commit of the control repository)"
		}
		out = append(out, Finding{Source: SourceReplay, State: fmt.Sprintf("exit %d, %s", p.Exit, p.Tests),
			Where: fmt.Sprintf("of %s on %s: `%s` exited %d (%s)", RowsOf(l, p.Command), short(head), p.Command, p.Exit, p.Tests),
			Text:  strings.TrimRight(tail, "\n"), New: true})
	}
	return out
}
