package gatekeep

import (
	"github.com/gallivant/gallivant/ledger"
)

// RoundNotRun settles a round whose agent failed for its environment (it
// could not authenticate, its quota was spent, it lost its checkout or
// its disk) before answering anything: as RoundInterrupted — no round is
// charged, the feedback cursor stays before the feedback it was to
// answer, nothing is owed on the pull request — and the checks-head
// cursor RoundStarted moved to the round's head goes back, so failing
// checks or a conflict on that head are new again and the next round
// answers them, rather than a checks-red or conflict stop for checks no
// agent saw. A round that answers checks or a conflict starts only when
// none was answered on its head (judge, ConflictAnswered), so a
// checks-head equal to the round's head is this round's.
func RoundNotRun(l *ledger.Ledger, pr PR) (*ledger.Ledger, ledger.Commit) {
	n, c := RoundInterrupted(l, pr)
	if d := n.Delivery; d.ChecksHead != "" && d.ChecksHead == d.Head {
		d.ChecksHead = ""
	}
	return n, c
}
