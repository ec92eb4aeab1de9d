package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// Issue 10: a rewritten head is followed and stopped in one commit, so a
// crash between the two can never leave the new head recorded without the
// stop (the gate would then judge old evidence against the new head).
func TestRewrittenFollowsAndStopsInOneCommit(t *testing.T) {
	l := reviewLedger(t)
	n, c := Rewritten(l, pr1, old, h1)
	if got := n.Delivery.Head; got != head {
		t.Errorf("head %s, want %s", got, head)
	}
	reason, detail, stopped := n.Stop()
	if !stopped || reason != ledger.StopBoundary {
		t.Fatalf("stop %q stopped %v, want boundary", reason, stopped)
	}
	for _, want := range []string{"rewritten", short(head), short(old)} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q does not name %q", detail, want)
		}
	}
	if c.Subject != "loop: stop boundary" {
		t.Errorf("subject %q", c.Subject)
	}
	var prTrailer, headTrailer bool
	for _, tr := range c.Trailers {
		prTrailer = prTrailer || (tr.Key == ledger.TrailerPR && tr.Value == pr1.String())
		headTrailer = headTrailer || (tr.Key == ledger.TrailerHead && tr.Value == head)
	}
	if !prTrailer || !headTrailer {
		t.Errorf("trailers %v, want the pull request and the new head", c.Trailers)
	}
	if l.Delivery.Head != old {
		t.Errorf("the input ledger was changed")
	}
}
