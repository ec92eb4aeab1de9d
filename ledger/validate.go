package ledger

import (
	"slices"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Validate cross-checks a parsed ledger with its paired spec: one row per
// entry in seed order, cut rows exactly where the spec's dispositions say,
// a complete and unique leg mapping, attempts never below what the decision
// history implies, and a pending tuple that names an existing target and
// member. When the spec's contract no longer matches the one the ledger
// recorded, the row checks wait for `resnapshot` and an info says so.
func Validate(path string, l *Ledger, sp *specs.Spec) parse.Diagnostics {
	v := &validation{path: path, l: l}
	v.history()
	if l.Cap > 0 && l.Allowance == 0 {
		v.ds.Add(path, v.at(func(p *positions) int { return p.iterations + 1 }), parse.SeverityInfo, RuleHeader, "legacy cap: header; reconcile replaces it by allowance: <defaults.allowance> before the next dispatch (loop: migrate allowance)")
	}
	if sp == nil {
		return v.ds
	}
	if fp := l.Delivery.Contract; fp != "" && fp != sp.Contract().Fingerprint() {
		v.ds.Add(path, v.at(tableLine), parse.SeverityInfo, RulePairing, "the spec's contract is now %s, not the approved %s; rows are checked again after resnapshot", sp.Contract().Fingerprint(), fp)
		return v.ds
	}
	entries := sp.Entries()
	// Pointers into sp.ACs: a map of AC values would copy each AC and grow
	// to several times the size of the spec.
	acs := make(map[int]*specs.AC, len(sp.ACs))
	for i := range sp.ACs {
		acs[sp.ACs[i].N] = &sp.ACs[i]
	}
	if !sp.Coordinated() {
		v.single(sp, entries, acs)
	} else {
		coordinated := validateCoordinated(path, l, sp, entries, acs, v.at, v.errorf)
		v.ds = append(v.ds, coordinated...)
	}
	// Member keys (`pr api: …`) belong to coordinated entries and name
	// their members; see docs/ledger.md.
	for _, m := range l.Delivery.Legs() {
		if _, ok := sp.MemberRepo(m); !ok || !sp.Coordinated() {
			v.errorf(tableLine, RuleDelivery, "## Delivery has keys for member %q, which is not a member of %s (%v)", m, sp.Path, sp.Members())
		}
	}
	if l.Pending != nil {
		v.pending(sp)
	}
	return v.ds
}

// validation is one Validate under way: the ledger at path and the
// diagnostics found so far.
type validation struct {
	path string
	l    *Ledger
	ds   parse.Diagnostics
}

// tableLine is the line of the ledger's table.
func tableLine(p *positions) int { return p.table }

// at is the position of the ledger line f picks.
func (v *validation) at(f func(*positions) int) parse.Pos {
	return parse.Pos{Line: v.l.line(f), Col: 1}
}

// errorf reports an error of rule at the ledger line f picks.
func (v *validation) errorf(f func(*positions) int, rule, format string, args ...any) {
	v.ds.Errorf(v.path, v.at(f), rule, format, args...)
}

// history checks that attempts and iterations are never below what the
// decisions imply. It keys by row number: a ledger whose rows are
// misnumbered (Parse reported it) must not index out of range here.
func (v *validation) history() {
	l := v.l
	results := make(map[int]int, len(l.Rows))
	dispatches := 0
	for i, d := range l.Decisions {
		switch d.Kind {
		case DecisionResult:
			results[d.Row]++
			dispatches++
		case DecisionSeed:
			dispatches++
		}
		if d.Kind == DecisionTaskFailed {
			if t, ok := l.Task(d.Task); !ok {
				v.errorf(lineAt(l.at.decisionsOr(), i), RulePairing, "decision names task %s but ## Tasks does not list it", d.Task)
			} else if d.Attempt > t.Attempts {
				v.errorf(lineAt(l.at.decisionsOr(), i), RuleAttempts, "decision records attempt %d of task %s, which has %d attempts; attempts never go down", d.Attempt, d.Task, t.Attempts)
			}
		}
		if d.Operational() && d.Kind != DecisionSeed {
			if _, ok := l.Row(d.Row); !ok {
				v.errorf(lineAt(l.at.decisionsOr(), i), RulePairing, "decision names row %d but the ledger has %d rows", d.Row, len(l.Rows))
			}
		}
	}
	for i, r := range l.Rows {
		if results[r.N] > r.Attempts {
			v.errorf(lineAt(l.at.rowsOr(), i), RuleAttempts, "row %d has %d attempts but %d admitted results in ## Decisions; attempts never go down", r.N, r.Attempts, results[r.N])
		}
	}
	if dispatches > l.Iterations {
		v.errorf(func(p *positions) int { return p.iterations }, RuleAttempts, "iterations is %d but ## Decisions records %d admitted dispatches; iterations never go down", l.Iterations, dispatches)
	}
}

// single checks a single-repository spec's ledger: no mapping and no
// members, one row per entry, cut rows where the dispositions say.
func (v *validation) single(sp *specs.Spec, entries []specs.Entry, acs map[int]*specs.AC) {
	l := v.l
	if l.Mapping != nil {
		v.errorf(tableLine, RuleMapping, "a single-repository spec's ledger has no ## Leg mapping")
	}
	if l.Coordinated() {
		v.errorf(tableLine, RuleHeader, "base <member>:/seeded <member>: lines belong to coordinated specs; %s has no legs", sp.Path)
	}
	if len(l.Rows) != len(entries) {
		v.errorf(tableLine, RulePairing, "the ledger has %d rows but %s has %d acceptance criteria; rows index ACs one to one", len(l.Rows), sp.Path, len(entries))
	}
	for i, r := range l.Rows {
		if ac, ok := acs[r.N]; ok {
			checkCut(&v.ds, v.path, v.at(lineAt(l.at.rowsOr(), i)), r, *ac)
		}
	}
}

// pending checks that the pending tuple names a member of sp and, unless
// it is the seed, a row of that member that is not cut.
func (v *validation) pending(sp *specs.Spec) {
	l, pd := v.l, v.l.Pending
	pline := func(p *positions) int { return p.pending }
	if !slices.Contains(sp.Members(), pd.Member) {
		v.errorf(pline, RulePending, "pending member %q is not a member of %s (%v)", pd.Member, sp.Path, sp.Members())
		return
	}
	if pd.Target == SeedTarget {
		return
	}
	r, ok := l.Row(pd.Target)
	switch {
	case !ok:
		v.errorf(pline, RulePending, "pending target row %d does not exist", pd.Target)
	case r.Status == Cut:
		v.errorf(pline, RulePending, "pending target row %d is cut; cut rows are never dispatched", pd.Target)
	case l.MemberOf(pd.Target) != pd.Member:
		v.errorf(pline, RulePending, "pending names member %s but row %d belongs to %s", pd.Member, pd.Target, l.MemberOf(pd.Target))
	}
}

func (p *positions) rowsOr() []int {
	if p == nil {
		return nil
	}
	return p.rows
}

func (p *positions) decisionsOr() []int {
	if p == nil {
		return nil
	}
	return p.decisions
}

func (p *positions) mappingOr() []int {
	if p == nil {
		return nil
	}
	return p.mapping
}

// checkCut: a row is cut exactly when its AC's disposition cuts.
func checkCut(ds *parse.Diagnostics, path string, at parse.Pos, r Row, ac specs.AC) {
	switch {
	case r.Status == Cut && !ac.Disposition.Cuts():
		ds.Errorf(path, at, RulePairing, "row %d is cut but AC %d has no deviates:, deferred: or elsewhere: disposition; cut a row by amending the spec", r.N, ac.N)
	case r.Status != Cut && ac.Disposition.Cuts():
		ds.Errorf(path, at, RulePairing, "AC %d is %s but row %d is %s; the spec changed without resnapshot", ac.N, ac.Disposition.String(), r.N, r.Status)
	}
}

func validateCoordinated(path string, l *Ledger, sp *specs.Spec, entries []specs.Entry, acs map[int]*specs.AC, at func(func(*positions) int) parse.Pos, errorf func(func(*positions) int, string, string, ...any)) parse.Diagnostics {
	var ds parse.Diagnostics
	members := sp.Members()
	if len(l.Members) != len(members) {
		errorf(tableLine, RuleHeader, "a coordinated ledger has one base/seeded pair per member (%v); it has %d", members, len(l.Members))
	} else {
		for i, m := range l.Members {
			if m.Name != members[i] {
				errorf(tableLine, RuleHeader, "member %d is %q but the spec's membership order is %v", i+1, m.Name, members)
			}
		}
	}
	if l.Mapping == nil {
		errorf(tableLine, RuleMapping, "a coordinated ledger needs ## Leg mapping with one line per row")
		return ds
	}
	mapped := map[int]int{}
	pairs := map[specs.Entry]bool{}
	for i, m := range l.Mapping {
		where := lineAt(l.at.mappingOr(), i)
		if _, ok := l.Row(m.Row); !ok {
			errorf(where, RuleMapping, "mapping names row %d but the ledger has %d rows", m.Row, len(l.Rows))
			continue
		}
		mapped[m.Row]++
		if mapped[m.Row] > 1 {
			errorf(where, RuleMapping, "row %d is mapped twice; each row has exactly one mapping", m.Row)
		}
		e := specs.Entry{AC: m.AC, Member: m.Leg}
		if pairs[e] {
			errorf(where, RuleMapping, "AC %d on %s is mapped twice", m.AC, m.Leg)
		}
		pairs[e] = true
	}
	for i, r := range l.Rows {
		if mapped[r.N] == 0 {
			errorf(lineAt(l.at.rowsOr(), i), RuleMapping, "row %d has no line in ## Leg mapping", r.N)
		}
	}
	want := map[specs.Entry]bool{}
	for _, e := range entries {
		want[e] = true
		if !pairs[e] {
			errorf(tableLine, RulePairing, "the spec gives AC %d to %s but no row tracks it", e.AC, e.Member)
		}
	}
	for i, m := range l.Mapping {
		r, ok := l.Row(m.Row)
		if !ok {
			continue
		}
		where := at(lineAt(l.at.mappingOr(), i))
		if !want[specs.Entry{AC: m.AC, Member: m.Leg}] {
			if r.Status != Cut {
				ds.Errorf(path, where, RulePairing, "row %d tracks AC %d on %s, which the spec no longer has; only a cut row may", r.N, m.AC, m.Leg)
			}
			continue
		}
		if ac, ok := acs[m.AC]; ok {
			checkCut(&ds, path, where, *r, *ac)
		}
	}
	return ds
}
