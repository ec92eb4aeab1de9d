package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const proofHead = "9b1c0d2e3f405162738495a6b7c8d9e0f1a2b3c4"

// A proof line round-trips, and each malformed field is named by its column.
func TestParseProof(t *testing.T) {
	t.Parallel()
	good := Proof{Row: 2, Head: proofHead, Exit: 0, Tests: "1+ tests", Duration: 412 * time.Millisecond, Command: "go test ./calc -run TestAdd"}
	got, _, err := ParseProof(good.String())
	if err != nil {
		t.Fatalf("ParseProof(%q): %v", good.String(), err)
	}
	if diff := cmp.Diff(good, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	tests := []struct {
		line string
		col  int
		want string
	}{
		{"row 0 | " + proofHead + " | exit 0 | 1 test | 1ms | go test ./x -run TestY", 1, "is not `row <n>`"},
		{"row 2 | " + proofHead + " | exit 0 | 1 test | 1ms | ", 76, "is empty"},
		{"row 2 | " + proofHead + " | exit 0 | 1 test", 1, "6 fields"},
		{"row 2 | " + proofHead + " carried from " + proofHead + " | exit 0 | 1 test | 1ms | a b", 9, "another head"},
		{"row 2 | " + proofHead + " carried from abc | exit 0 | 1 test | 1ms | a b", 9, "carried from"},
		{"row 2 | " + proofHead + " carried " + earlierHead + " | exit 0 | 1 test | 1ms | a b", 9, "carried from"},
		{"row 2 | " + strings.ToUpper(proofHead) + " | exit 0 | 1 test | 1ms | a b", 9, "40-hex"},
		{"row 2 | " + proofHead + " | status 0 | 1 test | 1ms | a b", 52, "exit <status>"},
		{"row 2 | " + proofHead + " | exit 0 | 2 test | 1ms | a b", 61, "<n> tests"},
		{"row 2 | " + proofHead + " | exit 0 | 01 tests | 1ms | a b", 61, "<n> tests"},
		{"row 2 | " + proofHead + " | exit 0 | 1 test | 1.5s | a b", 70, "milliseconds"},
		{"row 2 | " + proofHead + " | exit 0 | 1 test | 1ms | a \x1b[31m", 76, "control character"},
		{"row 2 | " + proofHead + " | exit 0 | 1 test | 1ms | " + strings.Repeat("x", MaxProofCommand+1), 76, "longer than"},
	}
	for _, tt := range tests {
		_, col, err := ParseProof(tt.line)
		if err == nil || !strings.Contains(err.Error(), tt.want) || col != tt.col {
			t.Errorf("ParseProof(%q) = col %d, %v; want col %d and %q", tt.line, col, err, tt.col, tt.want)
		}
	}
}

const earlierHead = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d"

// A carried proof names the head it holds on and the head its run was on;
// it round-trips, and Ran is the earlier head.
func TestParseCarriedProof(t *testing.T) {
	t.Parallel()
	line := "row 1 | " + proofHead + " carried from " + earlierHead + " | exit 0 | assertion | 3ms | test -f rows/row-1.txt"
	got, _, err := ParseProof(line)
	if err != nil {
		t.Fatalf("ParseProof(%q): %v", line, err)
	}
	want := Proof{Row: 1, Head: proofHead, CarriedFrom: earlierHead, Tests: "assertion", Duration: 3 * time.Millisecond, Command: "test -f rows/row-1.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseProof (-want +got):\n%s", diff)
	}
	if got.String() != line {
		t.Errorf("String() = %q, want %q", got.String(), line)
	}
	if got.Ran() != earlierHead {
		t.Errorf("Ran() = %s, want %s", got.Ran(), earlierHead)
	}
	if r := (Proof{Head: proofHead}).Ran(); r != proofHead {
		t.Errorf("Ran() of a proof run on its head = %s, want %s", r, proofHead)
	}
}

// SetProofs replaces a row's proof and keeps the section in row order.
func TestSetProofs(t *testing.T) {
	t.Parallel()
	p := func(row int, cmd string) Proof {
		return Proof{Row: row, Head: proofHead, Tests: "1 test", Command: cmd}
	}
	l := &Ledger{}
	l.SetProofs([]Proof{p(3, "a"), p(1, "b")})
	l.SetProofs([]Proof{p(2, "c"), p(3, "d")})
	want := []Proof{p(1, "b"), p(2, "c"), p(3, "d")}
	if diff := cmp.Diff(want, l.Proofs); diff != "" {
		t.Errorf("proofs (-want +got):\n%s", diff)
	}
	if !l.HasProof {
		t.Error("HasProof is false after SetProofs")
	}
}

func TestProved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Proof
		want bool
	}{
		{Proof{Exit: 0, Tests: "1+ tests"}, true},
		{Proof{Exit: 0, Tests: "assertion"}, true},
		{Proof{Exit: 0, Tests: "0 tests"}, false},
		{Proof{Exit: 1, Tests: "3 tests"}, false},
	}
	for _, tt := range tests {
		if got := tt.p.Proved(); got != tt.want {
			t.Errorf("%+v.Proved() = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// ParseProof never panics; what it accepts renders back to the same line.
func FuzzParseProof(f *testing.F) {
	f.Add("row 2 | " + proofHead + " | exit 0 | 1+ tests | 412ms | go test ./calc -run TestAdd")
	f.Add("row 1 | " + proofHead + " | exit 1 | assertion | 0ms | test -f docs/x.md")
	f.Add("row 1 | x | | | |")
	f.Add("row 3 | " + proofHead + " carried from " + earlierHead + " | exit 0 | 2 tests | 9ms | go test ./calc")
	f.Fuzz(func(t *testing.T, line string) {
		p, col, err := ParseProof(line)
		if err != nil {
			if col < 1 || col > len([]rune(line))+1 {
				t.Fatalf("column %d outside the line %q", col, line)
			}
			return
		}
		if p.String() != line {
			t.Fatalf("ParseProof(%q) renders %q", line, p.String())
		}
	})
}
