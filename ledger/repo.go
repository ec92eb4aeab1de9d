package ledger

import (
	"fmt"
	"sort"
	"time"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Repo is a control-repository snapshot: its specs and chains, and its
// ledgers parsed and paired with their specs by the `**Spec:**` path, never
// by file name.
type Repo struct {
	*specs.Set
	// Ledgers maps a spec path to its usable ledger.
	Ledgers map[string]*Ledger
	// LedgerPaths maps a spec path to the file of the ledger pairing with it,
	// usable or not.
	LedgerPaths map[string]string
	// Broken maps the path of a ledger whose grammar is broken to the spec
	// path it names ("" when unreadable). Its diagnostics say why.
	Broken map[string]string
	// Orphans maps the path of a ledger whose spec does not exist to that
	// spec path.
	Orphans map[string]string
}

// Rule id for requests that are well-formed but not accepted now.
const ruleRequestState = RuleRequest

// Load parses a snapshot, pairs ledgers with specs, and runs every
// cross-document rule. One bad document never stops the others.
func Load(cfg *specs.Config, files []specs.File) (*Repo, parse.Diagnostics) {
	return LoadWith(cfg, files, Parsers{})
}

// LoadWith is Load with the per-document parse steps ps; see Parsers.
func LoadWith(cfg *specs.Config, files []specs.File, ps Parsers) (*Repo, parse.Diagnostics) {
	set, diags := specs.LoadWith(cfg, files, ps.Parsers)
	r := &Repo{Set: set, Ledgers: map[string]*Ledger{}, LedgerPaths: map[string]string{}, Broken: map[string]string{}, Orphans: map[string]string{}}
	ledgers := append([]specs.File(nil), set.Ledgers...)
	sort.Slice(ledgers, func(i, j int) bool { return ledgers[i].Path < ledgers[j].Path })
	for _, f := range ledgers {
		l, ds := ps.ledger(f)
		diags = append(diags, ds...)
		if prev, dup := r.LedgerPaths[l.Spec]; dup && l.Spec != "" {
			diags.Errorf(f.Path, parse.Pos{Line: l.line(func(p *positions) int { return p.spec }), Col: 1}, RuleDuplicate, "%s already pairs with %s; a spec has one ledger", prev, l.Spec)
			continue
		}
		if Fatal(ds) {
			r.Broken[f.Path] = l.Spec
			if l.Spec != "" {
				r.LedgerPaths[l.Spec] = f.Path
			}
			continue
		}
		sp, ok := set.Specs[l.Spec]
		if !ok {
			r.Orphans[f.Path] = l.Spec
			diags.Add(f.Path, parse.Pos{Line: l.line(func(p *positions) int { return p.spec }), Col: 1}, parse.SeverityWarning, RuleSpecPath,
				"this ledger pairs with %s, which is not a spec of this repository; reconcile stops the entry spec-gone", l.Spec)
			continue
		}
		r.LedgerPaths[l.Spec] = f.Path
		r.Ledgers[l.Spec] = l
		if set.Invalid[l.Spec] {
			continue
		}
		diags = append(diags, Validate(f.Path, l, sp)...)
		diags = append(diags, ValidateTasks(f.Path, l, set.PlanFor(l.Spec))...)
		if msg := r.ChainChanged(l.Spec); msg != "" {
			diags.Errorf(f.Path, parse.Pos{Line: l.line(func(p *positions) int { return p.chain }), Col: len(KeyChain) + 3}, RuleChainChanged, "%s", msg)
		}
		for i, st := range l.RequestStates() {
			if st.Err == nil && st.Refusal != "" {
				diags.Add(f.Path, parse.Pos{Line: lineAt(l.at.requestsOr(), i)(l.at), Col: 1}, parse.SeverityInfo, ruleRequestState, "not accepted now: %s", st.Refusal)
			}
		}
	}
	diags = append(diags, r.checkChainOrder()...)
	return r, diags
}

// RuleChainPredecessor flags a chain milestone that has a ledger while its
// predecessor is not done, as when a spec was seeded before it was added
// to a chain. The reconciler holds such a milestone at every phase.
const RuleChainPredecessor = "chain/predecessor-unfinished"

// checkChainOrder reports, at the chain's line for the milestone, every
// seeded milestone whose predecessor's ledger is not done.
func (r *Repo) checkChainOrder() parse.Diagnostics {
	var diags parse.Diagnostics
	for _, c := range r.Chains {
		for k := 1; k < len(c.Milestones); k++ {
			m, prev := c.Milestones[k], c.Milestones[k-1]
			if m.Path == "" || prev.Path == "" || r.Ledgers[m.Path] == nil {
				continue
			}
			if pl := r.Ledgers[prev.Path]; pl == nil || pl.Phase() != PhaseDone {
				diags.Add(c.Path, m.Pos, parse.SeverityWarning, RuleChainPredecessor,
					"milestone %d (%s) has a ledger but milestone %d (%s) is not done; gallivant holds it at every phase until %s is merged",
					k+1, m.Path, k, prev.Path, prev.Path)
			}
		}
	}
	return diags
}

func (p *positions) requestsOr() []int {
	if p == nil {
		return nil
	}
	return p.requests
}

// RequestState is one request line and what the current state makes of it.
type RequestState struct {
	Request Request
	// Err is set when the line is malformed.
	Err error
	// Refusal is why a well-formed request is not accepted now, "" when it is.
	Refusal string
}

// RequestStates reports, for each request line in order, whether it is
// malformed, accepted now, or refused and why.
func (l *Ledger) RequestStates() []RequestState {
	var out []RequestState
	for _, line := range l.Requests {
		req, err := ParseRequest(line)
		st := RequestState{Request: req, Err: err}
		if err == nil {
			if req.Kind == RequestResnapshot {
				if reason, _, stopped := l.Stop(); !stopped || reason != StopSpecChanged {
					st.Refusal = "resnapshot is accepted only at a spec-changed stop"
				}
			} else if _, _, err := ApplyRequest(l, req, time.Time{}); err != nil {
				if rf, ok := err.(*Refusal); ok {
					st.Refusal = rf.Reason
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// ChainChanged reports how the chain a milestone was seeded in changed
// since: a started chain's order and membership are fixed, because its
// ledgers and merged pull requests already follow them. "" when the entry
// was not seeded as a milestone or its chain still lists it in place.
func (r *Repo) ChainChanged(spec string) string {
	l := r.Ledgers[spec]
	if l == nil || l.Delivery.Chain.IsZero() {
		return ""
	}
	name, k, n := l.Delivery.Chain.Name, l.Delivery.Chain.K, l.Delivery.Chain.N
	was := fmt.Sprintf("%s was seeded as milestone %d of %d of chain %s", spec, k, n, name)
	cp, ok := r.ChainOf[spec]
	switch {
	case !ok:
		return was + ", but no chain lists it now; a started chain's membership is fixed: restore it"
	case cp.Chain.Name() != name:
		return fmt.Sprintf("%s, but chain %s lists it now; a started chain's membership is fixed: restore it", was, cp.Chain.Name())
	case cp.K != k || len(cp.Chain.Milestones) != n:
		return fmt.Sprintf("%s, but it is milestone %d of %d now; a started chain's order and membership are fixed: restore them", was, cp.K, len(cp.Chain.Milestones))
	}
	return ""
}
