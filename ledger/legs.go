package ledger

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// A coordinated entry delivers one pull request per member (each leg, and
// home when it owns rows). Each member's pull-request state is the same set
// of delivery keys a single-member entry has, written `<key> <member>: value`
// — the spelling of the coordinated header's `base <member>:` lines — so a
// member's state is read through a view (LegView) in which those keys have
// their plain names, and every pull-request transition applies to a member
// unchanged. A single-member ledger never has a member key.

// legKeys are the delivery keys a coordinated entry keeps per member: the
// pull request and everything the pull-request phases record about it.
// The other keys (spec-commit, contract, branch, chain, the row loop's
// counters and stop) belong to the entry.
var legKeys = []string{
	KeyPhase, KeyDispatchedAt, KeyVerified, KeyVerifyRepair, KeyPR, KeyRound, KeyHead, KeyHeadAt, KeyChecksHead, KeySince,
	KeyRoundSince, KeyIgnored, KeyReceipt, KeyReviewerAsked, KeyNudged, KeyOwed, KeyRetry,
}

var memberNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// IsLegKey reports whether key is kept per member in a coordinated entry.
func IsLegKey(key string) bool {
	for _, k := range legKeys {
		if k == key {
			return true
		}
	}
	return false
}

// LegKey spells a member's delivery key: `<key> <member>`.
func LegKey(key, member string) string { return key + " " + member }

// splitLegKey splits `<key> <member>`; ok is false for an entry key.
func splitLegKey(k string) (key, member string, ok bool) {
	key, member, ok = strings.Cut(k, " ")
	return key, member, ok
}

// Legs returns the members that have delivery keys, sorted by name.
func (d *Delivery) Legs() []string {
	if d == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for k := range d.values {
		if _, m, ok := splitLegKey(k); ok && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// legLines returns the member keys' lines: members by name, each member's
// keys in canonical order.
func (d *Delivery) legLines() []string {
	var out []string
	for _, m := range d.Legs() {
		for _, k := range deliveryKeys {
			if v, ok := d.values[LegKey(k, m)]; ok {
				out = append(out, LegKey(k, m)+": "+v)
			}
		}
	}
	return out
}

// validateLegKey checks a `<key> <member>: value` line; "unknown key" when
// it is not one.
func validateLegKey(k, v string) string {
	key, member, _ := splitLegKey(k)
	if !IsLegKey(key) {
		return "unknown key"
	}
	if !memberNameRE.MatchString(member) {
		return "names no member: a member is home or a leg name (lowercase letters, digits, '.', '_' or '-')"
	}
	return validateDelivery(key, v)
}

// LegView returns the entry as one member sees it: the entry's keys as
// they are, and the member's keys under their plain names (each member's
// phase starts at implement). Its View names the member; the row table,
// header and every other section are the entry's. A transition applied to
// the view is folded back with WithLeg.
func (l *Ledger) LegView(member string) *Ledger {
	n := l.Clone()
	n.View = member
	d := NewDelivery()
	for k, v := range l.Delivery.valuesOrNil() {
		if _, _, ok := splitLegKey(k); ok || IsLegKey(k) {
			continue
		}
		d.values[k] = v
	}
	for _, k := range legKeys {
		if v := l.Delivery.Get(LegKey(k, member)); v != "" {
			d.values[k] = v
		}
	}
	n.Delivery = d
	return n
}

func (d *Delivery) valuesOrNil() map[string]string {
	if d == nil {
		return nil
	}
	return d.values
}

// WithLeg folds a member's view back into the entry: the view's member
// keys become the member's, its entry keys the entry's (a stop a member's
// transition records stops the whole entry), and the entry's phase becomes
// the least advanced phase of members (implement, review, ready, done), so
// that the entry is ready only when every member is and done only when
// every member is. Only the delivery section is taken from the view.
func WithLeg(l *Ledger, member string, view *Ledger, members []string) *Ledger {
	n := l.Clone()
	d := n.delivery()
	for k := range d.values {
		if key, m, ok := splitLegKey(k); ok && m == member {
			delete(d.values, LegKey(key, m))
		} else if !ok && !IsLegKey(k) {
			delete(d.values, k)
		}
	}
	for k, v := range view.Delivery.valuesOrNil() {
		if IsLegKey(k) {
			d.values[LegKey(k, member)] = v
		} else if _, _, ok := splitLegKey(k); !ok {
			d.values[k] = v
		}
	}
	d.SetPhase(EntryPhase(n, members))
	return n
}

// LegPhase returns a member's phase, implement when it has none.
func (l *Ledger) LegPhase(member string) Phase {
	if v := l.Delivery.Get(LegKey(KeyPhase, member)); v != "" {
		return Phase(v)
	}
	return PhaseImplement
}

// EntryPhase is a coordinated entry's phase: its least advanced member's.
func EntryPhase(l *Ledger, members []string) Phase {
	rank := map[Phase]int{PhaseImplement: 0, PhaseVerify: 0, PhaseReview: 1, PhaseReady: 2, PhaseDone: 3}
	least := PhaseDone
	for _, m := range members {
		p := l.LegPhase(m)
		if p == PhaseVerify {
			p = PhaseImplement
		}
		if rank[p] < rank[least] {
			least = p
		}
	}
	return least
}

// setEach sets a pull-request key where the entry keeps it: per member in
// a coordinated entry that has member keys (each member that has a pull
// request, when onlyWithPR), else on the entry. A request that clears a
// stop (resume, recheck) acts on every member this way.
func (d *Delivery) setEach(key, value string, onlyWithPR bool) {
	legs := d.Legs()
	if len(legs) == 0 {
		d.Set(key, value)
		return
	}
	for _, m := range legs {
		if onlyWithPR && (d.Get(LegKey(KeyPR, m)) == "" || d.Get(LegKey(KeyPhase, m)) == string(PhaseDone)) {
			continue
		}
		d.Set(LegKey(key, m), value)
	}
}

// Member returns the member whose pull request this ledger (or view)
// describes: home for a whole ledger.
func (l *Ledger) Member() string {
	if l.View != "" {
		return l.View
	}
	return specs.HomeMember
}

// ViewRows returns the rows a ledger attests: every row of a whole ledger;
// a view's own member's rows and those of the members in Also, in row
// order.
func (l *Ledger) ViewRows() []Row {
	if l.View == "" {
		return l.Rows
	}
	var out []Row
	for _, r := range l.Rows {
		m := l.MemberOf(r.N)
		if m == l.View || slices.Contains(l.Also, m) {
			out = append(out, r)
		}
	}
	return out
}
