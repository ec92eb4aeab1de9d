package ledger

import (
	"strconv"

	"github.com/gallivant/gallivant/specs"
)

// Discriminant is line 1 of every ledger.
const Discriminant = specs.LedgerDiscriminant

// Status is a row's status.
type Status string

// Row statuses.
const (
	Open   Status = "open"
	Done   Status = "done"
	Failed Status = "failed"
	Cut    Status = "cut"
)

// Unresolved reports whether a row with this status still needs work.
func (s Status) Unresolved() bool { return s == Open || s == Failed }

// SeedTarget is the pending target of a seed dispatch. Rows are numbered from 1.
const SeedTarget = 0

// Row is one line of the row table.
type Row struct {
	N        int
	Status   Status
	Attempts int
	// Evidence is the cell text with `\|` unescaped to `|`.
	Evidence string
}

// Pending is the outstanding-dispatch tuple `pending: <target> | <member> | <sha>`.
type Pending struct {
	// Target is a row number, or SeedTarget for a seed dispatch.
	Target int
	Member string
	// SHA is the work branch head the dispatch started from.
	SHA string
}

// TargetString renders the target as the tuple spells it (`seed` or the row number).
func (p Pending) TargetString() string { return targetString(p.Target) }

func targetString(t int) string {
	if t == SeedTarget {
		return "seed"
	}
	return strconv.Itoa(t)
}

// String renders the tuple without the `pending: ` prefix.
func (p Pending) String() string {
	return p.TargetString() + " | " + p.Member + " | " + p.SHA
}

// Member is a coordinated spec's per-member header pair.
type Member struct {
	Name   string
	Base   string
	Seeded bool
}

// Mapping is one `## Leg mapping` line: ledger row → spec AC → leg.
type Mapping struct {
	Row, AC int
	Leg     string
}

// Ledger is a parsed ledger. Sections absent from the file are nil or empty;
// Format writes exactly what the model holds.
type Ledger struct {
	// Spec is the repository-relative spec path of the `**Spec:**` line.
	Spec string
	// SpecBare records a `**Spec:**` path written without backticks, which
	// Format keeps as it was.
	SpecBare     bool
	Base         string
	Verification string
	Iterations   int
	// Allowance is the attempts-per-row header; 0 on a legacy ledger.
	Allowance int
	// Cap is the legacy `cap:` header; 0 when absent.
	Cap     int
	Pending *Pending
	// Members holds the coordinated `base <m>:`/`seeded <m>:` pairs in
	// membership order; empty for a single-member ledger.
	Members []Member
	Rows    []Row
	// Mapping is the `## Leg mapping` table; nil when the section is absent.
	Mapping []Mapping
	// Decisions is the append-only `## Decisions` history.
	Decisions []Decision
	// DecisionsGap records a blank line between `## Decisions` and its first
	// line, a layout some writers use; Format keeps it.
	DecisionsGap bool
	// Delivery is gallivant's `## Delivery` section; nil when absent.
	Delivery *Delivery
	// Requests are the raw lines of the human-owned `## Requests` section;
	// HasRequests tells an empty section from an absent one.
	Requests    []string
	HasRequests bool
	// Proofs are the `## Proof` section: gallivant's replays of the done
	// rows' evidence commands (proof.go); HasProof tells an empty section
	// from an absent one.
	Proofs   []Proof
	HasProof bool
	// Tasks are the `## Tasks` section: a plan's tasks by wave, as wave
	// execution dispatches and records them (tasks.go); nil when the
	// section is absent.
	Tasks []Task `json:",omitempty"`

	// View names the member a LegView describes; empty for the whole
	// ledger. It is not part of the file.
	View string `json:"-"`
	// Also names members whose rows a view attests besides View's own:
	// home, when it shares the leg's repository (one work branch, one
	// pull request).
	Also []string `json:"-"`

	// at records where a parsed ledger's parts are, for diagnostics; nil
	// for a ledger built by a transition.
	at *positions
}

// positions are the lines of a parsed ledger's parts.
type positions struct {
	spec, iterations, pending, table   int
	chain                              int
	rows, mapping, decisions, requests []int
	tasks                              []int
}

func (l *Ledger) line(f func(*positions) int) int {
	if l.at == nil {
		return 1
	}
	if n := f(l.at); n > 0 {
		return n
	}
	return 1
}

func lineAt(ls []int, i int) func(*positions) int {
	return func(*positions) int {
		if i >= 0 && i < len(ls) {
			return ls[i]
		}
		return 0
	}
}

// Row returns row n and whether it exists.
func (l *Ledger) Row(n int) (*Row, bool) {
	if n < 1 || n > len(l.Rows) {
		return nil, false
	}
	return &l.Rows[n-1], true
}

// Clone returns a deep copy, so transitions never alias their input.
func (l *Ledger) Clone() *Ledger {
	c := *l
	if l.Pending != nil {
		p := *l.Pending
		c.Pending = &p
	}
	c.Members = append([]Member(nil), l.Members...)
	c.Rows = append([]Row(nil), l.Rows...)
	if l.Mapping != nil {
		c.Mapping = append([]Mapping{}, l.Mapping...)
	}
	c.Decisions = append([]Decision(nil), l.Decisions...)
	if l.Delivery != nil {
		c.Delivery = l.Delivery.Clone()
	}
	c.Requests = append([]string(nil), l.Requests...)
	c.Proofs = append([]Proof(nil), l.Proofs...)
	if l.Tasks != nil {
		c.Tasks = append([]Task{}, l.Tasks...)
	}
	c.Also = append([]string(nil), l.Also...)
	c.at = nil // a copy is about to change; its positions would lie
	return &c
}

// Coordinated reports whether the ledger tracks several members.
func (l *Ledger) Coordinated() bool { return len(l.Members) > 0 }

// MemberOf returns the member a row belongs to: its leg in the mapping, or
// home for a single-member ledger.
func (l *Ledger) MemberOf(row int) string {
	for _, m := range l.Mapping {
		if m.Row == row {
			return m.Leg
		}
	}
	return specs.HomeMember
}

// ACOf returns the spec AC a row tracks: its mapping entry, else the row
// number itself (row n indexes AC n).
func (l *Ledger) ACOf(row int) int {
	for _, m := range l.Mapping {
		if m.Row == row {
			return m.AC
		}
	}
	return row
}

// MemberMeta returns the header pair of a coordinated member.
func (l *Ledger) MemberMeta(name string) (*Member, bool) {
	for i := range l.Members {
		if l.Members[i].Name == name {
			return &l.Members[i], true
		}
	}
	return nil, false
}

// WorkBranch returns the entry's work branch: the delivery section's
// branch, else gallivant/<spec-stem> (ledgers written by other tools).
func (l *Ledger) WorkBranch() string {
	if b := l.Delivery.Branch; b != "" {
		return b
	}
	return specs.Branch(l.Spec)
}

// Phase returns the delivery phase, implement when none is recorded.
func (l *Ledger) Phase() Phase {
	if l.Delivery == nil || string(l.Delivery.Phase) == "" {
		return PhaseImplement
	}
	return l.Delivery.Phase
}

// Stop returns the recorded stop reason and detail, if the entry is stopped.
func (l *Ledger) Stop() (reason StopReason, detail string, stopped bool) {
	if l.Delivery == nil {
		return "", "", false
	}
	s := l.Delivery.Stop
	if s.IsZero() {
		return "", "", false
	}
	return s.Reason, s.Detail, true
}
