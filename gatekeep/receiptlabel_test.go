package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

const specKitSrc = `# Feature Specification: Rate limits

### User Story 1 - Wait when throttled (Priority: P1)

**Acceptance Scenarios**:

1. **Given** 100 requests, **When** one more arrives, **Then** it gets 429
2. **Given** a 429, **When** the client reads it, **Then** Retry-After is set
`

// A spec-kit (or Kiro) criterion is attested in the receipt under its own
// id, after the row number, and the labelled receipt round-trips and
// passes the gate.
func TestReceiptLabelsForeignCriteria(t *testing.T) {
	t.Parallel()
	sp, ds := specs.ParseSpecKit(parse.Parse("specs/001-limits/spec.md", []byte(specKitSrc)), specs.Defaults{Repo: "acme/api", Base: "main", Format: specs.FormatSpecKit})
	if ds.HasErrors() {
		t.Fatalf("spec: %v", ds)
	}
	l, _ := ledger.Seed(ledger.SeedInput{Spec: sp, SpecCommit: strings.Repeat("a", 40), Bases: map[string]string{specs.HomeMember: old}, Allowance: 4})
	for i := range l.Rows {
		l.Rows[i].Status, l.Rows[i].Evidence = ledger.Done, "go test ./limiter -run TestLimit; ok"
	}
	lines := ReceiptFor(l, sp)
	want := []ReceiptLine{
		{AC: 1, Label: "US1.1", Status: "done", Evidence: "go test ./limiter -run TestLimit; ok"},
		{AC: 2, Label: "US1.2", Status: "done", Evidence: "go test ./limiter -run TestLimit; ok"},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("receipt (-want +got):\n%s", diff)
	}
	id := Identity{Control: "acme/control", Spec: sp.Path, Ledger: "plans/001-limits-ledger.md", Member: specs.HomeMember, Contract: sp.Contract().Fingerprint()}
	body := Compose("Adds limits.\n", id, lines)
	for _, row := range []string{"| 1 US1.1 | done |", "| 2 US1.2 | done |"} {
		if !strings.Contains(body, row) {
			t.Errorf("the body lacks %q:\n%s", row, body)
		}
	}
	got, err := ParseReceipt(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lines, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if probs := Gate(digest(body), GateInput{Identity: id, Spec: sp, Ledger: l}); len(probs) != 0 {
		t.Errorf("the gate refuses a labelled receipt: %+v", probs)
	}
}

func TestParseReceiptRefusesBadLabels(t *testing.T) {
	t.Parallel()
	for _, cell := range []string{"1 US1", "1 two", "1  US1.1", "1 US1.1 x", "US1.1"} {
		body := receiptOpen + "\n| AC | status | evidence |\n|---|---|---|\n| " + cell + " | done | x |\n" + receiptClose
		if _, err := ParseReceipt(body); err == nil {
			t.Errorf("ParseReceipt accepted the AC cell %q", cell)
		}
	}
}
