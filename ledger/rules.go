package ledger

import (
	"fmt"

	"github.com/gallivant/gallivant/specs"
)

// Settings are the configuration values the loop rules read.
type Settings struct {
	// EscalateAfter is defaults.escalate_after (seed default 3, floor 1).
	EscalateAfter int
	// EscalationModel is executor.escalation_model; empty means none.
	EscalationModel string
	// Allowance is defaults.allowance, used only to migrate a legacy cap.
	Allowance int
}

// EffectiveAllowance returns a row's effective allowance: the header
// allowance plus one per `row <n> retry` decision of that row (L-28). The
// stored `allowed attempts <m>` values are audit text and never override it.
func (l *Ledger) EffectiveAllowance(row int) int {
	n := l.Allowance
	for _, d := range l.Decisions {
		if d.Kind == DecisionRetry && d.Row == row {
			n++
		}
	}
	return n
}

// EscalationThreshold returns min(escalate_after, effective allowance − 1)
// for a row (L-44): the attempt count at which its next attempt runs on the
// escalation model. escalate_after is floored at 1.
func (l *Ledger) EscalationThreshold(row, escalateAfter int) int {
	if escalateAfter < 1 {
		escalateAfter = 1
	}
	return max(0, min(escalateAfter, l.EffectiveAllowance(row)-1))
}

// Escalated reports whether a row has spent its one escalation (L-48).
func (l *Ledger) Escalated(row int) bool {
	for _, d := range l.Decisions {
		if d.Kind == DecisionEscalated && d.Row == row {
			return true
		}
	}
	return false
}

// Seeded reports whether the seed of a member has been admitted: the
// `seeded <member>: yes` line of a coordinated ledger, or the `row 0 done`
// decision of a single-member one (L-41).
func (l *Ledger) Seeded(member string) bool {
	if l.Coordinated() {
		m, ok := l.MemberMeta(member)
		return ok && m.Seeded
	}
	for _, d := range l.Decisions {
		if d.Kind == DecisionSeed {
			return true
		}
	}
	return false
}

// MemberRows returns the rows of a member, in order.
func (l *Ledger) MemberRows(member string) []Row {
	var out []Row
	for _, r := range l.Rows {
		if l.MemberOf(r.N) == member {
			out = append(out, r)
		}
	}
	return out
}

// needsSeed returns the next member whose seed is still due, in membership
// order, skipping members whose rows are all cut (L-42).
func (l *Ledger) needsSeed() (string, bool) {
	members := []string{specs.HomeMember}
	if l.Coordinated() {
		members = members[:0]
		for _, m := range l.Members {
			members = append(members, m.Name)
		}
	}
	for _, m := range members {
		if l.Seeded(m) {
			continue
		}
		for _, r := range l.MemberRows(m) {
			if r.Status != Cut {
				return m, true
			}
		}
	}
	return "", false
}

// ActionKind is what the ordered table decides for an entry in implement.
type ActionKind int

// Actions.
const (
	ActNone     ActionKind = iota // stopped: nothing happens until a request
	ActSettle                     // a dispatch is outstanding: settle it first
	ActMigrate                    // legacy cap: migrate before the next dispatch
	ActVerify                     // every row is closed: go to verify
	ActStop                       // stop with Reason and Detail
	ActEscalate                   // write the escalation marker for Target
	ActDispatch                   // dispatch Target to Member (with Model when escalated)
)

func (k ActionKind) String() string {
	return [...]string{"none", "settle", "migrate", "verify", "stop", "escalate", "dispatch"}[k]
}

// Action is the outcome of the ordered table.
type Action struct {
	Kind ActionKind
	// Target is a row number or SeedTarget.
	Target int
	Member string
	// Model is set on the escalated attempt only.
	Model  string
	Reason StopReason
	Detail string
}

// Next evaluates the ordered next-action table for an entry in the
// implement phase (L-37): settle an outstanding dispatch first; then migrate
// a legacy cap; then, first match wins, (1) no open or failed row → verify,
// (2) an unresolved row at or over its effective allowance → stop,
// (3) stagnation or two consecutive misses → stop, (4) dispatch the target
// chosen by L-41, escalating it once at the L-44 threshold.
func Next(l *Ledger, s Settings) Action {
	if _, _, stopped := l.Stop(); stopped {
		return Action{Kind: ActNone}
	}
	if l.Pending != nil {
		return Action{Kind: ActSettle, Target: l.Pending.Target, Member: l.Pending.Member}
	}
	if l.Allowance == 0 {
		return Action{Kind: ActMigrate}
	}
	unresolved := false
	for _, r := range l.Rows {
		if r.Status.Unresolved() {
			unresolved = true
			break
		}
	}
	if !unresolved {
		return Action{Kind: ActVerify}
	}
	for _, r := range l.Rows {
		if r.Status.Unresolved() && r.Attempts >= l.EffectiveAllowance(r.N) {
			return Action{Kind: ActStop, Reason: StopAllowance, Target: r.N,
				Detail: fmt.Sprintf("row %d used %d of %d attempts", r.N, r.Attempts, l.EffectiveAllowance(r.N))}
		}
	}
	if n := l.Delivery.EmptyReturns; n >= 2 {
		return Action{Kind: ActStop, Reason: StopStagnation, Detail: fmt.Sprintf("the last %d returns changed no file and no row status", n)}
	}
	if n := l.Delivery.Misses; n >= 2 {
		return Action{Kind: ActStop, Reason: StopMisses, Detail: fmt.Sprintf("%d consecutive returns broke the return contract", n)}
	}
	if d, ok := l.LatestOperational(); ok && d.NeedsSomething() {
		if r, ok := l.Row(d.Row); ok && r.Status == Failed {
			return Action{Kind: ActStop, Reason: StopNeeds, Target: d.Row, Detail: fmt.Sprintf("row %d %s", d.Row, d.Slot2)}
		}
	}
	if m, ok := l.needsSeed(); ok {
		return Action{Kind: ActDispatch, Target: SeedTarget, Member: m}
	}
	target := l.Target()
	member := l.MemberOf(target)
	if model := l.Delivery.Model; model != "" {
		// The escalation marker is written; this is the escalated attempt.
		return Action{Kind: ActDispatch, Target: target, Member: member, Model: model}
	}
	r, _ := l.Row(target)
	if !l.Escalated(target) && r.Attempts >= l.EscalationThreshold(target, s.EscalateAfter) {
		// With no escalation model the marker is written all the same and
		// the escalated attempt runs on the default model: no dead end.
		return Action{Kind: ActEscalate, Target: target, Member: member, Model: s.EscalationModel}
	}
	return Action{Kind: ActDispatch, Target: target, Member: member}
}

// Target picks the row to dispatch once seeding is done (L-41): the human
// retry target while it is unresolved, then the still-failed row named by the
// previous decision, then the first failed row, then the first open row.
// Durable status beats a decision's suggestion. It returns 0 when no row is
// unresolved.
func (l *Ledger) Target() int {
	if d, ok := l.latestRetry(); ok {
		if r, ok := l.Row(d.Row); ok && r.Status.Unresolved() {
			return d.Row
		}
	}
	if d, ok := l.PreviousDecision(); ok && d.Row > 0 {
		if r, ok := l.Row(d.Row); ok && r.Status == Failed {
			return d.Row
		}
	}
	for _, r := range l.Rows {
		if r.Status == Failed {
			return r.N
		}
	}
	for _, r := range l.Rows {
		if r.Status == Open {
			return r.N
		}
	}
	return 0
}

func (l *Ledger) latestRetry() (Decision, bool) {
	for i := len(l.Decisions) - 1; i >= 0; i-- {
		if l.Decisions[i].Kind == DecisionRetry {
			return l.Decisions[i], true
		}
	}
	return Decision{}, false
}

// PreviousDecision is what the next dispatch receives as `previous
// decision`: the latest operational decision, or none after a validation
// miss (L-43).
func (l *Ledger) PreviousDecision() (Decision, bool) {
	if l.Delivery.Misses > 0 {
		return Decision{}, false
	}
	return l.LatestOperational()
}

// PreviousResult is the `previous decision:` a brief quotes (L-43): the
// last real decision — an admitted result, or the seed — never a marker
// line (retry, escalation, grant); none after a validation miss.
func (l *Ledger) PreviousResult() (Decision, bool) {
	if l.Delivery.Misses > 0 {
		return Decision{}, false
	}
	for i := len(l.Decisions) - 1; i >= 0; i-- {
		switch d := l.Decisions[i]; d.Kind {
		case DecisionResult, DecisionSeed, DecisionReopened:
			return d, true
		}
	}
	return Decision{}, false
}
