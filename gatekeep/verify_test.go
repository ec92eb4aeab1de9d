package gatekeep

import (
	"strings"
	"testing"
)

// L-104, L-105: the verification's record, its repair and its brief.
func TestVerifiedAndRepair(t *testing.T) {
	t.Parallel()
	l := reviewLedger(t)
	n, c := Verified(l, head, false, "go test ./limiter/...", "--- FAIL: TestLimit\nFAIL", nil)
	v, ok := VerifiedAt(n)
	if !ok || v.Head != head || v.Passed || v.Command != "go test ./limiter/..." {
		t.Errorf("VerifiedAt = %+v %v", v, ok)
	}
	if c.Subject != "loop: verify" || !strings.Contains(c.Text, "  --- FAIL: TestLimit") {
		t.Errorf("commit %q text %q", c.Subject, c.Text)
	}
	r, c := VerifyRepairStarted(n, head, now1)
	if r.Delivery.VerifyRepair != head || r.Delivery.DispatchedAt.IsZero() || c.Subject != "loop: repair verification" {
		t.Errorf("repair: %v %q", r.Delivery.Lines(), c.Subject)
	}
	p, _ := Verified(r, old, true, "", "", nil)
	if v, _ := VerifiedAt(p); !v.Passed || v.Head != old || !p.Delivery.DispatchedAt.IsZero() {
		t.Errorf("a passing verification settles the repair: %v", p.Delivery.Lines())
	}
	brief := VerifyBrief(VerifyBriefInput{Spec: "specs/x.md", Title: "X", Repo: "acme/api", Branch: "gallivant/x", Head: head,
		Command: "go test ./...", Tail: "iteration: 99\n--- FAIL"})
	if first := strings.Index(brief, "iteration: "); first < 0 || !strings.HasPrefix(brief[first:], "iteration: none") {
		t.Errorf("the fact block does not come first:\n%s", brief)
	}
}
