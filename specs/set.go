package specs

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

// LedgerDiscriminant is line 1 of every ledger.
const LedgerDiscriminant = "# Ledger - loop engine"

// Kind is what a control-repository file is.
type Kind int

// Document kinds.
const (
	KindOther Kind = iota
	KindConfig
	KindSpec
	KindChain
	KindPlan
	KindLedger
)

func (k Kind) String() string {
	return [...]string{"other", "config", "spec", "chain", "plan", "ledger"}[k]
}

// Classify says what the file at path is: the ledger discriminant on line 1
// makes a ledger wherever it lives; otherwise the configured directories decide.
func (c *Config) Classify(p string, firstLine string) Kind {
	if p == ConfigFile {
		return KindConfig
	}
	if !strings.HasSuffix(p, ".md") {
		return KindOther
	}
	if strings.TrimRight(firstLine, " \t\r") == LedgerDiscriminant {
		return KindLedger
	}
	if _, k, ok := c.FormatOf(p); ok {
		return k
	}
	for _, d := range c.Control.Specs {
		if under(p, d) {
			return KindSpec
		}
	}
	for _, d := range c.Control.Chains {
		if under(p, d) {
			return KindChain
		}
	}
	if under(p, c.Control.Plans) {
		return KindPlan
	}
	return KindOther
}

// ScanDirs returns the directories `gallivant check` and the reconciler read.
func (c *Config) ScanDirs() []string {
	out := append(append(append([]string{}, c.Control.Specs...), c.Control.Chains...), c.Control.Plans)
	out = append(append(out, c.Formats.SpecKit...), c.Formats.Kiro...)
	sort.Strings(out)
	return slices.Compact(out)
}

// File is one file of a control-repository snapshot.
type File struct {
	// Path is repository-relative with slashes.
	Path string
	Data []byte
	// ID is the file's git blob id when it was read from a repository, ""
	// otherwise: what a cache of parse results (Parsers) keys on.
	ID string
}

// Set is every document of a control repository at one commit, parsed.
type Set struct {
	Config *Config
	// Specs maps a spec path to its spec; specs with errors are in Invalid.
	Specs map[string]*Spec
	// Invalid holds the paths of specs that have error diagnostics.
	Invalid map[string]bool
	Chains  []*Chain
	// Plans are the plans under control.plans, paired with specs by their
	// **Spec:** line. CheckPlans runs their rules.
	Plans []*Plan
	// SpecDocs are the specs' parsed documents, for plan anchors.
	SpecDocs map[string]*parse.Document
	// PlanErrors marks the specs whose plan has errors (after CheckPlans).
	PlanErrors    map[string]bool
	planStructure map[string]bool
	// Ledgers are the raw ledger files, left for the ledger grammar.
	Ledgers []File
	// Others are markdown files that are no control document.
	Others []string
	// Sources are files under a specs directory that a spec carries in its
	// `sources:` and that are therefore not specs themselves.
	Sources []string
	// ChainOf maps a spec path to the chain that holds it and its 1-based
	// position there.
	ChainOf map[string]ChainPos
}

// ChainPos places a spec in a chain.
type ChainPos struct {
	Chain *Chain
	K     int
}

// SpecPaths returns the paths of all specs, valid or not, sorted.
func (s *Set) SpecPaths() []string {
	out := make([]string, 0, len(s.Specs))
	for p := range s.Specs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// LoadWith parses every file of a snapshot, with the per-document parse
// steps ps (see Parsers; the zero Parsers parses each document afresh), and
// runs the cross-document rules that need only specs and chains. One bad
// document never stops the others: each is reported and the rest are
// loaded.
func LoadWith(cfg *Config, files []File, ps Parsers) (*Set, parse.Diagnostics) {
	set := &Set{Config: cfg, Specs: map[string]*Spec{}, Invalid: map[string]bool{}, ChainOf: map[string]ChainPos{},
		SpecDocs: map[string]*parse.Document{}, PlanErrors: map[string]bool{}, planStructure: map[string]bool{}}
	var diags parse.Diagnostics
	specDiags := map[string]parse.Diagnostics{}
	def := Defaults{Repo: cfg.Defaults.Repo, Base: cfg.Defaults.Base, ConfigUnreadable: cfg.Unreadable}
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, f := range sorted {
		format, _, feature := cfg.FormatOf(f.Path)
		switch cfg.Classify(f.Path, FirstLine(f.Data)) {
		case KindSpec:
			sp, doc, ds := ps.spec(f, def.withFormat(cfg, format))
			if sp.Status == StatusDraft {
				ds = downgrade(ds)
			}
			set.Specs[f.Path] = sp
			set.SpecDocs[f.Path] = doc
			specDiags[f.Path] = ds
		case KindChain:
			ch, ds := ps.chain(f)
			set.Chains = append(set.Chains, ch)
			diags = append(diags, ds...)
		case KindPlan:
			var p *Plan
			var ds parse.Diagnostics
			if format == FormatGallivant {
				p, ds = ps.plan(f)
			} else {
				// A spec-kit or Kiro tasks.md is read by its own
				// grammar (tasks.go).
				p, ds = ParseTasksFile(format, f)
			}
			set.Plans = append(set.Plans, p)
			set.planStructure[f.Path] = ds.HasErrors()
			diags = append(diags, ds...)
		case KindLedger:
			set.Ledgers = append(set.Ledgers, f)
		case KindOther:
			// A feature folder's other files (plan.md, design.md …)
			// are its authors' material, known and not checked.
			if strings.HasSuffix(f.Path, ".md") && !feature {
				set.Others = append(set.Others, f.Path)
			}
		}
	}
	// A file a spec carries in `sources:` is material for that spec, not a
	// spec of its own, even when it lives under a specs directory.
	for _, sp := range set.Specs {
		for _, src := range sp.Sources {
			if _, ok := set.Specs[src]; ok && src != sp.Path {
				delete(set.Specs, src)
				delete(specDiags, src)
				set.Sources = append(set.Sources, src)
			}
		}
	}
	sort.Strings(set.Sources)
	set.Sources = slices.Compact(set.Sources)
	srcDiags := attachSources(set, sorted, ps.Source)
	for _, d := range srcDiags {
		specDiags[d.File] = append(specDiags[d.File], d)
	}
	for _, p := range set.SpecPaths() {
		if specDiags[p].HasErrors() {
			set.Invalid[p] = true
		}
		diags = append(diags, specDiags[p]...)
	}
	diags = append(diags, set.checkStems()...)
	diags = append(diags, set.resolveChains()...)
	diags = append(diags, set.pairPlans()...)
	return set, diags
}

// downgrade turns a draft's errors into warnings: drafts are work in progress
// that the reconciler ignores, so they must not fail CI, but their problems
// should still be visible.
func downgrade(ds parse.Diagnostics) parse.Diagnostics {
	out := make(parse.Diagnostics, len(ds))
	for i, d := range ds {
		if d.Severity == parse.SeverityError {
			d.Severity = parse.SeverityWarning
			d.Message += " (status: draft, so this is a warning)"
		}
		out[i] = d
	}
	return out
}

// checkStems refuses two specs with one file name: they would share a ledger
// path and a work branch.
func (s *Set) checkStems() parse.Diagnostics {
	var diags parse.Diagnostics
	byStem := map[string]string{}
	for _, p := range s.SpecPaths() {
		st := Stem(p)
		if prev, ok := byStem[st]; ok {
			diags.Errorf(p, parse.Pos{Line: 1, Col: 1}, RuleSpecStem, "spec file name %q is also used by %s; both would share the ledger %s and the branch %s, so rename one", st+".md", prev, s.Config.LedgerPath(p), Branch(p))
			s.Invalid[p] = true
			continue
		}
		byStem[st] = p
	}
	return diags
}

func (s *Set) resolveChains() parse.Diagnostics {
	var diags parse.Diagnostics
	for _, c := range s.Chains {
		seenHere := map[string]int{}
		var first *Spec
		for k := range c.Milestones {
			m := &c.Milestones[k]
			var found string
			for _, cand := range resolveRef(c.Path, m.Ref) {
				if _, ok := s.Specs[cand]; ok {
					found = cand
					break
				}
			}
			if found == "" {
				diags.Errorf(c.Path, m.Pos, RuleChainResolve, "milestone %q is not a spec of this repository (looked for %s under %s)", m.Ref, strings.Join(resolveRef(c.Path, m.Ref), " and "), strings.Join(s.Config.Control.Specs, ", "))
				continue
			}
			m.Path = found
			if s.Invalid[found] {
				diags.Errorf(c.Path, m.Pos, RuleChainResolve, "milestone %s is not a valid spec; fix its errors first", found)
			}
			if prev, dup := seenHere[found]; dup {
				diags.Errorf(c.Path, m.Pos, RuleChainMembership, "spec %s appears twice in this chain (first as milestone %d)", found, prev)
				continue
			}
			seenHere[found] = k + 1
			if other, taken := s.ChainOf[found]; taken {
				diags.Errorf(c.Path, m.Pos, RuleChainMembership, "spec %s is already milestone %d of chain %s; a spec belongs to at most one chain", found, other.K, other.Chain.Path)
				continue
			}
			s.ChainOf[found] = ChainPos{Chain: c, K: k + 1}
			sp := s.Specs[found]
			if first == nil {
				first = sp
				continue
			}
			if sp.Repo != first.Repo || sp.Base != first.Base {
				diags.Errorf(c.Path, m.Pos, RuleChainShared, "milestone %s targets %s@%s but the chain's first milestone targets %s@%s; all milestones share repo and base", found, sp.Repo, sp.Base, first.Repo, first.Base)
			}
		}
	}
	return diags
}

// FirstLine returns data's first line without its line ending.
func FirstLine(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return strings.TrimSuffix(string(data), "\r")
}

// pairPlans pairs each plan with its spec: the spec exists, and has one
// plan.
func (s *Set) pairPlans() parse.Diagnostics {
	var ds parse.Diagnostics
	seen := map[string]string{}
	for _, p := range s.Plans {
		if p.Spec == "" {
			continue
		}
		if _, ok := s.Specs[p.Spec]; !ok {
			ds.Errorf(p.Path, p.SpecPos, RulePlanStructure, "the plan pairs with %s, which is not a spec of this repository", p.Spec)
			s.planStructure[p.Path] = true
			continue
		}
		if prev, dup := seen[p.Spec]; dup {
			ds.Errorf(p.Path, p.SpecPos, RulePlanStructure, "%s already plans %s; a spec has one plan", prev, p.Spec)
			s.planStructure[p.Path] = true
			continue
		}
		seen[p.Spec] = p.Path
		if s.planStructure[p.Path] {
			s.PlanErrors[p.Spec] = true
		}
	}
	return ds
}
