package ledger

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

func specKitOf(t *testing.T, src string) *specs.Spec {
	t.Helper()
	sp, ds := specs.ParseSpecKit(parse.Parse("specs/001-a/spec.md", []byte(src)), specs.Defaults{Repo: "acme/api", Base: "main", Format: specs.FormatSpecKit})
	if ds.HasErrors() {
		t.Fatalf("spec: %v", ds)
	}
	return sp
}

const specKitTwo = "# Feature Specification: A\n\n### User Story 1 - S (Priority: P1)\n\n**Acceptance Scenarios**:\n\n1. **Given** a, **When** b, **Then** c\n2. **Given** d, **When** e, **Then** f\n"

// A spec-kit or Kiro ledger names each row's criterion id in the Delivery
// section's labels: line, written at seeding, kept byte for byte, and
// rewritten by an amendment that appends criteria; a gallivant ledger has
// no such line.
func TestLedgerLabels(t *testing.T) {
	t.Parallel()
	sp := specKitOf(t, specKitTwo)
	l, _ := Seed(SeedInput{Spec: sp, SpecCommit: strings.Repeat("a", 40), Bases: map[string]string{specs.HomeMember: shaA}, Allowance: 4})
	if got := l.Delivery.Labels.String(); got != "1 US1.1, 2 US1.2" {
		t.Fatalf("labels = %q", got)
	}
	text := string(Format(l))
	if !strings.Contains(text, "\nbranch: gallivant/001-a\nlabels: 1 US1.1, 2 US1.2\nphase: implement\n") {
		t.Errorf("the ledger does not carry the labels after branch:\n%s", text)
	}
	back, ds := Parse("plans/001-a-ledger.md", []byte(text))
	if ds.HasErrors() {
		t.Fatalf("parse: %v", ds)
	}
	if diff := cmp.Diff(text, string(Format(back))); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	// An amendment that appends a story's scenario labels the new row.
	edited := specKitOf(t, specKitTwo+"3. **Given** g, **When** h, **Then** i\n")
	req, err := ParseRequest("- resnapshot | one more scenario")
	if err != nil {
		t.Fatal(err)
	}
	stopped, _ := Stop(back, StopSpecChanged, "the contract changed", 0)
	stopped.Requests = append(stopped.Requests, req.Line)
	n, _, err := Amend(stopped, sp, edited, strings.Repeat("b", 40), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Delivery.Labels.String(); got != "1 US1.1, 2 US1.2, 3 US1.3" {
		t.Errorf("labels after the amendment = %q", got)
	}

	plain := specOf(t, acList(2, nil))
	g, _ := Seed(SeedInput{Spec: plain, SpecCommit: strings.Repeat("a", 40), Bases: map[string]string{specs.HomeMember: shaA}, Allowance: 4})
	if strings.Contains(string(Format(g)), "labels:") {
		t.Errorf("a gallivant ledger has a labels: line:\n%s", Format(g))
	}
}

func TestParseLabelsRefuses(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "1", "US1.1", "2 US1.1, 1 US1.2", "1 US1.1,2 US1.2", "1 two", "01 US1.1", "1 US1.1, 1 US1.2"} {
		if _, err := ParseLabels(v); err == nil {
			t.Errorf("ParseLabels(%q) accepted it", v)
		}
	}
	got, err := ParseLabels("1 1.1, 3 2.1, 4 SC-001")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RowLabels{1: "1.1", 3: "2.1", 4: "SC-001"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
