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

var memberNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

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
	var out []string
	for m, p := range d.PerMember {
		if p != nil && !p.isZero() {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

func (p *PullState) isZero() bool {
	return p.Phase == "" && p.DispatchedAt.IsZero() && p.Verified.IsZero() && p.VerifyRepair == "" && p.PR.IsZero() &&
		p.Round == 0 && p.Head == "" && p.HeadAt.IsZero() && p.ChecksHead == "" && p.Since.IsZero() && p.RoundSince.IsZero() &&
		p.Ignored == "" && p.Receipt == "" && p.ReviewerAsked.IsZero() && p.Nudged == "" && p.Owed.IsZero() && p.Retry.IsZero() && p.Learn.IsZero()
}

// legLines returns the member keys' lines: members by name, each member's
// keys in canonical order.
func (d *Delivery) legLines() []string {
	var out []string
	for _, m := range d.Legs() {
		for _, f := range deliveryFields {
			if !f.pull {
				continue
			}
			if v := f.format(d, d.PerMember[m]); v != "" {
				out = append(out, LegKey(f.key, m)+": "+v)
			}
		}
	}
	return out
}

// LegView returns the entry as one member sees it: the entry's keys as
// they are, and the member's keys under their plain names (each member's
// phase starts at implement). Its View names the member; the row table,
// header and every other section are the entry's. A transition applied to
// the view is folded back with WithLeg.
func (l *Ledger) LegView(member string) *Ledger {
	n := l.Clone()
	n.View = member
	d := n.delivery()
	d.PullState = PullState{}
	if p := d.PerMember[member]; p != nil {
		d.PullState = p.clone()
	}
	d.PerMember = nil
	return n
}

// WithLeg folds a member's view back into the entry: the view's member
// keys become the member's, its entry keys the entry's (a stop a member's
// transition records stops the whole entry), and the entry's phase becomes
// the least advanced phase of members (implement, review, ready, done), so
// that the entry is ready only when every member is and done only when
// every member is. Only the delivery section is taken from the view, and
// the `## Proof` lines of the rows the view attests (its evidence replay).
func WithLeg(l *Ledger, member string, view *Ledger, members []string) *Ledger {
	n := l.Clone()
	var proofs []Proof
	for _, r := range view.ViewRows() {
		if p, ok := view.ProofOf(r.N); ok {
			proofs = append(proofs, p)
		}
	}
	if len(proofs) > 0 {
		n.SetProofs(proofs)
	}
	d := n.delivery()
	own, per := d.PullState, d.PerMember
	v := view.delivery().Clone()
	*d = *v
	d.PullState, d.PerMember = own, per
	if vp := v.PullState; !vp.isZero() {
		*d.Member(member) = vp
	} else {
		delete(d.PerMember, member)
	}
	d.Phase = EntryPhase(n, members)
	return n
}

// LegPhase returns a member's phase, implement when it has none.
func (l *Ledger) LegPhase(member string) Phase {
	if l.Delivery != nil {
		if p := l.Delivery.PerMember[member]; p != nil && p.Phase != "" {
			return p.Phase
		}
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

// eachPull applies set to the pull-request state where the entry keeps it:
// per member in a coordinated entry that has member keys (each member that
// has a pull request, when onlyWithPR), else on the entry. A request that
// clears a stop (resume, recheck) acts on every member this way.
func (d *Delivery) eachPull(set func(*PullState), onlyWithPR bool) {
	legs := d.Legs()
	if len(legs) == 0 {
		set(&d.PullState)
		return
	}
	for _, m := range legs {
		p := d.PerMember[m]
		if onlyWithPR && (p.PR.IsZero() || p.Phase == PhaseDone) {
			continue
		}
		set(p)
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
