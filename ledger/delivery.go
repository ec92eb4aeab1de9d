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
// each one.
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
	KeyNotify        = "notify"         // notifications owed: <target>/<event>/<stamp>/<tries> ...
	KeyNotifyFailed  = "notify-failed"  // the last notification given up: <target>/<event>/<stamp> | <last error>
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

var deliveryKeys = []string{
	KeySpecCommit, KeyContract, KeyBranch, KeyChain, KeyLabels, KeyPhase, KeyDispatchedAt, KeyReruns, KeyMisses, KeyEmptyReturns, KeyModel,
	KeyVerified, KeyVerifyRepair, KeyPR, KeyRound, KeyHead, KeyHeadAt, KeyChecksHead, KeySince, KeyRoundSince, KeyIgnored, KeyReceipt, KeyReviewerAsked, KeyNudged,
	KeyOwed, KeyRetry, KeyStop, KeyUnavailable, KeySpent, KeyBudgetGranted,
	KeyNotify, KeyNotifyFailed, KeyPaused,
}

// Delivery is the reconciler-owned `## Delivery` section: key: value lines.
type Delivery struct {
	values map[string]string
}

// NewDelivery returns an empty delivery section.
func NewDelivery() *Delivery { return &Delivery{values: map[string]string{}} }

// Get returns a key's value, "" when unset.
func (d *Delivery) Get(key string) string {
	if d == nil {
		return ""
	}
	return d.values[key]
}

// Int returns a key's value as an integer, 0 when unset or malformed.
func (d *Delivery) Int(key string) int {
	n, _ := strconv.Atoi(d.Get(key))
	return n
}

// Time returns a key's RFC 3339 value, the zero time when unset.
func (d *Delivery) Time(key string) time.Time {
	v := d.Get(key)
	if i := strings.IndexByte(v, ' '); i >= 0 {
		v = v[:i]
	}
	t, _ := time.Parse(time.RFC3339, v)
	return t
}

// Set sets a key; an empty value deletes it.
func (d *Delivery) Set(key, value string) {
	if value == "" {
		delete(d.values, key)
		return
	}
	d.values[key] = value
}

// SetPhase records the entry's phase.
func (d *Delivery) SetPhase(p Phase) { d.Set(KeyPhase, string(p)) }

// SetInt sets an integer key; 0 deletes it so that counters at rest vanish.
func (d *Delivery) SetInt(key string, n int) {
	if n == 0 {
		d.Set(key, "")
		return
	}
	d.Set(key, strconv.Itoa(n))
}

// SetTime sets an RFC 3339 key in UTC with second precision.
func (d *Delivery) SetTime(key string, t time.Time) {
	d.Set(key, t.UTC().Truncate(time.Second).Format(time.RFC3339))
}

// Clone returns a copy.
func (d *Delivery) Clone() *Delivery {
	c := NewDelivery()
	for k, v := range d.values {
		c.values[k] = v
	}
	return c
}

// Lines returns the section's lines in canonical key order.
func (d *Delivery) Lines() []string {
	var out []string
	for _, k := range deliveryKeys {
		if v, ok := d.values[k]; ok {
			out = append(out, k+": "+v)
		}
	}
	return append(out, d.legLines()...)
}

var (
	sha40RE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hex12RE = regexp.MustCompile(`^[0-9a-f]{12}$`)
	prRE    = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)#([1-9][0-9]*)$`)
	writeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*( [^|]+)?$`)
)

// validateDelivery checks one key's value and returns what is wrong, or "".
func validateDelivery(key, v string) string {
	isTime := func(s string) bool { _, err := time.Parse(time.RFC3339, s); return err == nil }
	count := func() string {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || strconv.Itoa(n) != v {
			return "must be a whole number of at least 0"
		}
		return ""
	}
	switch key {
	case KeyVerified:
		f := strings.Fields(v)
		if len(f) < 2 || !sha40RE.MatchString(f[0]) || (f[1] != "passed" && f[1] != "failed") {
			return "must be <sha> passed, or <sha> failed | <command>"
		}
	case KeySpecCommit, KeyHead, KeyChecksHead, KeyNudged, KeyVerifyRepair:
		if !sha40RE.MatchString(v) {
			return "must be a full 40-character lowercase commit SHA"
		}
	case KeyContract, KeyReceipt:
		if !hex12RE.MatchString(v) {
			return "must be a 12-character lowercase hex fingerprint"
		}
	case KeyBranch, KeyModel:
		if v == "" || strings.ContainsAny(v, " \t") {
			return "must be one word"
		}
	case KeyChain:
		if _, _, _, err := ParseChainKey(v); err != nil {
			return err.Error()
		}
	case KeyLabels:
		if _, err := ParseLabels(v); err != nil {
			return err.Error()
		}
	case KeyPhase:
		switch Phase(v) {
		case PhaseImplement, PhaseVerify, PhaseReview, PhaseReady, PhaseDone:
		default:
			return "must be implement, verify, review, ready or done"
		}
	case KeyPR:
		if !prRE.MatchString(v) || !specs.ValidRepo(v[:strings.IndexByte(v, '#')]) {
			return "must be owner/name#number"
		}
	case KeyRound, KeyMisses, KeyEmptyReturns, KeyReruns:
		return count()
	case KeyDispatchedAt, KeyReviewerAsked, KeyHeadAt:
		if !isTime(v) {
			return "must be an RFC 3339 time such as 2026-11-29T10:00:00Z"
		}
	case KeySince, KeyRoundSince:
		f := strings.Fields(v)
		if len(f) == 0 || !isTime(f[0]) {
			return "must be an RFC 3339 time, then the ids already dispatched at it"
		}
		for _, id := range f[1:] {
			if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
				return fmt.Sprintf("id %q is not a positive number", id)
			}
		}
	case KeyIgnored:
		if strings.TrimSpace(v) == "" {
			return "must say what was ignored"
		}
	case KeyUnavailable:
		if !strings.HasPrefix(v, "iteration ") {
			return "must be iteration <n>: <why the agent could not run>"
		}
	case KeyOwed:
		if !writeRE.MatchString(v) {
			return "must name a write, like round-comment 3"
		}
	case KeyRetry:
		w, _, ok := strings.Cut(v, " | ")
		f := strings.Fields(w)
		if !ok || len(f) != 2 {
			return "must be <write> <count> | <last error>"
		}
		if n, err := strconv.Atoi(f[1]); err != nil || n < 1 {
			return "count must be at least 1"
		}
	case KeySpent, KeyBudgetGranted:
		return validateAmountKey(v)
	case KeyPaused:
		if _, err := ParsePause(v); err != nil {
			return err.Error()
		}
	case KeyStop:
		r, _, _ := strings.Cut(v, " | ")
		if !StopReason(r).Known() {
			return fmt.Sprintf("reason %q is not a stop reason", r)
		}
	case KeyNotify:
		for _, tok := range strings.Fields(v) {
			if _, err := ParseOwed(tok); err != nil {
				return err.Error()
			}
		}
	case KeyNotifyFailed:
		id, why, ok := strings.Cut(v, " | ")
		if !ok || strings.TrimSpace(why) == "" || !owedRE.MatchString(id+"/0") {
			return "must be <target>/<event>/<yyyymmddThhmmssZ> | <last error>"
		}
	default:
		if strings.Contains(key, " ") {
			return validateLegKey(key, v)
		}
		return "unknown key"
	}
	return ""
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
