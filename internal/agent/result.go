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

// resultExample is an accepted result, quoted by every refusal so that the
// agent (and the person reading the stop) sees what was expected.
const resultExample = "status: done / evidence: go test ./calc -run TestAdd; ok example.com/calc 0.004s / decision: added Add | next row"

// normalizeLine is how a result line is read before it is judged: tabs
// and runs of white space become one space, surrounding white space goes,
// and markdown around the line — a list bullet, emphasis around the key,
// backticks around the line or the value — is dropped. The words
// themselves are never changed.
func normalizeLine(line string) string {
	line = strings.Join(strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\v' || r == '\f' || r == '\u00a0' }), " ")
	for _, p := range []string{"- ", "* ", "> "} {
		line = strings.TrimPrefix(line, p)
	}
	line = unwrap(line, "`")
	// **status:** done, __status__: done
	for _, m := range []string{"**", "__"} {
		if strings.HasPrefix(line, m) {
			if k, rest, ok := strings.Cut(line[len(m):], m); ok && (!strings.Contains(k, " ") || strings.HasPrefix(k, "row ")) {
				line = strings.TrimSpace(k + rest)
			}
		}
	}
	if m := resultRowRE.FindStringSubmatch(line); m != nil {
		return "row " + m[1] + ": " + m[2] + " | " + unwrapEvidence(m[3])
	}
	if key, val, ok := strings.Cut(line, ": "); ok {
		val = unwrap(strings.TrimSpace(val), "`")
		if strings.EqualFold(key, "evidence") {
			val = unwrapEvidence(val)
		}
		line = key + ": " + val
	}
	return line
}

// unwrapEvidence drops backticks around the whole evidence or around its
// command (`go test ./x`; ok).
func unwrapEvidence(s string) string {
	s = unwrap(strings.TrimSpace(s), "`")
	if cmd, rest, ok := strings.Cut(s, "; "); ok {
		return unwrap(cmd, "`") + "; " + rest
	}
	return s
}

// unwrap drops one pair of q around s.
func unwrap(s, q string) string {
	if len(s) > 2*len(q) && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && !strings.Contains(s[len(q):len(s)-len(q)], q) {
		return strings.TrimSpace(s[len(q) : len(s)-len(q)])
	}
	return s
}

// ParseResult reads a result file: `key: value` lines (status, evidence,
// decision, and `row <n>: …` for a seed), each key at most once, blank
// lines and code fences ignored, nothing else. Each line is normalised
// first (normalizeLine): tabs, runs of spaces and markdown are form, not
// substance. It checks the file's own grammar only; whether the return it
// yields is admissible is admission's judgement, exactly as for a commit
// the agent wrote itself. Every refusal names the line, what is wrong and
// an accepted example. It never panics.
func ParseResult(data []byte) (Result, error) {
	r, err := readResultLines(data, false)
	if err != nil {
		return Result{}, err
	}
	if err := checkResult(r); err != nil {
		return Result{}, err
	}
	return r, nil
}

// taskResultExample is an accepted result of a plan task's dispatch.
const taskResultExample = "status: done / decision: wrote the window counter | next task"

// ParseTaskResult reads the result of a plan task's dispatch (docs/plans.md
// "Wave execution"): status done or failed and a decision, whose first
// part becomes the return's summary; an evidence line may be given and is
// not used (gallivant proves the rows after the last wave), row lines are
// a seed's and refused. Lines read as ParseResult reads them.
func ParseTaskResult(data []byte) (Result, error) {
	r, err := readResultLines(data, false)
	if err != nil {
		return Result{}, err
	}
	if len(r.Rows) > 0 {
		return Result{}, fmt.Errorf("the dispatch is a plan task: give status: and decision: lines, not row <n>: lines, e.g. %q", taskResultExample)
	}
	if err := statusAndDecision(r, "done or failed", taskResultExample); err != nil {
		return Result{}, err
	}
	return r, nil
}

// statusAndDecision checks what a task's and a learn task's results both
// need: a status (statuses says which) and a two-part decision.
func statusAndDecision(r Result, statuses, example string) error {
	switch {
	case r.Status == "":
		return fmt.Errorf("the result needs a status: line, %s, e.g. %q", statuses, example)
	case r.Decision == "":
		return fmt.Errorf("the result has no decision: line; e.g. %q", example)
	case !strings.Contains(r.Decision, " | "):
		return fmt.Errorf("the decision is `<what happened> | <next step or blocker>`, got %q; e.g. %q", clip(r.Decision), example)
	}
	return nil
}

// readResultLines reads a result's lines without judging whether they are
// whole; learn reads a learn task's (ParseLearnResult).
func readResultLines(data []byte, learn bool) (Result, error) {
	var r Result
	if len(data) > MaxResult {
		return r, fmt.Errorf("the result is %d bytes; it is at most %d", len(data), MaxResult)
	}
	if !utf8.Valid(data) {
		return r, fmt.Errorf("the result is not UTF-8 text")
	}
	seen := map[string]bool{}
	for i, raw := range strings.Split(string(data), "\n") {
		// Tabs, runs of white space, bullets and surrounding markdown are
		// form, not substance.
		line := normalizeLine(strings.TrimSuffix(raw, "\r"))
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		if err := readResultLine(&r, i+1, line, seen, learn); err != nil {
			return Result{}, err
		}
	}
	return r, nil
}

// readResultLine reads line n of a result into r: a seed's row line or a
// `key: value` line; seen holds the keys (and rows) read before it. A
// learn task's result (learn) has a status of done or none and a decision,
// nothing else.
func readResultLine(r *Result, n int, line string, seen map[string]bool, learn bool) error {
	example := resultExample
	if learn {
		example = learnResultExample
	}
	if col, c, bad := ledger.ControlAt(line); bad {
		return fmt.Errorf("result line %d: character %d is %s, a control character; a result line is plain text, for example %q", n, col, ledger.RuneName(c), example)
	}
	m := resultRowRE.FindStringSubmatch(line)
	if m != nil && learn {
		return fmt.Errorf("result line %d: the dispatch is a learn task: give status: and decision: lines, not row <n>: lines, e.g. %q", n, learnResultExample)
	}
	if m != nil {
		row, _ := strconv.Atoi(m[1])
		key := "row " + m[1]
		if seen[key] {
			return fmt.Errorf("result line %d: row %d is given twice; give each row once, e.g. \"row %d: done | test -f a; ok\"", n, row, row)
		}
		seen[key] = true
		r.Rows = append(r.Rows, ResultRow{N: row, Status: m[2], Evidence: ledger.NormalizeEvidence(m[3])})
		return nil
	}
	key, val, ok := strings.Cut(line, ": ")
	if !ok || val == "" {
		return fmt.Errorf("result line %d is not `key: value`: %q; expected e.g. %q", n, clip(line), example)
	}
	key = strings.ToLower(key)
	if seen[key] {
		return fmt.Errorf("result line %d: %s is given twice; give it once", n, key)
	}
	seen[key] = true
	switch key {
	case "status":
		v := strings.ToLower(strings.TrimSuffix(val, "."))
		if learn {
			if v != string(ledger.Done) && v != LearnNone {
				return fmt.Errorf("result line %d: a learn task's status is done (you changed the lessons file) or none (no lesson generalises), got %q; e.g. \"status: none\"", n, clip(val))
			}
			r.Status = v
			break
		}
		if v != string(ledger.Done) && v != string(ledger.Failed) {
			return fmt.Errorf("result line %d: status is done or failed, got %q; e.g. \"status: done\"", n, clip(val))
		}
		r.Status = v
	case "evidence":
		if learn {
			return fmt.Errorf("result line %d: a learn task's result has no evidence: line (admission checks the lessons file); give status: and decision: only, e.g. %q", n, learnResultExample)
		}
		r.Evidence = ledger.NormalizeEvidence(val)
	case "decision":
		r.Decision = val
	default:
		if learn {
			return fmt.Errorf("result line %d: unknown key %q; a learn task's result has status and decision, e.g. %q", n, clip(key), learnResultExample)
		}
		if strings.HasPrefix(key, "row ") {
			return fmt.Errorf("result line %d is not `row <n>: open|done | <evidence>`: %q; e.g. \"row 1: open | go test ./calc; FAIL\"", n, clip(line))
		}
		return fmt.Errorf("result line %d: unknown key %q; expected status, evidence, decision or row <n>, e.g. %q", n, clip(key), resultExample)
	}
	return nil
}

// checkResult checks that a result is whole: a seed's row lines alone, or
// a row's status, evidence and decision.
func checkResult(r Result) error {
	if len(r.Rows) > 0 {
		if r.Status != "" || r.Evidence != "" {
			return fmt.Errorf("the result mixes a seed's row lines with a row's status or evidence; a seed gives only \"row <n>: open|done | <evidence>\" lines")
		}
		return nil
	}
	switch {
	case r.Status == "" || r.Evidence == "":
		return fmt.Errorf("the result needs status: and evidence: lines (or row <n>: lines for a seed), e.g. %q", resultExample)
	case r.Decision == "":
		return fmt.Errorf("the result has no decision: line; e.g. \"decision: added Add | next row\"")
	case !strings.Contains(r.Decision, " | "):
		return fmt.Errorf("the decision is `<what happened> | <next step or blocker>`, got %q; e.g. \"decision: added Add | next row\"", clip(r.Decision))
	}
	return nil
}

// resultKeyRE is the start of a result line in a CLI's final message, after
// normalizeLine.
var resultKeyRE = regexp.MustCompile(`(?i)^(status|evidence|decision|row [1-9][0-9]{0,5}): `)

// ExtractResult picks the result lines out of an agent's final message
// (Claude Code's `result`, codex's last agent message): the lines that
// begin with a result key, wherever they stand among the prose and
// markdown around them. A key given more than once counts from its last
// occurrence (a model often restates the template before answering). The
// lines come back normalised, for ParseResult; none yields nil.
func ExtractResult(final string) []byte {
	if len(final) > MaxResult {
		final = final[len(final)-MaxResult:]
	}
	var keys []string
	last := map[string]string{}
	for _, raw := range strings.Split(final, "\n") {
		line := normalizeLine(strings.TrimSuffix(raw, "\r"))
		m := resultKeyRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k := strings.ToLower(m[1])
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = line
	}
	if len(keys) == 0 {
		return nil
	}
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(last[k] + "\n")
	}
	return []byte(b.String())
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
		b.WriteString(ledger.Subject{Kind: ledger.KindSeedEvidence}.String() + "\n\n" + head)
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "| %d | %s | 0 | %s |\n", row.N, row.Status, escapePipes(row.Evidence))
		}
		fmt.Fprintf(&b, "\n%s\n", r.SeedDecision())
	} else {
		if r.Status == "" {
			return "", fmt.Errorf("the dispatch is row %d: the result file needs status: and evidence: lines", t.Pending.Target)
		}
		n := t.Pending.Target
		b.WriteString(ledger.Subject{Kind: ledger.KindRowResult, Row: n, Status: ledger.Status(r.Status)}.String() + "\n\n" + head)
		fmt.Fprintf(&b, "| %d | %s | %d | %s |\n\n", n, r.Status, attempts+1, escapePipes(r.Evidence))
		fmt.Fprintf(&b, "row %d %s | %s\n", n, r.Status, r.Decision)
	}
	if len(trailers) > 0 {
		b.WriteString("\n" + strings.Join(trailers, "\n") + "\n")
	}
	return b.String(), nil
}

// taskTupleRE finds the filled-in `task:` line of a task brief's return
// contract (ledger.TaskBrief): id, attempt and the head it starts from.
var taskTupleRE = regexp.MustCompile(`(?m)^task: (\S+ \| attempt [0-9]{1,6} \| [0-9a-f]{40})$`)

// maxTaskSummary is the task return's summary bound (ledger.ParseTaskReturn).
const maxTaskSummary = 200

// TaskMessage builds the return commit message of plan task dispatch t
// from r: `loop: task <id> done|failed`, the brief's `task:` line, the
// summary (the decision's first part, one line, at most 200 characters),
// then trailers.
func (r Result) TaskMessage(t Task, trailers []string) (string, error) {
	m := taskTupleRE.FindStringSubmatch(t.Brief)
	if m == nil {
		return "", fmt.Errorf("the brief of task %s has no `task: <id> | attempt <n> | <head>` line to answer", t.PlanTask)
	}
	if id, _, _ := strings.Cut(m[1], " "); id != t.PlanTask {
		return "", fmt.Errorf("the brief answers task %s, not task %s", id, t.PlanTask)
	}
	summary := decisionSummary(r.Decision)
	var b strings.Builder
	b.WriteString(ledger.Subject{Kind: ledger.KindTaskResult, Task: t.PlanTask, Status: ledger.Status(r.Status)}.String())
	fmt.Fprintf(&b, "\n\ntask: %s\n\n%s\n", m[1], summary)
	if len(trailers) > 0 {
		b.WriteString("\n" + strings.Join(trailers, "\n") + "\n")
	}
	return b.String(), nil
}

// SeedDecision is the canonical seed decision line built from the rows
// the agent reported — `row 0 done | seeded <k> rows, closed <m> on
// baseline | take row <n>` — whatever words the agent chose for its own
// decision: the rows are the substance, the line is form.
func (r Result) SeedDecision() string {
	closed, first := 0, ""
	for _, row := range r.Rows {
		if row.Status == string(ledger.Done) {
			closed++
		} else if first == "" {
			first = fmt.Sprintf("take row %d", row.N)
		}
	}
	if first == "" {
		first = "every row is done on baseline"
	}
	return fmt.Sprintf("row 0 done | seeded %d rows, closed %d on baseline | %s", len(r.Rows), closed, first)
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

// decisionSummary is the one summary line a task or learn return carries:
// the first slot of the CLI's decision, on one line, at most
// maxTaskSummary characters (cut with an ellipsis), or "no summary given".
func decisionSummary(decision string) string {
	what, _, _ := strings.Cut(decision, " | ")
	summary := strings.Join(strings.Fields(what), " ")
	if rs := []rune(summary); len(rs) > maxTaskSummary {
		summary = string(rs[:maxTaskSummary-1]) + "…"
	}
	if summary == "" {
		summary = "no summary given"
	}
	return summary
}
