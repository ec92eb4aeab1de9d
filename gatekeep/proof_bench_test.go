package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// What evidence replay adds to a pass for a 3-row spec whose rows share
// one command: one command run for the three rows, planned (ReplayChecks)
// and then checked at the ready step (ProofProblem) once proved.
func BenchmarkReplayThreeRowsOneCommand(b *testing.B) {
	l := &ledger.Ledger{Rows: []ledger.Row{
		{N: 1, Status: ledger.Done, Attempts: 1, Evidence: "go test ./calc -run 'TestAdd$'; ok"},
		{N: 2, Status: ledger.Done, Attempts: 1, Evidence: "go test ./calc -run 'TestAdd$'; ok"},
		{N: 3, Status: ledger.Done, Attempts: 2, Evidence: "go test ./calc -run 'TestAdd$'; ok"},
	}}
	commands := 0
	for b.Loop() {
		checks := ReplayChecks(l, head)
		commands = len(checks)
		var ps []ledger.Proof
		for _, c := range checks {
			for _, r := range c.Rows {
				ps = append(ps, ledger.Proof{Row: r, Head: head, Tests: "1+ tests", Command: c.Command})
			}
		}
		n := l.Clone()
		n.SetProofs(ps)
		if ProofProblem(n, head) != nil {
			b.Fatal("the three rows are not proved by the one run")
		}
	}
	if commands != 1 {
		b.Fatalf("%d commands planned for three rows sharing one, want 1", commands)
	}
	b.ReportMetric(float64(commands), "commands/pass")
}
