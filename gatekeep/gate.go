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
	// RequireProof holds every done row to gallivant's own run of its
	// evidence command on the pull request's head (evidence replay): set
	// where the executor holds a checkout and verifies.
	RequireProof bool
	// CheckProof, set where the executor holds no checkout (workflow,
	// none), holds the head to the check executor.proof_check names
	// (ProofCheckFor).
	CheckProof *ProofCheck
}

// Problem is one completion-gate failure.
type Problem struct {
	Rule    DenyCode `json:"rule"`
	Message string   `json:"message"`
	// Blocking problems need a person; the others are answered by
	// rewriting gallivant's regions of the body.
	Blocking bool   `json:"blocking"`
	Clears   string `json:"clears,omitempty"`
}

// DenyCode names why the completion gate refuses a pull request.
// `gallivant gatekeep` and `gallivant why` print it; docs/gatekeep.md lists
// every code with what clears it.
type DenyCode string

// Deny codes.
const (
	GateIdentity DenyCode = "identity"
	GateContract DenyCode = "contract"
	GateReceipt  DenyCode = "receipt"
	GateAttested DenyCode = "attested"
	// GateUnselective: a done row's evidence is not one selective check.
	GateUnselective DenyCode = "evidence-unselective"
	// GateFailed: a done row's evidence reports a failure.
	GateFailed DenyCode = "evidence-failed"
	// GateStaleHead: the ledger attests another head than the pull
	// request's.
	GateStaleHead DenyCode = "stale-head"
	// GateEmpty: the pull request changes no file.
	GateEmpty DenyCode = "empty-diff"
	// GateUnproven: a done row's evidence command was not run by
	// gallivant on the pull request's head, failed there, or selected no
	// test.
	GateUnproven DenyCode = "evidence-unproven"
)

// Gate is the completion gate. The body carries the expected
// identity; the spec's contract is still the approved one; the ledger
// attests the pull request's head; the pull request changes at least one
// file; the receipt is well-formed and equals the receipt the ledger
// renders (so its hash matches); where proof is required, every done row's
// evidence command was run by gallivant on the head, exited 0 and selected
// a test; and every acceptance criterion is attested
// — cut with its disposition, or done with evidence that is one selective
// check and reports no failure. A malformed receipt is a failure, never an
// exception.
func Gate(d Digest, in GateInput) []Problem {
	var out problems
	out.contract(in)
	out.identity(d, in)
	if head := in.Ledger.Delivery.Head; head != "" && d.HeadSHA != "" && head != d.HeadSHA {
		out.add(GateStaleHead, true, "the loop follows the new head on its next pass",
			"the ledger attests %s but the pull request's head is %s", short(head), short(d.HeadSHA))
	}
	if d.FilesKnown && len(d.Files) == 0 {
		out.add(GateEmpty, true, "close the pull request: there is nothing to deliver",
			"the pull request changes no file")
	}
	want := ReceiptFor(in.Ledger, in.Spec)
	out.receipt(d, want)
	if in.RequireProof && d.HeadSHA != "" {
		if p := ProofProblem(in.Ledger, d.HeadSHA); p != nil {
			out = append(out, *p)
		}
	}
	if in.CheckProof != nil && d.HeadSHA != "" {
		if p := CheckProblem(d, *in.CheckProof); p != nil {
			out = append(out, *p)
		}
	}
	verifications := verificationCommands(in.Ledger.Verification)
	for _, l := range want {
		if l.AC == VerifyLine || l.AC == ProofLine {
			// Compared through the receipt's hash; a failed verification
			// never reaches a pull request (verify-failed stops first).
			continue
		}
		out.attested(in, l, verifications)
	}
	return out
}

// problems collects the completion gate's failures in the order the gate
// checks them.
type problems []Problem

// add appends one failure.
func (ps *problems) add(rule DenyCode, blocking bool, clears, format string, args ...any) {
	*ps = append(*ps, Problem{Rule: rule, Blocking: blocking, Clears: clears, Message: fmt.Sprintf(format, args...)})
}

// contract fails the gate when the spec's contract is no longer the one the
// ledger approved.
func (ps *problems) contract(in GateInput) {
	approved := in.Ledger.Delivery.Contract
	if now := in.Spec.Contract().Fingerprint(); approved != now {
		ps.add(GateContract, true, "resnapshot | <why> in the ledger's ## Requests, or revert the spec",
			"the contract of %s is %s; the ledger approved %s", in.Identity.Spec, now, approved)
	}
}

// identity fails the gate when the body's identity block is malformed or
// names another entry.
func (ps *problems) identity(d Digest, in GateInput) {
	switch id, err := ParseIdentity(d.Body); {
	case err != nil:
		ps.add(GateIdentity, false, "gallivant rewrites the identity block", "%v", err)
	case *id != in.Identity:
		ps.add(GateIdentity, false, "gallivant rewrites the identity block", "the identity block names %s; this entry is %s", id.Block(), in.Identity.Block())
	}
}

// receipt fails the gate when the body's receipt is malformed or differs
// from the one the ledger renders.
func (ps *problems) receipt(d Digest, want []ReceiptLine) {
	got, err := ParseReceipt(d.Body)
	switch {
	case err != nil:
		ps.add(GateReceipt, false, "gallivant rewrites the receipt", "%v", err)
	case ReceiptHash(got) != ReceiptHash(want):
		ps.add(GateReceipt, false, "gallivant rewrites the receipt", "the receipt's hash %s differs from the ledger's %s", ReceiptHash(got), ReceiptHash(want))
	}
}

// attested fails the gate when one receipt line's criterion is not
// attested: done without evidence, with evidence that is not one selective
// check or reports a failure, cut without a cutting disposition, or still
// open.
func (ps *problems) attested(in GateInput, l ReceiptLine, verifications []string) {
	reopen := fmt.Sprintf("reopen %d | <why> in the ledger's ## Requests", rowOf(in.Ledger, l.AC))
	switch l.Status {
	case "done":
		ev := strings.TrimSpace(l.Evidence)
		if ev == "" {
			ps.add(GateAttested, true, reopen, "AC %d is done without evidence", l.AC)
			return
		}
		if err := ledger.CheckEvidence(ev, verifications); err != nil {
			ps.add(GateUnselective, true, reopen, "AC %d: %v", l.AC, err)
		}
		if line := ledger.EvidenceFailure(ev); line != "" {
			ps.add(GateFailed, true, reopen, "AC %d is done but its evidence reports a failure: %q", l.AC, line)
		}
	case "cut":
		if ac := in.Spec.AC(l.AC); (ac == nil || !ac.Disposition.Cuts()) && !strings.HasPrefix(l.Evidence, "removed by amendment") {
			ps.add(GateAttested, true, "give the AC a deviates:, deferred: or elsewhere: disposition, then resnapshot", "AC %d is cut but the spec gives it no cutting disposition", l.AC)
		}
	default:
		ps.add(GateAttested, true, "the row loop must close the row first", "AC %d is not attested: its row is still %s", l.AC, l.Status)
	}
}

// verificationCommands splits a ledger's verification into the whole-suite
// commands evidence must not repeat.
func verificationCommands(v string) []string {
	out := []string{v}
	for _, c := range strings.Split(v, " && ") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// rowOf returns the first ledger row tracking an AC.
func rowOf(l *ledger.Ledger, ac int) int {
	for _, r := range l.Rows {
		if l.ACOf(r.N) == ac {
			return r.N
		}
	}
	return ac
}

// ProofProblem is the evidence-unproven denial of head, or nil when every
// done row of the ledger is proved on it.
func ProofProblem(l *ledger.Ledger, head string) *Problem {
	rows := Unproven(l, head)
	if len(rows) == 0 {
		return nil
	}
	return &Problem{Rule: GateUnproven, Blocking: true, Clears: "gallivant replays the evidence on the head before the ready label",
		Message: fmt.Sprintf("%s not proved on %s: gallivant did not run its evidence command there, or the run failed or selected no test", rowList(rows), short(head))}
}

// rowList names rows: `row 2 is`, `rows 2, 3 are`.
func rowList(rows []int) string {
	if len(rows) == 1 {
		return fmt.Sprintf("row %d is", rows[0])
	}
	ns := make([]string, len(rows))
	for i, r := range rows {
		ns[i] = fmt.Sprint(r)
	}
	return "rows " + strings.Join(ns, ", ") + " are"
}
