package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/parse"
)

// MaxReturnBody is the largest return commit message admission reads. A
// longer message is refused unread: a conforming body is a few hundred bytes.
const MaxReturnBody = 64 << 10

// Return is an agent's answer to a dispatch: the one commit it pushed on the
// work branch after the pending SHA.
type Return struct {
	SHA     string
	Subject string
	Body    string
	// ChangedFiles is how many files the commit changed in its repository.
	ChangedFiles int
}

// ReturnBody is a parsed result commit (docs/ledger.md "The return commit").
type ReturnBody struct {
	// Target is the row number, or SeedTarget for `loop: seed evidence`.
	Target int
	// Status is the subject's status for a row return.
	Status    Status
	Pending   string
	Iteration int
	Rows      []Row
	Decision  Decision
}

// Miss is a validation miss: a return refused for a concrete reason.
type Miss struct{ Reason string }

func (m *Miss) Error() string { return m.Reason }

func missf(format string, args ...any) *Miss { return &Miss{Reason: fmt.Sprintf(format, args...)} }

var (
	iterationRE = regexp.MustCompile(`^iteration: (0|[1-9][0-9]*)$`)
	trailerRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*: .+$`)
)

// ParseReturn parses a result commit's subject and body strictly. A final
// paragraph of git trailers (Co-authored-by and the like, which agents add)
// is ignored; anything else outside the contract is a miss.
func ParseReturn(subject, body string) (*ReturnBody, error) {
	if len(subject)+len(body) > MaxReturnBody {
		return nil, missf("the commit message is %d bytes; a return is at most %d", len(subject)+len(body), MaxReturnBody)
	}
	rb := &ReturnBody{}
	if err := rb.readSubject(subject); err != nil {
		return nil, err
	}
	lines, err := returnLines(body)
	if err != nil {
		return nil, err
	}
	rest, err := rb.readAttribution(lines)
	if err != nil {
		return nil, err
	}
	if rest, err = rb.readRows(rest); err != nil {
		return nil, err
	}
	if err := rb.readDecision(rest); err != nil {
		return nil, err
	}
	return rb, nil
}

// readSubject reads the return's target (and a row's status) from its subject.
func (rb *ReturnBody) readSubject(subject string) error {
	subject = strings.TrimRight(subject, " \t\r\n")
	sub, err := ParseSubject(subject)
	if err != nil || sub.Leg != "" {
		sub = Subject{}
	}
	switch sub.Kind {
	case KindSeedEvidence:
		rb.Target = SeedTarget
	case KindRowResult:
		rb.Target, rb.Status = sub.Row, sub.Status
	default:
		return missf("subject %s is not `loop: row <n> done`, `loop: row <n> failed` or `loop: seed evidence`", quote(subject))
	}
	return nil
}

// returnLines is the body's lines without trailing white space (a tab is a
// space) and without a final paragraph of trailers: at least the two
// attribution lines, and no control character.
func returnLines(body string) ([]string, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimRight(body, "\n\r \t"), "\r\n", "\n"), "\n")
	for i, ln := range lines {
		// Tabs and trailing white space are form: a tab is a space.
		lines[i] = strings.TrimRight(strings.ReplaceAll(ln, "\t", " "), " ")
	}
	lines = dropTrailers(lines)
	if len(lines) < 2 {
		return nil, missf("the body must start with the pending: and iteration: lines")
	}
	for i, ln := range lines {
		if why := controlReason(ln); why != "" {
			return nil, missf("body line %d: %s; a return is plain text, for example the row line `| 2 | done | 1 | go test ./calc -run 'TestAdd$'; ok example.com/calc 0.004s |`", i+1, why)
		}
	}
	return lines, nil
}

// readAttribution reads the pending: and iteration: lines and the blank line
// after them, and returns the lines that follow.
func (rb *ReturnBody) readAttribution(lines []string) ([]string, error) {
	pd, ok := strings.CutPrefix(lines[0], "pending: ")
	if !ok {
		return nil, missf("body line 1 must be the dispatched pending: tuple, got %s", quote(lines[0]))
	}
	rb.Pending = pd
	m := iterationRE.FindStringSubmatch(lines[1])
	if m == nil {
		return nil, missf("body line 2 must be iteration: <n>, got %s", quote(lines[1]))
	}
	rb.Iteration, _ = strconv.Atoi(m[1])
	rest := lines[2:]
	if len(rest) == 0 || rest[0] != "" {
		return nil, missf("a blank line must follow the iteration: line")
	}
	return rest[1:], nil
}

// readRows reads the row lines (at least one) and the blank line after them,
// and returns the lines that follow.
func (rb *ReturnBody) readRows(rest []string) ([]string, error) {
	for len(rest) > 0 && strings.HasPrefix(rest[0], "|") {
		row, err := parseReturnRow(rest[0])
		if err != nil {
			return nil, err
		}
		rb.Rows = append(rb.Rows, row)
		rest = rest[1:]
	}
	if len(rb.Rows) == 0 {
		return nil, missf("no row line `| <n> | <status> | <attempts> | <evidence> |` after the attribution lines")
	}
	if len(rest) == 0 || rest[0] != "" {
		return nil, missf("a blank line must separate the row lines from the decision")
	}
	return rest[1:], nil
}

// readDecision reads the one decision line that ends the body; a seed's may be
// written in words (naturalSeedDecision).
func (rb *ReturnBody) readDecision(rest []string) error {
	if len(rest) == 0 {
		return missf("the decision line is missing")
	}
	if len(rest) > 1 {
		return missf("exactly one decision line ends the body; found %d lines after the rows", len(rest))
	}
	line := collapseSpace(rest[0])
	d, err := ParseDecision(line)
	if err != nil && rb.Target == SeedTarget {
		d, err = naturalSeedDecision(line, rb.Rows, err)
	}
	if err != nil {
		return missf("decision %s: %v", quote(line), err)
	}
	rb.Decision = d
	return nil
}

// dropTrailers removes a final paragraph made only of git trailers.
func dropTrailers(lines []string) []string {
	i := len(lines)
	for i > 0 && trailerRE.MatchString(lines[i-1]) && !strings.HasPrefix(lines[i-1], "pending: ") && !strings.HasPrefix(lines[i-1], "iteration: ") {
		i--
	}
	if i < len(lines) && i > 0 && lines[i-1] == "" {
		return lines[:i-1]
	}
	return lines
}

func parseReturnRow(line string) (Row, error) {
	if !strings.HasSuffix(line, "|") || strings.HasSuffix(line, `\|`) {
		return Row{}, missf("row line %s must end with a pipe", quote(line))
	}
	cells := parse.SplitCells(line, parse.Pos{Line: 1, Col: 1})
	if len(cells) != 4 {
		return Row{}, missf("row line %s has %d cells; it has 4 (row, status, attempts, evidence), a pipe in evidence written \\|", quote(line), len(cells))
	}
	n, err := strconv.Atoi(cells[0].Text)
	if err != nil || n < 1 || !isWholeNumber(cells[0].Text) {
		return Row{}, missf("row line %s has no row number", quote(line))
	}
	st := Status(cells[1].Text)
	if st != Open && st != Done && st != Failed && st != Cut {
		return Row{}, missf("row %d status %s is not open, done or failed", n, quote(cells[1].Text))
	}
	a, err := strconv.Atoi(cells[2].Text)
	if err != nil || !isWholeNumber(cells[2].Text) {
		return Row{}, missf("row %d attempts %s is not a number", n, quote(cells[2].Text))
	}
	return Row{N: n, Status: st, Attempts: a, Evidence: NormalizeEvidence(cells[3].Text)}, nil
}

// quote renders untrusted text for a miss reason: at most 60 characters,
// control characters and markup neutralized, so a reason is always valid
// evidence text.
func quote(s string) string {
	s = cleanEvidence(s)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return "'" + s + "'"
}

// CheckEvidence checks command-first evidence (docs/ledger.md "The return commit"): the
// text up to the first `;` is one runnable, selective command, never a
// whole-suite verification command and never holding `|` or `&&`; at most
// three result lines follow.
func CheckEvidence(e string, verification []string) error {
	return checkEvidence(e, verification, false)
}

// checkEvidence is CheckEvidence; onlyCheck admits a command equal to the
// verification when it is itself selective and the ledger has one row: its
// natural check is then the only selective check there can be.
func checkEvidence(e string, verification []string, onlyCheck bool) error {
	if e == "" {
		return fmt.Errorf("evidence is empty; it is the check command then its result, for example %s", evidenceExample)
	}
	if why := controlReason(e); why != "" {
		return fmt.Errorf("evidence %s; evidence is one line of plain text, for example %s", why, evidenceExample)
	}
	if msg := EvidenceProblem(e); msg != "" {
		return fmt.Errorf("evidence %s", msg)
	}
	parts := strings.Split(e, ";")
	cmd := strings.TrimSpace(parts[0])
	if cmd == "" {
		return fmt.Errorf("evidence must start with the check command")
	}
	if strings.Contains(cmd, "|") || strings.Contains(cmd, "&&") {
		return fmt.Errorf("evidence command %s holds `|` or `&&`; it is one selective command", quote(cmd))
	}
	norm := strings.Join(strings.Fields(cmd), " ")
	selective := SelectiveProblem(cmd)
	for _, v := range verification {
		if v != "" && v != "none" && norm == strings.Join(strings.Fields(v), " ") && (!onlyCheck || selective != "") {
			return fmt.Errorf("evidence command %s is the whole-suite verification command (## Verify); name a check that selects this row's criterion, for example %s", quote(cmd), selectiveExample(cmd))
		}
	}
	if selective != "" {
		return fmt.Errorf("evidence command %s", selective)
	}
	if len(parts)-1 > 3 {
		return fmt.Errorf("evidence has %d result lines after the command; at most 3", len(parts)-1)
	}
	return nil
}

// onlyRow reports that the ledger has one row that is not cut: a
// one-criterion spec, whose selective check may be its ## Verify.
func (l *Ledger) onlyRow() bool {
	n := 0
	for _, r := range l.Rows {
		if r.Status != Cut {
			n++
		}
	}
	return n == 1
}

// verifications returns the whole-suite commands evidence must not repeat.
func (l *Ledger) verifications() []string {
	out := []string{l.Verification}
	for _, v := range strings.Split(l.Verification, " && ") {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

// Admit validates a return against the outstanding dispatch (docs/ledger.md
// "Settling a dispatch", L-61..L-67) and records it: `loop: record <member>
// row <n>` or `loop: record <member> seed`. A return that breaks the
// contract yields a *Miss and no ledger; the caller repairs (a row) or
// stops (a seed, L-64).
func Admit(l *Ledger, r Return) (*Ledger, Commit, error) {
	if l.Pending == nil {
		return nil, Commit{}, ErrNotPending
	}
	pd := *l.Pending
	rb, err := ParseReturn(r.Subject, r.Body)
	if err != nil {
		return nil, Commit{}, err
	}
	if rb.Target != pd.Target {
		return nil, Commit{}, missf("the return answers %s but %s was dispatched", describeTarget(rb.Target), describeTarget(pd.Target))
	}
	if rb.Pending != pd.String() {
		return nil, Commit{}, missf("body line 1 must be `pending: %s`, got %s", pd.String(), quote("pending: "+rb.Pending))
	}
	if rb.Iteration != l.Iterations {
		return nil, Commit{}, missf("body line 2 must be `iteration: %d` (the count after the dispatch), got %d", l.Iterations, rb.Iteration)
	}
	for _, old := range l.Decisions {
		if old.Line == rb.Decision.Line {
			return nil, Commit{}, missf("the decision repeats an earlier one; a return adds a new decision")
		}
	}
	if pd.Target == SeedTarget {
		return admitSeed(l, r, rb)
	}
	return admitRow(l, r, rb)
}

func admitRow(l *Ledger, r Return, rb *ReturnBody) (*Ledger, Commit, error) {
	n := rb.Target
	saved, ok := l.Row(n)
	if !ok {
		return nil, Commit{}, missf("row %d does not exist", n)
	}
	if len(rb.Rows) != 1 {
		return nil, Commit{}, missf("the return changes %d rows; it changes only row %d", len(rb.Rows), n)
	}
	got := rb.Rows[0]
	if got.N != n {
		return nil, Commit{}, missf("the row line is row %d; only row %d was dispatched", got.N, n)
	}
	if got.Status != Done && got.Status != Failed {
		return nil, Commit{}, missf("row %d status must be done or failed, got %s", n, got.Status)
	}
	if got.Status != rb.Status {
		return nil, Commit{}, missf("the subject says %s but the row says %s", rb.Status, got.Status)
	}
	if got.Attempts != saved.Attempts+1 {
		return nil, Commit{}, missf("row %d attempts must be %d (saved %d + 1), got %d", n, saved.Attempts+1, saved.Attempts, got.Attempts)
	}
	if err := checkEvidence(got.Evidence, l.verifications(), l.onlyRow()); err != nil {
		return nil, Commit{}, missf("%v", err)
	}
	if line := EvidenceFailure(got.Evidence); got.Status == Done && line != "" {
		return nil, Commit{}, missf("row %d is done but its evidence reports a failure: %s", n, quote(line))
	}
	d := rb.Decision
	if d.Kind != DecisionResult || d.Row != n || d.Status != got.Status {
		return nil, Commit{}, missf("the decision must be `row %d %s | … | …`, got %s", n, got.Status, quote(d.Line))
	}
	nl := l.Clone()
	row, _ := nl.Row(n)
	unchanged := row.Status == got.Status
	*row = got
	nl.Decisions = append(nl.Decisions, d)
	nl.settled()
	nl.delivery().Misses = 0
	if r.ChangedFiles == 0 && unchanged {
		nl.delivery().EmptyReturns = nl.Delivery.EmptyReturns + 1
	} else {
		nl.delivery().EmptyReturns = 0
	}
	nl.addSpend(r.Body)
	return nl, Commit{
		Subject:  Subject{Kind: KindRecord, Member: l.Pending.Member, Row: n}.String(),
		Sentence: fmt.Sprintf("Admitted %s for row %d: %s after %s.", short(r.SHA), n, got.Status, plural(got.Attempts, "attempt")),
		Trailers: []Trailer{{TrailerHead, r.SHA}},
	}, nil
}

func admitSeed(l *Ledger, r Return, rb *ReturnBody) (*Ledger, Commit, error) {
	member := l.Pending.Member
	var want []Row
	for _, row := range l.MemberRows(member) {
		if row.Status != Cut {
			want = append(want, row)
		}
	}
	if len(rb.Rows) != len(want) {
		return nil, Commit{}, missf("the seed carries %d rows; %s has %d non-cut rows and the seed carries each once", len(rb.Rows), member, len(want))
	}
	closed := 0
	for i, got := range rb.Rows {
		w := want[i]
		if got.N != w.N {
			return nil, Commit{}, missf("seed row %d is out of place; expected row %d", got.N, w.N)
		}
		if got.Attempts != 0 {
			return nil, Commit{}, missf("seed row %d attempts must stay 0, got %d", got.N, got.Attempts)
		}
		switch {
		case got.Status == Done && w.Status == Open:
			closed++
		case got.Status == w.Status:
		default:
			return nil, Commit{}, missf("seed row %d goes from %s to %s; a seed only closes open rows on baseline", got.N, w.Status, got.Status)
		}
		if err := checkEvidence(got.Evidence, l.verifications(), l.onlyRow()); err != nil {
			return nil, Commit{}, missf("seed row %d: %v", got.N, err)
		}
		if line := EvidenceFailure(got.Evidence); got.Status == Done && line != "" {
			return nil, Commit{}, missf("seed row %d is closed but its evidence reports a failure: %s", got.N, quote(line))
		}
	}
	d := rb.Decision
	if d.Kind != DecisionSeed {
		return nil, Commit{}, missf("the seed decision is `row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>`, got %s", quote(d.Line))
	}
	if d.Seeded != len(want) || d.Closed != closed {
		return nil, Commit{}, missf("the seed decision says seeded %d, closed %d; the rows say seeded %d, closed %d", d.Seeded, d.Closed, len(want), closed)
	}
	nl := l.Clone()
	for _, got := range rb.Rows {
		row, _ := nl.Row(got.N)
		*row = got
	}
	nl.Decisions = append(nl.Decisions, d)
	if m, ok := nl.MemberMeta(member); ok {
		m.Seeded = true
	}
	nl.settled()
	nl.delivery().Misses = 0
	nl.addSpend(r.Body)
	return nl, Commit{
		Subject:  Subject{Kind: KindRecord, Member: member, Row: SeedTarget}.String(),
		Sentence: fmt.Sprintf("Admitted the seed %s for %s: %s with baseline evidence, %d already closed.", short(r.SHA), member, plural(len(want), "row"), closed),
		Trailers: []Trailer{{TrailerHead, r.SHA}},
	}, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// settled clears what belongs to the outstanding dispatch.
func (l *Ledger) settled() {
	l.Pending = nil
	l.delivery().DispatchedAt = time.Time{}
	l.delivery().Reruns = 0
	l.delivery().Model = ""
}

// Repair records a validation miss of a row return (L-68): the row failed,
// attempts +1, evidence `iteration <i>: <miss>` with i the count the brief
// carried, the tuple cleared, the miss counted. The next dispatch gets
// `previous decision: none`.
func Repair(l *Ledger, miss string, head string) (*Ledger, Commit, error) {
	if l.Pending == nil {
		return nil, Commit{}, ErrNotPending
	}
	target := l.Pending.Target
	if target == SeedTarget {
		return nil, Commit{}, fmt.Errorf("a seed miss is a stop, not a repair (L-64)")
	}
	n := l.Clone()
	row, ok := n.Row(target)
	if !ok {
		return nil, Commit{}, fmt.Errorf("pending row %d does not exist", target)
	}
	row.Status = Failed
	row.Attempts++
	row.Evidence = cleanEvidence(fmt.Sprintf("iteration %d: %s", l.Iterations-1, miss))
	n.settled()
	n.delivery().Misses = n.Delivery.Misses + 1
	return n, Commit{
		Subject:  Subject{Kind: KindRepair, Row: target}.String(),
		Sentence: fmt.Sprintf("Refused the return for row %d: %s.", target, strings.TrimSuffix(miss, ".")),
		Trailers: []Trailer{{TrailerHead, head}},
	}, nil
}
