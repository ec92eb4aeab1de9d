package gatekeep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Identity ties a pull request to its entry: the identity block gallivant
// writes in the PR body.
type Identity struct {
	Control  string `json:"control"`
	Spec     string `json:"spec"`
	Ledger   string `json:"ledger"`
	Member   string `json:"member"`
	Contract string `json:"contract"`
}

const (
	identityPrefix = "<!-- gallivant:identity "
	receiptOpen    = "<!-- gallivant:receipt -->"
	receiptClose   = "<!-- /gallivant:receipt -->"
)

// ErrNoIdentity reports a body without an identity block.
var ErrNoIdentity = errors.New("the body has no gallivant identity block")

var (
	memberRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	hex12      = regexp.MustCompile(`^[0-9a-f]{12}$`)
	identityRE = regexp.MustCompile(`(?m)^<!-- gallivant:identity (\{.*\}) -->$`)
)

// IdentityFor is the identity of an entry's pull request: the control
// repository, the spec and ledger paths, the home member, and the contract
// the ledger approved.
func IdentityFor(control, spec, ledgerPath string, l *ledger.Ledger) Identity {
	return Identity{Control: control, Spec: spec, Ledger: ledgerPath, Member: l.Member(), Contract: l.Delivery.Contract}
}

// Block renders the identity block.
func (id Identity) Block() string {
	b, _ := json.Marshal(id)
	return identityPrefix + string(b) + " -->"
}

// ParseIdentity reads the identity block strictly: the exact prefix, one
// JSON object with exactly the five keys, each value well-formed. Anything
// else is an error and the block is not trusted.
func ParseIdentity(body string) (*Identity, error) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	n := strings.Count(body, identityPrefix)
	if n == 0 {
		return nil, ErrNoIdentity
	}
	if n > 1 {
		return nil, errors.New("the body has more than one identity block")
	}
	m := identityRE.FindStringSubmatch(body)
	if m == nil {
		return nil, errors.New("the identity block is malformed: it must be one line `<!-- gallivant:identity {...} -->`")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(m[1])))
	dec.DisallowUnknownFields()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(m[1]), &raw); err != nil {
		return nil, fmt.Errorf("the identity block is not a JSON object: %v", err)
	}
	if len(raw) != 5 {
		return nil, fmt.Errorf("the identity block has %d keys; it has exactly control, spec, ledger, member and contract", len(raw))
	}
	var id Identity
	if err := dec.Decode(&id); err != nil {
		return nil, fmt.Errorf("the identity block: %v", err)
	}
	switch {
	case !specs.ValidRepo(id.Control):
		return nil, fmt.Errorf("identity control %q is not owner/name", id.Control)
	case !cleanMD(id.Spec):
		return nil, fmt.Errorf("identity spec %q is not a repository-relative .md path", id.Spec)
	case !cleanMD(id.Ledger):
		return nil, fmt.Errorf("identity ledger %q is not a repository-relative .md path", id.Ledger)
	case !memberRE.MatchString(id.Member):
		return nil, fmt.Errorf("identity member %q is not a member name", id.Member)
	case !hex12.MatchString(id.Contract):
		return nil, fmt.Errorf("identity contract %q is not a 12-hex fingerprint", id.Contract)
	}
	return &id, nil
}

func cleanMD(p string) bool {
	return strings.HasSuffix(p, ".md") && !strings.HasPrefix(p, "/") && !strings.Contains(p, "..") && !strings.ContainsAny(p, " \t\\\"<>")
}

// ReceiptLine attests one acceptance criterion.
type ReceiptLine struct {
	AC int
	// Label is the criterion's spec-kit or Kiro id (US1.2, 1.3), "" for
	// a gallivant spec; it renders after the number: `| 2 US1.2 | …`.
	Label    string
	Status   string // done or cut
	Evidence string
}

// ReceiptFor renders the receipt a ledger attests: one line per AC of the
// spec, in order. For a coordinated spec an AC is done when every row
// tracking it is done, cut when every row is cut; evidence joins the rows'.
func ReceiptFor(l *ledger.Ledger, s *specs.Spec) []ReceiptLine {
	var out []ReceiptLine
	// A member's view (a coordinated spec's leg) attests only the ACs that
	// member owns, with its own rows' evidence.
	rows := l.ViewRows()
	for _, ac := range s.ACs {
		line := ReceiptLine{AC: ac.N, Label: ac.ID, Status: "cut"}
		var ev []string
		seen := false
		for _, r := range rows {
			if l.ACOf(r.N) != ac.N {
				continue
			}
			seen = true
			switch r.Status {
			case ledger.Done:
				if line.Status != "open" {
					line.Status = "done"
				}
			case ledger.Cut:
			default:
				line.Status = "open"
			}
			if r.Evidence != "" {
				ev = append(ev, r.Evidence)
			}
		}
		if !seen {
			if l.View != "" {
				continue
			}
			line.Status = "open"
		}
		line.Evidence = strings.Join(ev, "; ")
		out = append(out, line)
	}
	out = append(out, proofLines(l)...)
	if v, ok := VerifiedAt(l); ok && l.View == "" && l.Verification != "" && l.Verification != "none" {
		// Exit verification is local evidence gallivant gathered itself
		// on the head it names (L-104): the receipt shows it, and its
		// hash moves when a new head is verified.
		state := "failed"
		if v.Passed {
			state = "passed"
		}
		out = append(out, ReceiptLine{AC: VerifyLine, Status: state, Evidence: fmt.Sprintf("`%s` on %s", l.Verification, short(v.Head))})
	}
	return out
}

// receiptLabelRE is a criterion id as spec-kit and Kiro spell them.
var receiptLabelRE = regexp.MustCompile(`^(?:US[0-9]+\.[0-9]+|SC-[0-9]+|[0-9]+\.[0-9]+)$`)

// VerifyLine is the AC number of the receipt's exit-verification line, the
// last line when gallivant ran the spec's Verify commands: it renders as
// `| verify | passed | `+"`<command>`"+` on <sha> |` and attests no
// acceptance criterion.
const VerifyLine = 0

// maxAC bounds an AC number in a receipt; after a proof line no AC line
// may follow.
const maxAC = 1 << 30

// RenderReceipt renders the receipt region, markers included.
func RenderReceipt(lines []ReceiptLine) string {
	var b strings.Builder
	b.WriteString(receiptOpen + "\n| AC | status | evidence |\n|---|---|---|\n")
	for _, l := range lines {
		ac := strconv.Itoa(l.AC)
		if l.Label != "" {
			ac += " " + l.Label
		}
		switch l.AC {
		case VerifyLine:
			ac = "verify"
		case ProofLine:
			ac = "proof"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", ac, l.Status, ledger.EscapeCell(l.Evidence))
	}
	b.WriteString(receiptClose)
	return b.String()
}

// ReceiptHash is the receipt cursor: the short hash of the rendered region.
func ReceiptHash(lines []ReceiptLine) string { return specs.ShortHash(RenderReceipt(lines)) }

// ParseReceipt reads the receipt region of a body strictly.
func ParseReceipt(body string) ([]ReceiptLine, error) {
	rows, err := receiptRows(body)
	if err != nil {
		return nil, err
	}
	var out []ReceiptLine
	prev := 0
	for k, ln := range rows {
		l, err := parseReceiptRow(k, ln, k == len(rows)-1, prev)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
		switch l.AC {
		case VerifyLine:
			return out, nil
		case ProofLine:
			prev = maxAC
		default:
			prev = l.AC
		}
	}
	return out, nil
}

// receiptRows finds the body's one receipt region and returns its table's
// rows after the header.
func receiptRows(body string) ([]string, error) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	i := strings.Index(body, receiptOpen)
	if i < 0 {
		return nil, errors.New("the body has no gallivant receipt")
	}
	j := strings.Index(body[i:], receiptClose)
	if j < 0 {
		return nil, errors.New("the receipt is not closed with <!-- /gallivant:receipt -->")
	}
	if strings.Count(body, receiptOpen) > 1 {
		return nil, errors.New("the body has more than one receipt")
	}
	inner := strings.Trim(body[i+len(receiptOpen):i+j], "\n")
	lines := strings.Split(inner, "\n")
	if len(lines) < 2 || lines[0] != "| AC | status | evidence |" || lines[1] != "|---|---|---|" {
		return nil, errors.New("the receipt table must start with `| AC | status | evidence |` and `|---|---|---|`")
	}
	return lines[2:], nil
}

// parseReceiptRow reads receipt row k (0-based; last when it is the final
// row) after an AC numbered prev: the verify line, which comes last; a
// proof line, after the AC lines; or an AC line, numbered above prev.
func parseReceiptRow(k int, ln string, last bool, prev int) (ReceiptLine, error) {
	cells := parse.SplitCells(ln, parse.Pos{Line: 1, Col: 1})
	if len(cells) != 3 || !strings.HasSuffix(ln, "|") {
		return ReceiptLine{}, fmt.Errorf("receipt line %d has %d cells; it has 3", k+1, len(cells))
	}
	switch cells[0].Text {
	case "verify":
		if !last || (cells[1].Text != "passed" && cells[1].Text != "failed") {
			return ReceiptLine{}, fmt.Errorf("receipt line %d: the verify line is the last line and reads passed or failed", k+1)
		}
		return ReceiptLine{AC: VerifyLine, Status: cells[1].Text, Evidence: cells[2].Text}, nil
	case "proof":
		// gallivant's runs of the rows' evidence: after the AC lines,
		// before the verify line.
		if st := cells[1].Text; st != "passed" && st != "failed" && st != "no-test" {
			return ReceiptLine{}, fmt.Errorf("receipt line %d: a proof line reads passed, failed or no-test", k+1)
		}
		return ReceiptLine{AC: ProofLine, Status: cells[1].Text, Evidence: cells[2].Text}, nil
	}
	// A coordinated spec's leg attests only its own ACs (1, 3), so the
	// numbers rise strictly rather than count from 1. A spec-kit or Kiro
	// criterion carries its id after the number.
	num, label, labelled := strings.Cut(cells[0].Text, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n <= prev || n >= maxAC || strconv.Itoa(n) != num || labelled && !receiptLabelRE.MatchString(label) {
		return ReceiptLine{}, fmt.Errorf("receipt line %d names AC %q; ACs are listed in rising order (1, 2, 3; a leg lists its own, like 1, 3), a spec-kit or Kiro criterion with its id after the number (2 US1.2)", k+1, cells[0].Text)
	}
	return ReceiptLine{AC: n, Label: label, Status: cells[1].Text, Evidence: cells[2].Text}, nil
}

// Compose writes gallivant's two regions into a pull request body and
// leaves every other byte a person wrote alone. The receipt goes where the
// first receipt region was and the identity block where the first identity
// line was (appended when there was none); every other copy, malformed
// block and stray marker is removed, so a body a person mangled converges
// to exactly one of each instead of staying unreadable. (NUL bytes, which
// mean nothing in markdown, are dropped: the regions' places are marked
// with them while the rest is cleaned.)
func Compose(body string, id Identity, receipt []ReceiptLine) string {
	const rslot, islot = "\x00gallivant-receipt\x00", "\x00gallivant-identity\x00"
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\x00", "")
	var b strings.Builder
	rest, receiptAt := body, false
	for {
		i := strings.Index(rest, receiptOpen)
		if i < 0 {
			break
		}
		b.WriteString(rest[:i])
		if !receiptAt {
			b.WriteString(rslot)
			receiptAt = true
		}
		rest = rest[i+len(receiptOpen):]
		if j := strings.Index(rest, receiptClose); j >= 0 && !strings.Contains(rest[:j], receiptOpen) {
			rest = rest[j+len(receiptClose):]
		}
	}
	b.WriteString(rest)
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	identityAt := false
	for _, l := range lines {
		switch {
		case !strings.HasPrefix(l, identityPrefix):
			out = append(out, l)
		case !identityAt:
			out = append(out, islot)
			identityAt = true
		}
	}
	body = strings.Join(out, "\n")
	// Whatever markers remain are strays; removing one can join its
	// neighbours into another, so repeat until none is left.
	for strip := strings.NewReplacer(receiptOpen, "", receiptClose, "", identityPrefix, ""); ; {
		next := strip.Replace(body)
		if next == body {
			break
		}
		body = next
	}
	// A slot can be lost with the identity line it shared; then append.
	if strings.Contains(body, rslot) {
		body = strings.Replace(body, rslot, RenderReceipt(receipt), 1)
	} else {
		body = strings.TrimRight(body, "\n") + "\n\n" + RenderReceipt(receipt) + "\n"
	}
	if strings.Contains(body, islot) {
		body = strings.Replace(body, islot, id.Block(), 1)
	} else {
		body = strings.TrimRight(body, "\n") + "\n\n" + id.Block() + "\n"
	}
	return strings.TrimLeft(body, "\n")
}
