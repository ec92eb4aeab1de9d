package reconcile

import (
	"fmt"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// chainFacts is what the chain rule judges a milestone by,
// gathered from the control repository before any GitHub read.
type chainFacts struct {
	Pos    specs.ChainPos
	Seeded bool // the milestone has a ledger: it is under way, not a future milestone
	// Changed is the first refusal of a started chain's predecessors
	// (ledger.Repo.ChainChanged), "" when none was reordered.
	Changed string
	// Prev is the predecessor's spec (nil when absent) and PrevLedger its
	// ledger (nil when not seeded).
	Prev       *specs.Spec
	PrevLedger *ledger.Ledger
}

// chainHold is the pure part of the chain gate: held reports that the
// milestone must wait and why; when it is false and merge is true, the
// milestone may go on only once GitHub confirms the predecessor merged
// into the chain's base (mergedIntoBase).
//
// A paused chain holds every milestone after the first. A cancelled chain
// stops its future milestones only: a milestone already seeded — the one
// under way when the chain was cancelled — finishes, still behind its
// predecessor's merge.
func chainHold(f chainFacts) (held bool, why string, merge bool) {
	cp := f.Pos
	if cp.Chain == nil || cp.K == 1 {
		return false, "", false
	}
	switch cp.Chain.Status {
	case specs.StatusActive:
	case specs.StatusCancelled:
		if !f.Seeded {
			return true, fmt.Sprintf("chain %s is %s", cp.Chain.Path, cp.Chain.Status), false
		}
	default:
		return true, fmt.Sprintf("chain %s is %s", cp.Chain.Path, cp.Chain.Status), false
	}
	if f.Changed != "" {
		return true, "refused: " + f.Changed, false
	}
	if f.Prev != nil && f.Prev.Status == specs.StatusCancelled {
		return true, fmt.Sprintf("chain %s is stopped: milestone %d (%s) is cancelled", cp.Chain.Path, cp.K-1, f.Prev.Path), false
	}
	prev := cp.Chain.Milestones[cp.K-2].Path
	pl := f.PrevLedger
	if pl == nil {
		return true, fmt.Sprintf("waits for milestone %d of %s (%s) to be seeded and merged", cp.K-1, cp.Chain.Path, prev), false
	}
	if reason, _, stopped := pl.Stop(); stopped {
		return true, fmt.Sprintf("chain %s is stopped: milestone %d (%s) stopped %s", cp.Chain.Path, cp.K-1, prev, reason), false
	}
	if pl.Phase() != ledger.PhaseDone {
		pr := ""
		if v := pl.Delivery.PRText(); v != "" {
			pr = ", " + v
		}
		return true, fmt.Sprintf("waits for milestone %d of %s (%s%s) to be merged", cp.K-1, cp.Chain.Path, prev, pr), false
	}
	return false, "", true
}
