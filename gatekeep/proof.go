package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// Evidence replay (docs/delivery.md "Evidence replay"): where gallivant holds a
// checkout, it runs each done row's evidence command itself, on the head it
// is about to open or label ready, and records each run in the ledger's
// `## Proof` section. A row is proved on a head when its run there exited 0
// and selected at least one test (or was a plain assertion).

// ReplayCheck is one distinct evidence command to replay and the done rows
// whose evidence it is.
type ReplayCheck struct {
	Command string
	Rows    []int
}

// ReplayChecks returns the evidence commands of the ledger's done rows that
// are not proved on head, each once, in row order: rows that share one
// command share one run.
func ReplayChecks(l *ledger.Ledger, head string) []ReplayCheck {
	var out []ReplayCheck
	at := map[string]int{}
	for _, r := range l.ViewRows() {
		if r.Status != ledger.Done {
			continue
		}
		cmd := ledger.EvidenceCommand(r.Evidence)
		if cmd == "" {
			continue
		}
		if p, ok := l.ProofOf(r.N); ok && p.Head == head && p.Command == cmd && p.Proved() {
			continue
		}
		i, ok := at[cmd]
		if !ok {
			i = len(out)
			at[cmd] = i
			out = append(out, ReplayCheck{Command: cmd})
		}
		out[i].Rows = append(out[i].Rows, r.N)
	}
	return out
}

// Unproven returns the done rows not proved on head: no run recorded there,
// a run of another command than the row's evidence, a failed run, or one
// that selected no test.
func Unproven(l *ledger.Ledger, head string) []int {
	var out []int
	for _, c := range ReplayChecks(l, head) {
		out = append(out, c.Rows...)
	}
	return out
}

// RowsOf names the rows whose evidence is cmd: `row 2`, `rows 2, 3`.
func RowsOf(l *ledger.Ledger, cmd string) string {
	var ns []string
	for _, r := range l.ViewRows() {
		if r.Status == ledger.Done && ledger.EvidenceCommand(r.Evidence) == cmd {
			ns = append(ns, fmt.Sprint(r.N))
		}
	}
	switch len(ns) {
	case 0:
		return ""
	case 1:
		return "row " + ns[0]
	}
	return "rows " + strings.Join(ns, ", ")
}

// ProofLine is the AC number of a receipt line that shows gallivant's run
// of a row's evidence command: `| proof | passed | row 2: `+"`<command>`"+`
// on <sha>, exit 0, 1+ tests |`; a carried proof reads `on <sha> (carried
// from <earlier sha>)`. Proof lines follow the AC lines and come
// before the verify line.
const ProofLine = -1

// proofLines renders the receipt's proof lines, one a recorded proof of a
// done row.
func proofLines(l *ledger.Ledger) []ReceiptLine {
	var out []ReceiptLine
	for _, r := range l.ViewRows() {
		if r.Status != ledger.Done {
			continue
		}
		p, ok := l.ProofOf(r.N)
		if !ok {
			continue
		}
		state := "passed"
		switch {
		case p.Exit != 0:
			state = "failed"
		case !p.Proved():
			state = "no-test"
		}
		on := short(p.Head)
		if p.CarriedFrom != "" {
			on += " (carried from " + short(p.CarriedFrom) + ")"
		}
		out = append(out, ReceiptLine{AC: ProofLine, Status: state,
			Evidence: fmt.Sprintf("row %d: `%s` on %s, exit %d, %s", p.Row, p.Command, on, p.Exit, p.Tests)})
	}
	return out
}

// proofTrailers are the `loop: verify` commit's Gallivant-Proof trailers.
func proofTrailers(ps []ledger.Proof) []ledger.Trailer {
	var out []ledger.Trailer
	for _, p := range ps {
		out = append(out, ledger.Trailer{Key: ledger.TrailerProof, Value: p.String()})
	}
	return out
}

// RepairModel is the model of a verification repair whose failing command
// is cmd: the escalation model when the row loop would escalate a row cmd
// is the evidence of — its escalation is spent, or its attempts reached the
// escalation threshold (L-44) — else "" (the agent's default).
func RepairModel(l *ledger.Ledger, cmd string, s ledger.Settings) string {
	if s.EscalationModel == "" {
		return ""
	}
	for _, r := range l.ViewRows() {
		if r.Status != ledger.Done || ledger.EvidenceCommand(r.Evidence) != cmd {
			continue
		}
		if l.Escalated(r.N) || r.Attempts >= l.EscalationThreshold(r.N, s.EscalateAfter) {
			return s.EscalationModel
		}
	}
	return ""
}
