package ledger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/specs"
)

// Delivery keys, in the order Format writes them. docs/ledger.md documents
// each one. They name the lines of `## Delivery` in diagnostics and docs;
// code reads and writes the typed fields of Delivery and PullState.
const (
	KeySpecCommit    = "spec-commit"    // control commit whose spec was approved
	KeyContract      = "contract"       // that spec's contract fingerprint
	KeyBranch        = "branch"         // work branch in each target repository
	KeyChain         = "chain"          // <chain name> <k>/<n>: the milestone this entry was seeded as
	KeyLabels        = "labels"         // <row> <id>, …: a spec-kit or Kiro spec's criterion ids by row
	KeyPhase         = "phase"          // implement | verify | review | ready | done
	KeyDispatchedAt  = "dispatched-at"  // when the outstanding dispatch started
	KeyMisses        = "misses"         // consecutive validation misses
	KeyReruns        = "reruns"         // automatic reruns of the outstanding dispatch
	KeyEmptyReturns  = "empty-returns"  // consecutive row returns that changed nothing
	KeyModel         = "model"          // escalation model, from the escalate commit until that dispatch settles
	KeyVerified      = "verified"       // <sha> passed | <sha> failed | <command>: the exit verification
	KeyVerifyRepair  = "verify-repair"  // the failed head a verification repair was dispatched for
	KeyPR            = "pr"             // owner/name#n
	KeyRound         = "round"          // review/fix rounds dispatched
	KeyHead          = "head"           // fixed_sha: the head the loop last acted on
	KeyHeadAt        = "head-at"        // when the loop first saw that head
	KeyChecksHead    = "checks-head"    // checks_sha: head whose failing checks were dispatched
	KeySince         = "since"          // RFC 3339 instant, then ids already dispatched at it
	KeyRoundSince    = "round-since"    // the since the outstanding round moves the cursor to once it commits
	KeyIgnored       = "ignored"        // the last feedback ignored: from people who may not steer
	KeyReceipt       = "receipt"        // receipt hash when the last round started
	KeyReviewerAsked = "reviewer-asked" // reviewer clock
	KeyNudged        = "nudged"         // head the reviewer was nudged about
	KeyOwed          = "owed"           // a GitHub write owed by an earlier transition
	KeyRetry         = "retry"          // <write> <n> | <last error>
	KeyStop          = "stop"           // <reason> | <detail>
	KeyUnavailable   = "unavailable"    // why the last dispatch was withdrawn: its agent could not run in its environment; the next dispatch clears it
	KeyNotify        = "notify"         // notifications owed: <target>/<event>/<stamp>/<tries> ...
	KeyNotifyFailed  = "notify-failed"  // the last notification given up: <target>/<event>/<stamp> | <last error>
	KeyPaused        = "paused"         // @<login> <owner/name>#<n>: who paused the entry from which pull request
	// KeyLearn ("learn", learn.go) is the done entry's learn task.
)

// Phase is where an entry is in its delivery.
type Phase string

// Phases of an entry.
const (
	PhaseImplement Phase = "implement"
	PhaseVerify    Phase = "verify"
	PhaseReview    Phase = "review"
	PhaseReady     Phase = "ready"
	PhaseDone      Phase = "done"
)

// Known reports whether p is one of the five phases.
func (p Phase) Known() bool {
	switch p {
	case PhaseImplement, PhaseVerify, PhaseReview, PhaseReady, PhaseDone:
		return true
	}
	return false
}

// Delivery is the reconciler-owned `## Delivery` section, parsed once into
// typed fields. A zero field is an absent line: Format writes only the
// fields that are set, in canonical key order, then each member's
// pull-request state (coordinated entries) under `<key> <member>:`.
type Delivery struct {
	SpecCommit    string       // spec-commit: full SHA
	Contract      string       // contract: 12-hex fingerprint
	Branch        string       // branch: one word
	Chain         ChainRef     // chain: the milestone the entry was seeded as
	Reruns        int          // reruns
	Misses        int          // misses
	EmptyReturns  int          // empty-returns
	Model         string       // model: one word
	Labels        RowLabels    // labels: a spec-kit or Kiro spec's criterion ids by row
	Stop          StopRecord   // stop
	Unavailable   string       // unavailable: why the last dispatch was withdrawn
	Spent         specs.Amount // spent; zero when unset
	BudgetGranted specs.Amount // budget-granted; zero when unset
	Notify        []Owed       // notify: the notifications owed, in order
	NotifyFailed  NotifyFailure
	Paused        Pause // paused: set by /gallivant pause, cleared by unpause

	// PullState is the entry's own pull-request state: the whole state of
	// a single-member entry, the entry-level phase of a coordinated one.
	PullState

	// PerMember is each member's pull-request state in a coordinated
	// entry, keyed by member name; nil for a single-member entry.
	PerMember map[string]*PullState

	// absent marks the delivery of a ledger that has no `## Delivery`
	// section: Format writes none while nothing is set.
	absent bool
}

// PullState is what the pull-request phases record about one pull request:
// the keys a coordinated entry keeps per member.
type PullState struct {
	Phase         Phase        // phase; "" reads as implement
	DispatchedAt  time.Time    // dispatched-at
	Verified      VerifyResult // verified
	VerifyRepair  string       // verify-repair: full SHA
	PR            PullRef      // pr
	Round         int          // round
	Head          string       // head: full SHA
	HeadAt        time.Time    // head-at
	ChecksHead    string       // checks-head: full SHA
	Since         Cursor       // since
	RoundSince    Cursor       // round-since
	Ignored       string       // ignored: free text
	Receipt       string       // receipt: 12-hex hash
	ReviewerAsked time.Time    // reviewer-asked
	Nudged        string       // nudged: full SHA
	Owed          OwedWrite    // owed
	Retry         WriteRetry   // retry
	// Learn is a done pull request's learn task (learn.go); zero before
	// one is dispatched. A coordinated entry keeps one per member, as
	// `learn <member>:`, each learning for its member's repository.
	Learn Learn
}

// NewDelivery returns an empty delivery section.
func NewDelivery() *Delivery { return &Delivery{} }

// Stamp is a time as the delivery section keeps it: UTC, whole seconds.
func Stamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Second)
}

// Clone returns a deep copy.
func (d *Delivery) Clone() *Delivery {
	c := *d
	c.PullState = d.PullState.clone()
	c.Notify = append([]Owed(nil), d.Notify...)
	if d.PerMember != nil {
		c.PerMember = make(map[string]*PullState, len(d.PerMember))
		for m, p := range d.PerMember {
			pc := p.clone()
			c.PerMember[m] = &pc
		}
	}
	return &c
}

func (p PullState) clone() PullState {
	p.Learn = p.Learn.clone()
	p.Since = p.Since.clone()
	p.RoundSince = p.RoundSince.clone()
	return p
}

// Written reports whether Format writes a `## Delivery` section: the
// ledger had one, or something is set.
func (d *Delivery) Written() bool { return d != nil && !(d.absent && d.IsZero()) }

// IsZero reports whether nothing is set.
func (d *Delivery) IsZero() bool { return len(d.Lines()) == 0 }

// Member returns a member's pull-request state, creating it.
func (d *Delivery) Member(m string) *PullState {
	if d.PerMember == nil {
		d.PerMember = map[string]*PullState{}
	}
	p := d.PerMember[m]
	if p == nil {
		p = &PullState{}
		d.PerMember[m] = p
	}
	return p
}

// Lines returns the section's lines in canonical key order.
func (d *Delivery) Lines() []string {
	var out []string
	for _, f := range deliveryFields {
		if v := f.format(d, &d.PullState); v != "" {
			out = append(out, f.key+": "+v)
		}
	}
	return append(out, d.legLines()...)
}

// ChainRef is a `chain:` value: milestone K of N of the chain Name.
type ChainRef struct {
	Name string
	K, N int
}

// IsZero reports whether the entry was not seeded as a milestone.
func (c ChainRef) IsZero() bool { return c == ChainRef{} }

// String renders `<chain name> <k>/<n>`; "" for the zero value.
func (c ChainRef) String() string {
	if c.IsZero() {
		return ""
	}
	return c.Name + " " + strconv.Itoa(c.K) + "/" + strconv.Itoa(c.N)
}

// ParseChainRef reads a `chain:` value.
func ParseChainRef(v string) (ChainRef, error) {
	name, k, n, err := ParseChainKey(v)
	return ChainRef{Name: name, K: k, N: n}, err
}

// VerifyResult is the `verified:` value: the head the exit verification
// ran on, whether it passed, and the failing command.
type VerifyResult struct {
	Head    string
	Passed  bool
	Command string
}

// IsZero reports whether nothing was verified.
func (v VerifyResult) IsZero() bool { return v == VerifyResult{} }

// String renders `<sha> passed` or `<sha> failed | <command>`.
func (v VerifyResult) String() string {
	switch {
	case v.IsZero():
		return ""
	case v.Passed:
		return v.Head + " passed"
	case v.Command == "":
		return v.Head + " failed"
	}
	return v.Head + " failed | " + v.Command
}

func parseVerification(v string) (VerifyResult, error) {
	head, rest, _ := strings.Cut(v, " ")
	state, cmd, _ := strings.Cut(rest, " | ")
	if !isHex(head, 40) || (state != "passed" && state != "failed") {
		return VerifyResult{}, fmt.Errorf("must be <sha> passed, or <sha> failed | <command>")
	}
	return VerifyResult{Head: head, Passed: state == "passed", Command: cmd}, nil
}

// Cursor is a feedback cursor (`since:`, `round-since:`, R-10, R-12): an
// instant, then the ids of the events already dispatched at exactly it.
type Cursor struct {
	At  time.Time
	IDs []int64
}

// IsZero reports whether the cursor is unset.
func (c Cursor) IsZero() bool { return c.At.IsZero() }

func (c Cursor) clone() Cursor {
	c.IDs = append([]int64(nil), c.IDs...)
	if len(c.IDs) == 0 {
		c.IDs = nil
	}
	return c
}

// String renders the cursor as the ledger stores it; "" for the zero cursor.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	parts := []string{c.At.Format(time.RFC3339)}
	for _, id := range c.IDs {
		parts = append(parts, strconv.FormatInt(id, 10))
	}
	return strings.Join(parts, " ")
}

// ParseCursor reads a cursor value; "" is the zero cursor.
func ParseCursor(v string) (Cursor, error) {
	f := strings.Fields(v)
	if len(f) == 0 {
		return Cursor{}, nil
	}
	at, err := time.Parse(time.RFC3339, f[0])
	if err != nil {
		return Cursor{}, fmt.Errorf("must be an RFC 3339 time, then the ids already dispatched at it, like 2026-11-29T10:00:00Z 123")
	}
	c := Cursor{At: at}
	for _, w := range f[1:] {
		id, err := strconv.ParseInt(w, 10, 64)
		if err != nil || id <= 0 {
			return Cursor{}, fmt.Errorf("id %q is not a positive number", w)
		}
		c.IDs = append(c.IDs, id)
	}
	return c, nil
}

// OwedWrite is the `owed:` value: a GitHub write an earlier transition
// owes, and its argument (the round number, the head).
type OwedWrite struct {
	Write string
	Arg   string
}

// IsZero reports whether no write is owed.
func (o OwedWrite) IsZero() bool { return o == OwedWrite{} }

// String renders `<write>` or `<write> <argument>`.
func (o OwedWrite) String() string {
	if o.Arg == "" {
		return o.Write
	}
	return o.Write + " " + o.Arg
}

func parseOwedWrite(v string) (OwedWrite, error) {
	if !writeRE.MatchString(v) {
		return OwedWrite{}, fmt.Errorf("must name a write, like round-comment 3")
	}
	w, arg, _ := strings.Cut(v, " ")
	return OwedWrite{Write: w, Arg: arg}, nil
}

// WriteRetry is the `retry:` value: the named write whose consecutive
// failures are counted, the count, and GitHub's last answer.
type WriteRetry struct {
	Write string
	Count int
	Err   string
}

// IsZero reports whether no failure is counted.
func (r WriteRetry) IsZero() bool { return r == WriteRetry{} }

// String renders `<write> <count> | <last error>`.
func (r WriteRetry) String() string {
	if r.IsZero() {
		return ""
	}
	return r.Write + " " + strconv.Itoa(r.Count) + " | " + r.Err
}

func parseWriteRetry(v string) (WriteRetry, error) {
	w, msg, ok := strings.Cut(v, " | ")
	f := strings.Fields(w)
	if !ok || len(f) != 2 {
		return WriteRetry{}, fmt.Errorf("must be <write> <count> | <last error>, like ready-label 2 | 403 forbidden")
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 {
		return WriteRetry{}, fmt.Errorf("count must be at least 1")
	}
	return WriteRetry{Write: f[0], Count: n, Err: msg}, nil
}

// StopRecord is the `stop:` value: why the entry stopped and the detail.
type StopRecord struct {
	Reason StopReason
	Detail string
}

// IsZero reports whether the entry is not stopped.
func (s StopRecord) IsZero() bool { return s == StopRecord{} }

// String renders `<reason> | <detail>`, or `<reason>` without detail.
func (s StopRecord) String() string {
	if s.Detail == "" {
		return string(s.Reason)
	}
	return string(s.Reason) + " | " + s.Detail
}

func parseStopRecord(v string) (StopRecord, error) {
	r, detail, _ := strings.Cut(v, " | ")
	if !StopReason(r).Known() {
		return StopRecord{}, fmt.Errorf("reason %q is not a stop reason", r)
	}
	return StopRecord{Reason: StopReason(r), Detail: detail}, nil
}

// NotifyFailure is the `notify-failed:` value: the last notification given
// up (`<target>/<event>/<stamp>`) and why.
type NotifyFailure struct {
	Key string
	Err string
}

// IsZero reports whether no notification was given up.
func (f NotifyFailure) IsZero() bool { return f == NotifyFailure{} }

// String renders `<target>/<event>/<stamp> | <last error>`.
func (f NotifyFailure) String() string {
	if f.IsZero() {
		return ""
	}
	return f.Key + " | " + f.Err
}

func parseNotifyFailure(v string) (NotifyFailure, error) {
	id, why, ok := strings.Cut(v, " | ")
	if !ok || strings.TrimSpace(why) == "" || !owedRE.MatchString(id+"/0") {
		return NotifyFailure{}, fmt.Errorf("must be <target>/<event>/<yyyymmddThhmmssZ> | <last error>")
	}
	return NotifyFailure{Key: id, Err: why}, nil
}

var (
	sha40RE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	prRE    = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)#([1-9][0-9]*)$`)
	writeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*( [^|]+)?$`)
)

// isHex reports whether s is n lowercase hex digits: the spelling of a
// full commit SHA (40) and of a fingerprint (12).
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var chainKeyRE = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*) ([1-9][0-9]*)/([1-9][0-9]*)$`)

// ParseChainKey reads a `chain:` value, `<chain name> <k>/<n>`.
func ParseChainKey(v string) (name string, k, n int, err error) {
	m := chainKeyRE.FindStringSubmatch(v)
	if m == nil {
		return "", 0, 0, fmt.Errorf("must be <chain name> <k>/<n>, like launch 2/3")
	}
	k, _ = strconv.Atoi(m[2])
	n, _ = strconv.Atoi(m[3])
	if k > n {
		return "", 0, 0, fmt.Errorf("milestone %d of %d does not exist", k, n)
	}
	return m[1], k, n, nil
}

// PRText is the pull request as `owner/name#N`; "" when there is none.
func (p *PullState) PRText() string {
	if p == nil || p.PR.IsZero() {
		return ""
	}
	return p.PR.String()
}

// TimeText renders a delivery instant as its line spells it; "" for the
// zero time.
func TimeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// NotifyText renders the `notify:` value: the owed tokens, space-separated.
func NotifyText(d *Delivery) string {
	toks := make([]string, len(d.Notify))
	for i, o := range d.Notify {
		toks[i] = o.String()
	}
	return strings.Join(toks, " ")
}
