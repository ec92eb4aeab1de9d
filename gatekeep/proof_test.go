package gatekeep

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// proofFixture is the gate fixture with three done rows sharing one
// evidence command.
func proofFixture(t *testing.T) (*ledger.Ledger, []int) {
	t.Helper()
	_, l, _ := fixture(t)
	var done []int
	for _, r := range l.Rows {
		if r.Status == ledger.Done {
			done = append(done, r.N)
		}
	}
	if len(done) < 2 {
		t.Fatalf("the fixture has %d done rows; the test needs two sharing a command", len(done))
	}
	return l, done
}

func proved(rows []int, h string, exit int, tests string) []ledger.Proof {
	var out []ledger.Proof
	for _, r := range rows {
		out = append(out, ledger.Proof{Row: r, Head: h, Exit: exit, Tests: tests, Duration: 40 * time.Millisecond, Command: "go test ./limiter -run TestLimit"})
	}
	return out
}

// Rows that share one command share one run; rows proved on the head are
// not run again; a failed or empty run, or one on another head, is not
// proof.
func TestReplayChecks(t *testing.T) {
	t.Parallel()
	l, done := proofFixture(t)
	tests := []struct {
		name   string
		proofs []ledger.Proof
		want   []ReplayCheck
	}{
		{"nothing proved: one run for the shared command", nil, []ReplayCheck{{Command: "go test ./limiter -run TestLimit", Rows: done}}},
		{"proved on the head", proved(done, head, 0, "1+ tests"), nil},
		{"proved on another head", proved(done, old, 0, "1+ tests"), []ReplayCheck{{Command: "go test ./limiter -run TestLimit", Rows: done}}},
		{"the run selected no test", proved(done, head, 0, "0 tests"), []ReplayCheck{{Command: "go test ./limiter -run TestLimit", Rows: done}}},
		{"the run failed", proved(done, head, 1, "3 tests"), []ReplayCheck{{Command: "go test ./limiter -run TestLimit", Rows: done}}},
		{"one row proved", proved(done[:1], head, 0, "assertion"), []ReplayCheck{{Command: "go test ./limiter -run TestLimit", Rows: done[1:]}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := l.Clone()
			n.SetProofs(tt.proofs)
			if diff := cmp.Diff(tt.want, ReplayChecks(n, head)); diff != "" {
				t.Errorf("ReplayChecks (-want +got):\n%s", diff)
			}
		})
	}
}

// The gate denies evidence-unproven for a head whose done rows gallivant
// did not prove, only where proof is required; the receipt shows each
// proof, and a body carrying it passes.
func TestGateEvidenceUnproven(t *testing.T) {
	t.Parallel()
	sp, l, id := fixture(t)
	_, done := proofFixture(t)
	withProofs := func(ps []ledger.Proof) *ledger.Ledger {
		n := l.Clone()
		n.SetProofs(ps)
		return n
	}
	tests := []struct {
		name    string
		l       *ledger.Ledger
		require bool
		want    []DenyCode
	}{
		{"proved on the head", withProofs(proved(done, head, 0, "1+ tests")), true, nil},
		{"never replayed", l, true, []DenyCode{GateUnproven}},
		{"replayed on an older head", withProofs(proved(done, old, 0, "1+ tests")), true, []DenyCode{GateUnproven}},
		{"the filter selected no test", withProofs(proved(done, head, 0, "0 tests")), true, []DenyCode{GateUnproven}},
		{"the command fails on the head", withProofs(proved(done, head, 1, "1+ tests")), true, []DenyCode{GateUnproven}},
		{"proof not required (no local checkout)", l, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := digest(Compose("x", id, ReceiptFor(tt.l, sp)))
			var got []DenyCode
			for _, p := range Gate(d, GateInput{Identity: id, Spec: sp, Ledger: tt.l, RequireProof: tt.require}) {
				got = append(got, p.Rule)
				if p.Rule == GateUnproven && !strings.Contains(p.Message, "not proved on 1111111") {
					t.Errorf("message %q does not name the head", p.Message)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("gate problems (-want +got):\n%s", diff)
			}
		})
	}
}

// The receipt shows per row the command gallivant ran, the head, the
// result and the tests selected, and reads back to the same lines.
func TestReceiptShowsProof(t *testing.T) {
	t.Parallel()
	sp, l, id := fixture(t)
	_, done := proofFixture(t)
	n := l.Clone()
	n.SetProofs(append(proved(done[:1], head, 0, "3 tests"), proved(done[1:], head, 0, "0 tests")...))
	lines := ReceiptFor(n, sp)
	body := Compose("x", id, lines)
	want := "| proof | passed | row 1: `go test ./limiter -run TestLimit` on 1111111, exit 0, 3 tests |"
	if !strings.Contains(body, want) {
		t.Errorf("the receipt lacks %q:\n%s", want, body)
	}
	if !strings.Contains(body, "| proof | no-test |") {
		t.Errorf("the receipt does not show the run that selected nothing:\n%s", body)
	}
	got, err := ParseReceipt(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lines, got); diff != "" {
		t.Errorf("ParseReceipt (-want +got):\n%s", diff)
	}
	if ReceiptHash(lines) == ReceiptHash(ReceiptFor(l, sp)) {
		t.Error("the receipt's hash does not move with its proof")
	}
	// An AC line after a proof line is out of place.
	bad := strings.Replace(body, want, want+"\n| 9 | done | x |", 1)
	if _, err := ParseReceipt(bad); err == nil {
		t.Error("an AC line after the proof lines was accepted")
	}
}

// The loop: verify commit records each run in ## Proof and as a
// Gallivant-Proof trailer, the facts gallivant verify replays.
func TestVerifiedRecordsProof(t *testing.T) {
	t.Parallel()
	l, done := proofFixture(t)
	ps := proved(done, head, 0, "1+ tests")
	n, c := Verified(l, head, true, "", "", ps)
	if diff := cmp.Diff(ps, n.Proofs); diff != "" {
		t.Errorf("## Proof (-want +got):\n%s", diff)
	}
	var trailers []string
	for _, tr := range c.Trailers {
		if tr.Key == ledger.TrailerProof {
			trailers = append(trailers, tr.Value)
		}
	}
	if len(trailers) != len(ps) || trailers[0] != ps[0].String() {
		t.Errorf("trailers %q, want one a proof", trailers)
	}
	if !strings.Contains(c.Sentence, "replayed") {
		t.Errorf("sentence %q does not say the evidence was replayed", c.Sentence)
	}
	brief := VerifyBrief(VerifyBriefInput{Spec: "specs/x.md", Title: "X", Repo: "acme/api", Branch: "gallivant/x", Head: head,
		Command: "go test ./limiter -run TestLimit", Tail: "(gallivant replayed the evidence command: exit status 0, 0 tests)", Rows: "rows 1, 2"})
	if !strings.Contains(brief, "gallivant replayed the evidence of rows 1, 2 on 1111111") || !strings.Contains(brief, "exit status 0, 0 tests") {
		t.Errorf("the repair brief does not name the rows and the run:\n%s", brief)
	}
}

// The verification repair of a row's evidence uses the escalation model
// when the row loop would for that row (L-44): its escalation spent, or its
// attempts at the threshold; a Verify command's repair runs on the default.
func TestRepairModel(t *testing.T) {
	t.Parallel()
	l, done := proofFixture(t)
	s := ledger.Settings{EscalateAfter: 3, EscalationModel: "big-model"}
	cmd := "go test ./limiter -run TestLimit"
	atThreshold := l.Clone()
	for i := range atThreshold.Rows {
		if atThreshold.Rows[i].N == done[0] {
			atThreshold.Rows[i].Attempts = atThreshold.EscalationThreshold(done[0], 3)
		}
	}
	tests := []struct {
		name string
		l    *ledger.Ledger
		cmd  string
		s    ledger.Settings
		want string
	}{
		{"rows below the threshold", l, cmd, s, ""},
		{"a row at the threshold", atThreshold, cmd, s, "big-model"},
		{"a Verify command names no row", atThreshold, "go test ./...", s, ""},
		{"no escalation model", atThreshold, cmd, ledger.Settings{EscalateAfter: 3}, ""},
	}
	for _, tt := range tests {
		if got := RepairModel(tt.l, tt.cmd, tt.s); got != tt.want {
			t.Errorf("%s: RepairModel = %q, want %q", tt.name, got, tt.want)
		}
	}
}
