package ledger

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A leg's evidence replay is recorded in its view's ## Proof; folding the
// view back takes the proofs of the rows the view attests and no other.
func TestLegFoldKeepsTheLegsProofs(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "testdata/roundtrip/coordinated-review.md")
	members := []string{"home", "api", "web"}
	apiRun := Proof{Row: 1, Head: proofHead, Exit: 0, Tests: "1+ tests", Duration: 9 * time.Millisecond, Command: "go test ./internal/audit -run TestAdminEvent"}
	l.SetProofs([]Proof{apiRun})
	webRun := Proof{Row: 2, Head: earlierHead, Exit: 0, Tests: "2 tests", Duration: 30 * time.Millisecond, Command: "npm test --prefix web -- audit-list"}
	forged := apiRun
	forged.Exit = 1
	v := l.LegView("web")
	v.SetProofs([]Proof{webRun, forged}) // row 1 is api's: not web's to record
	n := WithLeg(l, "web", v, members)
	if diff := cmp.Diff([]Proof{apiRun, webRun}, n.Proofs); diff != "" {
		t.Errorf("proofs after folding web (-want +got):\n%s", diff)
	}
	if got := WithLeg(l, "web", l.LegView("web"), members).Proofs; !cmp.Equal(got, []Proof{apiRun}) {
		t.Errorf("folding an unchanged view changed the proofs: %v", got)
	}
}
