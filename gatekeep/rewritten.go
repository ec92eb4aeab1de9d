package gatekeep

import (
	"fmt"

	"github.com/gallivant/gallivant/ledger"
)

// Rewritten records a head that does not contain the head the ledger
// attests: someone rewrote the pull request's history (a force-push, a
// rebase), so the commits on which the rows' evidence was admitted may no
// longer be in it and the receipt would attest work the pull request does
// not carry (issue 10). The ledger follows the new head and stops
// `boundary` in the same commit, so no crash can leave a followed head
// without the stop; `resume` is a person's word that the rewritten history
// carries the attested work, and the loop goes on from the new head.
func Rewritten(l *ledger.Ledger, pr PR, old string, h Head) (*ledger.Ledger, ledger.Commit) {
	followed := l.Clone()
	watch(followed.Delivery, h)
	n, c := ledger.Stop(followed, ledger.StopBoundary, fmt.Sprintf("the head of %s was rewritten: %s does not contain %s, the head whose evidence the ledger attests", pr, short(h.SHA), short(old)), 0)
	c.Trailers = append(c.Trailers, trailers(pr, h.SHA)...)
	return n, c
}
