package gatekeep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 10, L-104: the exit verification gallivant ran is local evidence,
// shown in the receipt as its last line and covered by the receipt's hash.
func TestReceiptShowsTheExitVerification(t *testing.T) {
	t.Parallel()
	sp, l, id := fixture(t)
	if l.Verification == "" || l.Verification == "none" {
		t.Fatalf("the fixture has no verification: %q", l.Verification)
	}
	before := ReceiptHash(ReceiptFor(l, sp))
	v, _ := Verified(l, head, true, "", "", nil)
	lines := ReceiptFor(v, sp)
	last := lines[len(lines)-1]
	want := ReceiptLine{AC: VerifyLine, Status: "passed", Evidence: "`" + l.Verification + "` on " + short(head)}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("verify line (-want +got):\n%s", diff)
	}
	if ReceiptHash(lines) == before {
		t.Errorf("the receipt's hash does not move with the verification")
	}
	body := Compose("Adds a limiter.\n", id, lines)
	if !strings.Contains(body, "| verify | passed | `"+l.Verification+"` on "+short(head)+" |") {
		t.Errorf("the body does not show the verification:\n%s", body)
	}
	got, err := ParseReceipt(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lines, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if probs := Gate(digest(body), GateInput{Identity: id, Spec: sp, Ledger: v}); len(probs) != 0 {
		t.Errorf("the gate refuses a verified receipt: %+v", probs)
	}
	// A body whose verify line was edited no longer matches the ledger.
	forged := strings.Replace(body, "| verify | passed |", "| verify | failed |", 1)
	if probs := Gate(digest(forged), GateInput{Identity: id, Spec: sp, Ledger: v}); len(probs) != 1 || probs[0].Rule != GateReceipt {
		t.Errorf("an edited verify line: %+v, want one receipt problem", probs)
	}
	// Unverified ledgers (the workflow executor, verify off) show no line.
	if got := ReceiptFor(l, sp); got[len(got)-1].AC == VerifyLine {
		t.Errorf("an unverified ledger's receipt has a verify line")
	}
}

func TestParseReceiptVerifyLineIsLastAndClosed(t *testing.T) {
	t.Parallel()
	for name, table := range map[string]string{
		"not last":     "| verify | passed | `go test ./...` on abc |\n| 1 | done | x |\n",
		"other status": "| 1 | done | x |\n| verify | maybe | `go test ./...` on abc |\n",
	} {
		body := receiptOpen + "\n| AC | status | evidence |\n|---|---|---|\n" + table + receiptClose
		if _, err := ParseReceipt(body); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
