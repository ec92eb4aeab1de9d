package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// GateInput is what the completion gate holds a pull request to: the
// identity it must carry, the spec as it is now, and the ledger.
type GateInput struct {
	Identity Identity
	Spec     *specs.Spec
	Ledger   *ledger.Ledger
}

// Problem is one completion-gate failure.
type Problem struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Blocking problems need a person; the others are answered by
	// rewriting gallivant's regions of the body.
	Blocking bool   `json:"blocking"`
	Clears   string `json:"clears,omitempty"`
}

// Gate rules.
const (
	GateIdentity = "identity"
	GateContract = "contract"
	GateReceipt  = "receipt"
	GateAttested = "attested"
)

// Gate is the completion gate: the body carries the expected
// identity; the spec's contract is still the approved one; the receipt is
// well-formed, equals the receipt the ledger renders (so its hash matches)
// and attests every acceptance criterion — done with evidence, or cut with
// its disposition. A malformed receipt is a failure, never an exception.
func Gate(d Digest, in GateInput) []Problem {
	var out []Problem
	add := func(rule string, blocking bool, clears, format string, args ...any) {
		out = append(out, Problem{Rule: rule, Blocking: blocking, Clears: clears, Message: fmt.Sprintf(format, args...)})
	}
	approved := in.Ledger.Delivery.Get(ledger.KeyContract)
	if now := in.Spec.Contract().Fingerprint(); approved != now {
		add(GateContract, true, "resnapshot | <why> in the ledger's ## Requests, or revert the spec",
			"the contract of %s is %s; the ledger approved %s", in.Identity.Spec, now, approved)
	}
	switch id, err := ParseIdentity(d.Body); {
	case err != nil:
		add(GateIdentity, false, "gallivant rewrites the identity block", "%v", err)
	case *id != in.Identity:
		add(GateIdentity, false, "gallivant rewrites the identity block", "the identity block names %s; this entry is %s", id.Block(), in.Identity.Block())
	}
	want := ReceiptFor(in.Ledger, in.Spec)
	got, err := ParseReceipt(d.Body)
	switch {
	case err != nil:
		add(GateReceipt, false, "gallivant rewrites the receipt", "%v", err)
	case ReceiptHash(got) != ReceiptHash(want):
		add(GateReceipt, false, "gallivant rewrites the receipt", "the receipt's hash %s differs from the ledger's %s", ReceiptHash(got), ReceiptHash(want))
	}
	for _, l := range want {
		switch l.Status {
		case "done":
			if strings.TrimSpace(l.Evidence) == "" {
				add(GateAttested, true, "a person records evidence for the row", "AC %d is done without evidence", l.AC)
			}
		case "cut":
			if ac := in.Spec.AC(l.AC); (ac == nil || !ac.Disposition.Cuts()) && !strings.HasPrefix(l.Evidence, "removed by amendment") {
				add(GateAttested, true, "give the AC a deviates:, deferred: or elsewhere: disposition, then resnapshot", "AC %d is cut but the spec gives it no cutting disposition", l.AC)
			}
		default:
			add(GateAttested, true, "the row loop must close the row first", "AC %d is not attested: its row is still %s", l.AC, l.Status)
		}
	}
	return out
}
