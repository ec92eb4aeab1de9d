package specs

import (
	"slices"

	"github.com/gallivant/gallivant/parse"
)

// Parsers are the per-document parse steps of LoadWith, and the reader of
// the snapshot's `sources:` files (Source): a caller that loads
// the same documents again and again (the reconcile daemon, pass after
// pass) supplies steps that return a remembered result for bytes it has
// parsed before. A nil step parses afresh.
//
// A step may return values it also returns to other loads. LoadWith copies
// what loading changes (a chain's milestones, which it resolves), so one
// load never alters another's; the specs, their documents and the plans are
// shared as returned, and every user of a Set treats them as read-only.
// Diagnostics are copied into the load's own.
type Parsers struct {
	Spec  func(f File, def Defaults) (*Spec, *parse.Document, parse.Diagnostics)
	Chain func(f File) (*Chain, parse.Diagnostics)
	Plan  func(f File) (*Plan, parse.Diagnostics)
	// Source reads a `sources:` file the loaded files do not hold from the
	// same snapshot (SourceReader); nil leaves such a source missing.
	Source SourceReader
}

// ParseSpecFile is the Spec step's own parse: the document and its spec,
// read by the grammar def.Format names.
func ParseSpecFile(f File, def Defaults) (*Spec, *parse.Document, parse.Diagnostics) {
	doc := parse.Parse(f.Path, f.Data)
	var sp *Spec
	var ds parse.Diagnostics
	switch def.Format {
	case FormatSpecKit:
		sp, ds = ParseSpecKit(doc, def)
	case FormatKiro:
		sp, ds = ParseKiro(doc, def)
	default:
		sp, ds = ParseSpec(doc, def)
	}
	return sp, doc, ds
}

// ParseChainFile is the Chain step's own parse.
func ParseChainFile(f File) (*Chain, parse.Diagnostics) {
	return ParseChain(parse.Parse(f.Path, f.Data))
}

// ParsePlanFile is the Plan step's own parse.
func ParsePlanFile(f File) (*Plan, parse.Diagnostics) {
	return ParsePlan(parse.Parse(f.Path, f.Data))
}

func (ps Parsers) spec(f File, def Defaults) (*Spec, *parse.Document, parse.Diagnostics) {
	if ps.Spec == nil {
		return ParseSpecFile(f, def)
	}
	sp, doc, ds := ps.Spec(f, def)
	return sp, doc, slices.Clip(ds)
}

func (ps Parsers) chain(f File) (*Chain, parse.Diagnostics) {
	if ps.Chain == nil {
		return ParseChainFile(f)
	}
	shared, ds := ps.Chain(f)
	// resolveChains writes each milestone's Path.
	c := *shared
	c.Milestones = slices.Clone(shared.Milestones)
	return &c, slices.Clip(ds)
}

func (ps Parsers) plan(f File) (*Plan, parse.Diagnostics) {
	if ps.Plan == nil {
		return ParsePlanFile(f)
	}
	p, ds := ps.Plan(f)
	return p, slices.Clip(ds)
}
