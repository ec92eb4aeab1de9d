package ledger

import (
	"slices"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Parsers are LoadWith's per-document parse steps: specs.Parsers for the
// specs, chains and plans, and Ledger for the ledgers. A nil step parses
// afresh.
//
// Ledger may return a ledger it also returns to other loads: LoadWith
// gives each Repo its own deep copy (CloneParsed), because a pass changes
// the ledgers it holds, and one pass's changes must never show in another's.
type Parsers struct {
	specs.Parsers
	Ledger func(f specs.File) (*Ledger, parse.Diagnostics)
}

func (ps Parsers) ledger(f specs.File) (*Ledger, parse.Diagnostics) {
	if ps.Ledger == nil {
		return Parse(f.Path, f.Data)
	}
	l, ds := ps.Ledger(f)
	return l.CloneParsed(), ds
}

// CloneParsed is a deep copy of a ledger as parsed, before any change,
// equal to it in every field: unlike Clone it keeps the positions of the
// parse (which only parsing writes), so that diagnostics about the copy
// point at the right lines, and it keeps empty sections empty rather than
// nil. It copies what Clone copies.
func (l *Ledger) CloneParsed() *Ledger {
	c := *l
	if l.Pending != nil {
		p := *l.Pending
		c.Pending = &p
	}
	c.Members = slices.Clone(l.Members)
	c.Rows = slices.Clone(l.Rows)
	c.Mapping = slices.Clone(l.Mapping)
	c.Decisions = slices.Clone(l.Decisions)
	if l.Delivery != nil {
		c.Delivery = l.Delivery.Clone()
	}
	c.Requests = slices.Clone(l.Requests)
	c.Proofs = slices.Clone(l.Proofs)
	c.Tasks = slices.Clone(l.Tasks)
	c.Also = slices.Clone(l.Also)
	return &c
}
