package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/parse"
)

// RuleProof is the diagnostic rule of a malformed `## Proof` line.
const RuleProof = "ledger/proof"

// Proof is one replay of a done row's evidence command by gallivant, on a
// head of the work branch (docs/ledger.md "Evidence replay"). The ledger's
// `## Proof` section holds one line a row:
//
//	row 2 | 0123…(40 hex) | exit 0 | 1+ tests | 412ms | go test ./calc -run TestAdd
//
// A proof carried to a new head from the head its run was on (the diff
// between them touched none of the row's files) names both in its head
// field: `<head> carried from <earlier head>`.
type Proof struct {
	Row  int
	Head string
	// CarriedFrom is the head the run was on when the proof was carried
	// to Head without a run, else "".
	CarriedFrom string
	Exit        int
	// Tests is what the runner reported selecting: `3 tests`, `1 test`,
	// `1+ tests` (a lower bound), `0 tests`, or `assertion` for a command
	// of no runner, whose exit status is the whole proof.
	Tests string
	// Duration is rounded to the millisecond.
	Duration time.Duration
	Command  string
}

// Ran is the head the evidence command ran on: CarriedFrom, or Head.
func (p Proof) Ran() string {
	if p.CarriedFrom != "" {
		return p.CarriedFrom
	}
	return p.Head
}

// Proved reports that the replay passed and selected something.
func (p Proof) Proved() bool { return p.Exit == 0 && p.Tests != "0 tests" }

// MaxProofCommand bounds a recorded command; evidence commands are short.
const MaxProofCommand = 400

var (
	proofHeadRE  = regexp.MustCompile(`^([0-9a-f]{40})(?: carried from ([0-9a-f]{40}))?$`)
	proofTestsRE = regexp.MustCompile(`^(assertion|1 test|(0|[1-9][0-9]{0,8})\+? tests)$`)
	proofExitRE  = regexp.MustCompile(`^exit (0|[1-9][0-9]{0,2})$`)
	proofDurRE   = regexp.MustCompile(`^(0|[1-9][0-9]{0,9})ms$`)
)

// String renders the proof's `## Proof` line.
func (p Proof) String() string {
	head := p.Head
	if p.CarriedFrom != "" {
		head += " carried from " + p.CarriedFrom
	}
	return fmt.Sprintf("row %d | %s | exit %d | %s | %dms | %s", p.Row, head, p.Exit, p.Tests, p.Duration.Milliseconds(), p.Command)
}

// proofExample is an accepted line, for diagnostics.
const proofExample = "`row 2 | 0f3c…(the 40-hex head) | exit 0 | 1+ tests | 412ms | go test ./calc -run TestAdd`"

// ParseProof parses one `## Proof` line. The error names the 1-based
// column (in characters) of the field that is wrong, what was expected and
// an accepted example; it never panics.
func ParseProof(line string) (Proof, int, error) {
	fields := strings.SplitN(line, " | ", 6)
	cols := make([]int, len(fields))
	c := 1
	for i, f := range fields {
		cols[i] = c
		c += len([]rune(f)) + 3
	}
	if len(fields) != 6 {
		return Proof{}, 1, fmt.Errorf("a proof line has 6 fields separated by ` | ` (row, head, exit, tests, duration, command), got %d; for example %s", len(fields), proofExample)
	}
	var p Proof
	n, ok := strings.CutPrefix(fields[0], "row ")
	v, err := strconv.Atoi(n)
	if !ok || err != nil || v < 1 || !isWholeNumber(n) {
		return Proof{}, cols[0], fmt.Errorf("%s is not `row <n>`; for example %s", quote(fields[0]), proofExample)
	}
	p.Row = v
	hm := proofHeadRE.FindStringSubmatch(fields[1])
	if hm == nil || hm[1] == hm[2] {
		return Proof{}, cols[1], fmt.Errorf("%s is not a 40-hex commit, or `<head> carried from <another head>`; for example %s", quote(fields[1]), proofExample)
	}
	p.Head, p.CarriedFrom = hm[1], hm[2]
	m := proofExitRE.FindStringSubmatch(fields[2])
	if m == nil {
		return Proof{}, cols[2], fmt.Errorf("%s is not `exit <status>`; for example %s", quote(fields[2]), proofExample)
	}
	p.Exit, _ = strconv.Atoi(m[1])
	if !proofTestsRE.MatchString(fields[3]) {
		return Proof{}, cols[3], fmt.Errorf("%s is not `<n> tests`, `1 test`, `<n>+ tests` or `assertion`; for example %s", quote(fields[3]), proofExample)
	}
	p.Tests = fields[3]
	m = proofDurRE.FindStringSubmatch(fields[4])
	if m == nil {
		return Proof{}, cols[4], fmt.Errorf("%s is not a duration in milliseconds (`412ms`); for example %s", quote(fields[4]), proofExample)
	}
	ms, _ := strconv.ParseInt(m[1], 10, 64)
	p.Duration = time.Duration(ms) * time.Millisecond
	p.Command = fields[5]
	if p.Command == "" || len(p.Command) > MaxProofCommand || cleanEvidence(p.Command) != p.Command || strings.Contains(p.Command, "|") {
		return Proof{}, cols[5], fmt.Errorf("the command %s is empty, longer than %d bytes, or holds a pipe or a control character; for example %s", quote(p.Command), MaxProofCommand, proofExample)
	}
	return p, 0, nil
}

// proof reads the `## Proof` section: one line a row, in row order.
func (p *parser) proof() {
	p.l.HasProof = true
	last := 0
	for _, ln := range p.sectionLines() {
		if strings.TrimSpace(ln.Text) == "" {
			continue
		}
		pr, col, err := ParseProof(ln.Text)
		if err != nil {
			p.errorf(parse.Pos{Line: ln.Pos.Line, Col: col}, RuleProof, "%v", err)
			continue
		}
		if pr.Row <= last {
			p.errorf(ln.Pos, RuleProof, "proof of row %d follows row %d; the section has one line a row, in row order", pr.Row, last)
			continue
		}
		last = pr.Row
		p.l.Proofs = append(p.l.Proofs, pr)
	}
}

// ProofOf returns the recorded proof of row n.
func (l *Ledger) ProofOf(n int) (Proof, bool) {
	for _, p := range l.Proofs {
		if p.Row == n {
			return p, true
		}
	}
	return Proof{}, false
}

// SetProofs records replays: each replaces the row's earlier proof; the
// section stays in row order.
func (l *Ledger) SetProofs(ps []Proof) {
	l.HasProof = true
	for _, np := range ps {
		replaced := false
		for i := range l.Proofs {
			if l.Proofs[i].Row == np.Row {
				l.Proofs[i], replaced = np, true
			}
		}
		if !replaced {
			l.Proofs = append(l.Proofs, np)
		}
	}
	for i := 1; i < len(l.Proofs); i++ {
		for j := i; j > 0 && l.Proofs[j].Row < l.Proofs[j-1].Row; j-- {
			l.Proofs[j], l.Proofs[j-1] = l.Proofs[j-1], l.Proofs[j]
		}
	}
}

// TrailerProof carries one `## Proof` line in the `loop: verify` commit
// that recorded it, so that `gallivant verify` replays the record.
const TrailerProof = "Gallivant-Proof"

// EvidenceCommand is the command of command-first evidence: the text up to
// the first `;`, trimmed; "" when the evidence names none.
func EvidenceCommand(evidence string) string {
	cmd, _, _ := strings.Cut(evidence, ";")
	return strings.TrimSpace(cmd)
}
