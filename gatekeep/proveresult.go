package gatekeep

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/ledger"
)

// The prove dispatch (docs/verify.md "Proof through the workflow"): with
// the workflow executor and no executor.proof_check, gallivant dispatches
// the workflow with target `prove` for the exact head under review; the
// workflow runs `gallivant prove --result` on that head and pushes the
// result file, one commit, to the branch ProveBranch(head). gallivant
// admits the file strictly (AdmitProveResult) and records it as it
// records its own replay: `loop: verify` with one Gallivant-Proof trailer
// a row (Verified).

// ProveFile is the path of the result file on the result branch.
const ProveFile = "gallivant-proof.txt"

// ProveHeader is the first line of a prove result.
const ProveHeader = "gallivant prove v1"

// Bounds of a prove result: the file, and one line of it.
const (
	MaxProveResult = 64 << 10
	MaxProveLine   = 1 << 10
)

// ProveBranchPrefix starts every result branch's name.
const ProveBranchPrefix = "gallivant-proof/"

// ProveBranch is the branch of the member repository that carries the
// prove result for head: gallivant creates it at head before it
// dispatches (the dispatch's record), and the workflow pushes its result
// commit onto it.
func ProveBranch(head string) string { return ProveBranchPrefix + head }

// ProveResult is an admitted prove result.
type ProveResult struct {
	// Proofs are one run a done row, on the head.
	Proofs []ledger.Proof
	// Verify are the spec's Verify commands' runs, in order.
	Verify []ProveVerifyRun
	// Passed reports that every Verify command exited 0 and every row is
	// proved.
	Passed bool
	// Command is the first failing command (a Verify command, else a
	// row's evidence), "" when Passed.
	Command string
}

// ProveVerifyRun is one Verify command's run in a prove result.
type ProveVerifyRun struct {
	Command string
	Exit    int
}

// ProveExample is an accepted prove result, for diagnostics and the docs.
const ProveExample = ProveHeader + "\n" +
	"head 0f3c2e7d1a9b8c6f5e4d3c2b1a0f9e8d7c6b5a49\n" +
	"verify | exit 0 | go test ./...\n" +
	"row 1 | 0f3c2e7d1a9b8c6f5e4d3c2b1a0f9e8d7c6b5a49 | exit 0 | 1+ tests | 412ms | go test ./calc -run TestAdd\n"

// ProveError is a refused prove result: the line and column (1-based, in
// characters) of what is wrong, in the file ProveFile.
type ProveError struct {
	Line, Col int
	Msg       string
}

func (e *ProveError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", ProveFile, e.Line, e.Col, e.Msg)
}

// AdmitProveResult admits the result file data for head of ledger l whose
// spec's Verify commands are verify. It never panics and quotes what it
// refuses as data, bounded. Admitted only when:
//
//   - the file is at most MaxProveResult bytes of UTF-8 text, each line at
//     most MaxProveLine bytes;
//   - line 1 is ProveHeader and line 2 `head <head>`, the exact head;
//   - `verify | exit <n> | <command>` lines follow, exactly the Verify
//     commands in order (none when there are none);
//   - then one `## Proof` line (ledger.ParseProof) a row: a run on head
//     (never a carried one) of a done row's own evidence command, each row
//     once, and every done row that is not proved on head among them.
func AdmitProveResult(l *ledger.Ledger, head string, verify []string, data []byte) (ProveResult, error) {
	fail := func(line, col int, format string, args ...any) (ProveResult, error) {
		return ProveResult{}, &ProveError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxProveResult {
		return fail(1, 1, "the result is %d bytes; a prove result is at most %d bytes", len(data), MaxProveResult)
	}
	if !utf8.Valid(data) {
		return fail(1, 1, "the result is not UTF-8 text; write the lines `gallivant prove --result` writes, for example:\n%s", ProveExample)
	}
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		return fail(1, 1, "the result does not end in a line end; for example:\n%s", ProveExample)
	}
	lines := strings.Split(text, "\n")
	for i, ln := range lines {
		if len(ln) > MaxProveLine {
			return fail(i+1, 1, "the line is %d bytes; a line of a prove result is at most %d bytes", len(ln), MaxProveLine)
		}
	}
	if lines[0] != ProveHeader {
		return fail(1, 1, "%s is not %q; a prove result starts, for example:\n%s", quoteData(lines[0]), ProveHeader, ProveExample)
	}
	if len(lines) < 2 || lines[1] != "head "+head {
		got := "nothing"
		if len(lines) >= 2 {
			got = quoteData(lines[1])
		}
		return fail(2, 1, "line 2 is %s, not `head %s`: a result counts only for the exact head it was dispatched for", got, head)
	}
	var out ProveResult
	n := 2
	for i, want := range verify {
		if n >= len(lines) {
			return fail(n+1, 1, "the result ends before the run of the Verify command %s (%d of %d); for example `verify | exit 0 | %s`", quoteData(want), i+1, len(verify), oneLine(want))
		}
		run, col, err := parseVerifyRun(lines[n])
		if err != nil {
			return fail(n+1, col, "%v", err)
		}
		if run.Command != want {
			return fail(n+1, 15+len(strconv.Itoa(run.Exit))+3, "the spec's Verify command %d is %s, not %s: the result runs the spec's Verify commands in order", i+1, quoteData(want), quoteData(run.Command))
		}
		out.Verify = append(out.Verify, run)
		n++
	}
	seen := map[int]bool{}
	for ; n < len(lines); n++ {
		ln := lines[n]
		if strings.HasPrefix(ln, "verify |") {
			return fail(n+1, 1, "%s runs a Verify command the spec does not have here; the spec's are %s", quoteData(ln), quoteList(verify))
		}
		p, col, err := ledger.ParseProof(ln)
		if err != nil {
			return fail(n+1, col, "%v", err)
		}
		switch r, ok := l.Row(p.Row); {
		case p.CarriedFrom != "":
			return fail(n+1, 1, "row %d's proof is carried from %.7s; a prove result holds runs on the head only", p.Row, p.CarriedFrom)
		case p.Head != head:
			return fail(n+1, 1, "row %d ran on %s, not on the head %s", p.Row, p.Head, head)
		case !ok || r.Status != ledger.Done:
			return fail(n+1, 1, "row %d is not a done row of the ledger; only done rows are proved", p.Row)
		case ledger.EvidenceCommand(r.Evidence) != p.Command:
			return fail(n+1, 1, "row %d's command %s is not its evidence command %s", p.Row, quoteData(p.Command), quoteData(ledger.EvidenceCommand(r.Evidence)))
		case seen[p.Row]:
			return fail(n+1, 1, "row %d is proved twice", p.Row)
		}
		seen[p.Row] = true
		out.Proofs = append(out.Proofs, p)
	}
	for _, row := range Unproven(l, head) {
		if !seen[row] {
			return fail(len(lines)+1, 1, "the result has no run of row %d's evidence `%s`; every done row not proved on %.7s needs one", row, oneLine(rowCommand(l, row)), head)
		}
	}
	out.Passed = true
	for _, v := range out.Verify {
		if v.Exit != 0 {
			out.Passed, out.Command = false, v.Command
			break
		}
	}
	for _, p := range out.Proofs {
		if out.Passed && !p.Proved() {
			out.Passed, out.Command = false, p.Command
		}
	}
	return out, nil
}

// parseVerifyRun parses `verify | exit <n> | <command>`; the int is the
// column of what is wrong.
func parseVerifyRun(line string) (ProveVerifyRun, int, error) {
	const example = "`verify | exit 0 | go test ./...`"
	rest, ok := strings.CutPrefix(line, "verify | exit ")
	if !ok {
		return ProveVerifyRun{}, 1, fmt.Errorf("%s is not a Verify command's run; for example %s", quoteData(line), example)
	}
	code, cmd, ok := strings.Cut(rest, " | ")
	exit, err := strconv.Atoi(code)
	if !ok || err != nil || exit < 0 || exit > 255 || strconv.Itoa(exit) != code {
		return ProveVerifyRun{}, 15, fmt.Errorf("%s is not `exit <status 0 to 255> | <command>`; for example %s", quoteData(rest), example)
	}
	if strings.TrimSpace(cmd) == "" || cmd != strings.TrimSpace(cmd) {
		return ProveVerifyRun{}, 15 + len(code) + 3, fmt.Errorf("the command %s is empty or padded; for example %s", quoteData(cmd), example)
	}
	return ProveVerifyRun{Command: cmd, Exit: exit}, 0, nil
}

// rowCommand is row n's evidence command.
func rowCommand(l *ledger.Ledger, n int) string {
	if r, ok := l.Row(n); ok {
		return ledger.EvidenceCommand(r.Evidence)
	}
	return ""
}

// quoteData quotes untrusted text for a message: one line, bounded.
func quoteData(s string) string {
	const max = 120
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return strconv.Quote(s)
}

// quoteList quotes each item (quoteData), for a message.
func quoteList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quoteData(s)
	}
	return strings.Join(q, ", ")
}
