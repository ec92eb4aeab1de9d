package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/ledger"
)

// MaxResult is the largest result file a preset reads; a longer one is
// refused unread. A conforming file is a few hundred bytes.
const MaxResult = 16 << 10

// Result is what an agent run by a preset wrote to $GALLIVANT_RESULT: the
// facts of its return, from which the preset builds the one return commit
// (docs/agents.md, "The result file").
type Result struct {
	// Status is done or failed (a row dispatch).
	Status string
	// Evidence is command-first evidence (a row dispatch).
	Evidence string
	// Rows are a seed dispatch's rows, in the file's order.
	Rows []ResultRow
	// Decision is `<what happened> | <next step or blocker>`.
	Decision string
}

// ResultRow is one `row <n>: <open|done> | <evidence>` line of a seed
// dispatch's result.
type ResultRow struct {
	N        int
	Status   string
	Evidence string
}

var resultRowRE = regexp.MustCompile(`^row ([1-9][0-9]{0,5}): (open|done) \| (.+)$`)

// ParseResult reads a result file strictly: `key: value` lines (status,
// evidence, decision, and `row <n>: …` for a seed), each key at most once,
// blank lines ignored, nothing else. It checks the file's own grammar
// only; whether the return it yields is admissible is admission's
// judgement, exactly as for a commit the agent wrote itself. It never
// panics.
func ParseResult(data []byte) (Result, error) {
	var r Result
	if len(data) > MaxResult {
		return r, fmt.Errorf("the result file is %d bytes; it is at most %d", len(data), MaxResult)
	}
	if !utf8.Valid(data) {
		return r, fmt.Errorf("the result file is not UTF-8")
	}
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		// Tabs and surrounding white space are form, not substance.
		line = strings.TrimSpace(strings.ReplaceAll(line, "\t", " "))
		if line == "" {
			continue
		}
		if col, c, bad := ledger.ControlAt(line); bad {
			return Result{}, fmt.Errorf("result line %d: character %d is %s, a control character; a result line is plain text, for example `evidence: go test ./calc -run 'TestAdd$'; ok example.com/calc 0.004s`", i+1, col, ledger.RuneName(c))
		}
		if m := resultRowRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			key := "row " + m[1]
			if seen[key] {
				return Result{}, fmt.Errorf("result line %d: row %d is given twice", i+1, n)
			}
			seen[key] = true
			r.Rows = append(r.Rows, ResultRow{N: n, Status: m[2], Evidence: ledger.NormalizeEvidence(m[3])})
			continue
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || val == "" {
			return Result{}, fmt.Errorf("result line %d is not `key: value`: %q", i+1, clip(line))
		}
		if seen[key] {
			return Result{}, fmt.Errorf("result line %d: %s is given twice", i+1, key)
		}
		seen[key] = true
		switch key {
		case "status":
			if val != string(ledger.Done) && val != string(ledger.Failed) {
				return Result{}, fmt.Errorf("result line %d: status is done or failed, got %q", i+1, clip(val))
			}
			r.Status = val
		case "evidence":
			r.Evidence = ledger.NormalizeEvidence(val)
		case "decision":
			if !strings.Contains(val, " | ") {
				return Result{}, fmt.Errorf("result line %d: decision is `<what happened> | <next step or blocker>`", i+1)
			}
			r.Decision = val
		default:
			if strings.HasPrefix(key, "row ") {
				return Result{}, fmt.Errorf("result line %d is not `row <n>: open|done | <evidence>`: %q", i+1, clip(line))
			}
			return Result{}, fmt.Errorf("result line %d: unknown key %q; expected status, evidence, decision or row <n>", i+1, clip(key))
		}
	}
	if r.Decision == "" {
		return Result{}, fmt.Errorf("the result file has no decision: line")
	}
	if len(r.Rows) > 0 && (r.Status != "" || r.Evidence != "") {
		return Result{}, fmt.Errorf("the result file mixes a seed's row lines with a row's status or evidence")
	}
	if len(r.Rows) == 0 && (r.Status == "" || r.Evidence == "") {
		return Result{}, fmt.Errorf("the result file needs status: and evidence: lines (or row <n>: lines for a seed)")
	}
	return r, nil
}

// Message builds the return commit message for t from r: the subject,
// the pending: and iteration: lines of the dispatch, the row lines and the
// decision, then trailers. attempts is the row's attempt count before this
// dispatch (the brief's `attempts:`).
func (r Result) Message(t Task, attempts int, trailers []string) (string, error) {
	var b strings.Builder
	head := fmt.Sprintf("pending: %s\niteration: %d\n\n", t.Pending.String(), t.Iteration+1)
	if t.Pending.Target == ledger.SeedTarget {
		if len(r.Rows) == 0 {
			return "", fmt.Errorf("the dispatch is a seed: the result file needs row <n>: lines")
		}
		b.WriteString("loop: seed evidence\n\n" + head)
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "| %d | %s | 0 | %s |\n", row.N, row.Status, escapePipes(row.Evidence))
		}
		fmt.Fprintf(&b, "\nrow 0 done | %s\n", r.Decision)
	} else {
		if r.Status == "" {
			return "", fmt.Errorf("the dispatch is row %d: the result file needs status: and evidence: lines", t.Pending.Target)
		}
		n := t.Pending.Target
		fmt.Fprintf(&b, "loop: row %d %s\n\n%s", n, r.Status, head)
		fmt.Fprintf(&b, "| %d | %s | %d | %s |\n\n", n, r.Status, attempts+1, escapePipes(r.Evidence))
		fmt.Fprintf(&b, "row %d %s | %s\n", n, r.Status, r.Decision)
	}
	if len(trailers) > 0 {
		b.WriteString("\n" + strings.Join(trailers, "\n") + "\n")
	}
	return b.String(), nil
}

// escapePipes writes every pipe of evidence as \|, the row line's escape,
// leaving pipes the agent already escaped alone.
func escapePipes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// clip shortens untrusted text for an error message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
