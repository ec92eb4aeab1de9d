package specs

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/parse"
	"go.yaml.in/yaml/v3"
)

// Status is a spec's or chain's lifecycle status.
type Status string

// Statuses. A spec defaults to active.
const (
	StatusDraft     Status = "draft"
	StatusActive    Status = "active"
	StatusPaused    Status = "paused"
	StatusCancelled Status = "cancelled"
)

// Engines a spec can name in its **Engine:** line.
const (
	EngineLoop  = "loop"
	EngineWaves = "waves"
)

// HomeMember is the member id of a single-member spec and of the spec's own
// repository in a coordinated one.
const HomeMember = "home"

// DispositionKind is the kind of an AC disposition.
type DispositionKind string

// Disposition kinds. Deviates, Deferred and Elsewhere cut the AC's row at seeding.
const (
	DispNone      DispositionKind = ""
	DispInScope   DispositionKind = "in-scope"
	DispVenue     DispositionKind = "venue"
	DispDeviates  DispositionKind = "deviates"
	DispDeferred  DispositionKind = "deferred"
	DispElsewhere DispositionKind = "elsewhere"
)

// Disposition is an AC's nested disposition item.
type Disposition struct {
	Kind DispositionKind
	// Text is what follows `<kind>: `, empty for in-scope and none.
	Text string
	Pos  parse.Pos
}

// Cuts reports whether the disposition makes the AC's row `cut` at seeding.
func (d Disposition) Cuts() bool {
	return d.Kind == DispDeviates || d.Kind == DispDeferred || d.Kind == DispElsewhere
}

// String renders the disposition as written (`venue: x`, `in-scope`), or "".
func (d Disposition) String() string {
	switch d.Kind {
	case DispNone:
		return ""
	case DispInScope:
		return string(DispInScope)
	}
	return string(d.Kind) + ": " + d.Text
}

// AC is one acceptance criterion. ACs are numbered 1..n by position.
type AC struct {
	N int
	// ID is the criterion's own id in a spec-kit or Kiro spec (US1.2,
	// SC-001, 1.3), its row label; "" in a gallivant spec.
	ID string `json:",omitempty"`
	// Text is the AC's whitespace-normalized text: its first paragraph,
	// then each nested non-disposition item or block, joined by "; ".
	Text string
	// Source is the AC's first paragraph exactly as the spec has it, one
	// line per source line: what an agent is asked to make true, byte for
	// byte (Text, which the contract fingerprints, folds its whitespace).
	Source string
	// Details are the AC's nested non-disposition items and blocks.
	Details     []string
	Disposition Disposition
	// Pos is the position of the AC's list marker.
	Pos parse.Pos
}

// Leg is one `### Leg:` block: a target repository the spec touches.
type Leg struct {
	Name string
	Repo string
	// Scope lists the AC numbers the leg owns, in the order written; empty
	// with ScopeNone for `scope: none`.
	Scope     []int
	ScopeNone bool
	// Verification is the leg's `- verification:` command, or "".
	Verification string
	Pos          parse.Pos
}

// Spec is a work item with numbered acceptance criteria (a PRD).
type Spec struct {
	// Path is the repository-relative slash path of the spec file.
	Path  string
	Title string
	// Repo and Base are the effective target repository and base branch:
	// the frontmatter's values, else the configuration defaults.
	Repo, Base string
	Status     Status
	Harness    string
	// Allowance is the frontmatter allowance, 0 when unset.
	Allowance int
	// Budget is what the entry's agents may spend (budget:); nil when
	// unset.
	Budget  *Amount `json:",omitempty"`
	Context []string
	Sources []string
	// SourcePos are the positions of the Sources paths in the frontmatter,
	// one per path, for diagnostics about the files they name.
	SourcePos []parse.Pos `json:"-"`
	// SourceFiles are the `sources:` files' bytes, attached by Load (or
	// WithSources) from the same snapshot; nil for a spec parsed on its
	// own. Their digests are part of the contract.
	SourceFiles []SourceFile `json:"-"`
	Engine      string
	AmendGrant  string
	ACs         []AC
	// Verify are the `## Verify` commands in order, duplicates kept.
	Verify []string
	Legs   []Leg
	// PR is the existing pull request the spec adopts (`pr:`); zero
	// when gallivant opens its own.
	PR PRRef `json:",omitzero"`
	// Format is the grammar the spec is written in.
	Format Format `json:",omitempty"`
}

// AC returns acceptance criterion n (1-based), or nil when there is none.
func (s *Spec) AC(n int) *AC {
	if n < 1 || n > len(s.ACs) {
		return nil
	}
	return &s.ACs[n-1]
}

// Coordinated reports whether the spec has two or more legs.
func (s *Spec) Coordinated() bool { return len(s.Legs) >= 2 }

// Members returns the spec's member ids in membership order: home first, then
// each leg. A single-member spec has only home.
func (s *Spec) Members() []string {
	out := []string{HomeMember}
	if s.Coordinated() {
		for _, l := range s.Legs {
			out = append(out, l.Name)
		}
	}
	return out
}

// MemberRepo returns the repository of a member ("home" is the spec's repo).
func (s *Spec) MemberRepo(member string) (string, bool) {
	if member == HomeMember {
		return s.Repo, true
	}
	for _, l := range s.Legs {
		if l.Name == member {
			return l.Repo, true
		}
	}
	return "", false
}

// Entry is one (AC, member) pair: the unit a ledger row tracks.
type Entry struct {
	AC     int
	Member string
}

// Entries expands the ACs into ledger entries: one per AC for a single-member
// spec; for a coordinated spec one per (AC, owning member) in AC order, then
// membership order for a shared AC. An AC in no leg's scope belongs to home.
func (s *Spec) Entries() []Entry {
	if !s.Coordinated() {
		out := make([]Entry, len(s.ACs))
		for i, ac := range s.ACs {
			out[i] = Entry{AC: ac.N, Member: HomeMember}
		}
		return out
	}
	var out []Entry
	for _, ac := range s.ACs {
		owned := false
		for _, l := range s.Legs {
			for _, n := range l.Scope {
				if n == ac.N {
					out = append(out, Entry{AC: ac.N, Member: l.Name})
					owned = true
					break
				}
			}
		}
		if !owned {
			out = append(out, Entry{AC: ac.N, Member: HomeMember})
		}
	}
	return out
}

// Defaults are the configuration values a spec falls back on.
type Defaults struct {
	Repo, Base string
	// ConfigUnreadable is true when gallivant.yaml could not be read
	// (Config.Unreadable): a spec without its own repo: is then not
	// reported, since the missing defaults.repo is the config's error.
	ConfigUnreadable bool
	// Format is the grammar the file is written in (FormatOf), and
	// SuccessCriteria and Verify are gallivant.yaml's formats: settings
	// for a spec-kit or Kiro spec; Verify holds the commands joined by
	// newlines, so that Defaults stays comparable for parse caches.
	Format          Format
	SuccessCriteria bool
	Verify          string
}

// Spec rule ids.
const (
	RuleSpecFrontmatter = "spec/frontmatter"
	RuleSpecUnknownKey  = "spec/unknown-key"
	RuleSpecRepo        = "spec/repo"
	RuleSpecStatus      = "spec/status"
	RuleSpecHarness     = "spec/harness"
	RuleSpecBudget      = "spec/budget"
	RuleSpecAllowance   = "spec/allowance"
	RuleSpecPaths       = "spec/paths"
	RuleSpecTitle       = "spec/title"
	RuleSpecACs         = "spec/acceptance-criteria"
	RuleSpecDisposition = "spec/disposition"
	RuleSpecVerify      = "spec/verify"
	RuleSpecEngine      = "spec/engine"
	RuleSpecAmendGrant  = "spec/amend-grant"
	RuleSpecLegs        = "spec/legs"
	RuleSpecScope       = "spec/scope"
	RuleSpecStem        = "spec/stem-collision"
	// RuleSpecSource reports a `sources:` path the control repository
	// does not hold (a warning: the contract records it as missing), or
	// one that cannot be read (an error).
	RuleSpecSource = "spec/source"
)

var dispRE = regexp.MustCompile(`^(venue|deviates|deferred|elsewhere):(?:\s+(.*))?$`)

// ParseSpec parses and validates the spec document doc. It always returns a
// spec holding everything that could be read, with every diagnostic found.
func ParseSpec(doc *parse.Document, def Defaults) (*Spec, parse.Diagnostics) {
	p := &specParser{doc: doc, diags: append(parse.Diagnostics(nil), doc.Diagnostics...)}
	s := &Spec{Path: doc.Path, Status: StatusActive, Engine: EngineLoop, Repo: def.Repo, Base: def.Base}
	if doc.Diagnostics.HasErrors() && len(doc.Blocks) == 0 && doc.Front == nil {
		return s, p.diags
	}
	p.frontmatter(s)
	p.body(s)
	p.checkPR(s)
	if s.Repo == "" && !def.ConfigUnreadable {
		p.errorf(parse.Pos{Line: 1, Col: 1}, RuleSpecRepo, "no target repository: set `repo: owner/name` in the frontmatter or defaults.repo in gallivant.yaml")
	}
	return s, p.diags
}

type specParser struct {
	doc   *parse.Document
	diags parse.Diagnostics
}

func (p *specParser) errorf(at parse.Pos, rule, format string, args ...any) {
	p.diags.Errorf(p.doc.Path, at, rule, format, args...)
}

// frontmatter reads the spec's frontmatter: a mapping of the keys in
// frontKeys, each at most once.
func (p *specParser) frontmatter(s *Spec) {
	f := p.doc.Front
	if f == nil || f.Node == nil {
		return
	}
	d := &yamlDecoder{file: p.doc.Path, line0: f.ContentLine - 1, yaml: f.YAML()}
	n := f.Node
	if n.Kind != yaml.MappingNode {
		p.errorf(f.PosOf(n), RuleSpecFrontmatter, "frontmatter must be a mapping of keys to values, got %s", kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		e := frontEntry{p: p, f: f, d: d, k: n.Content[i], v: n.Content[i+1]}
		at := f.PosOf(e.k)
		if seen[e.k.Value] {
			p.errorf(at, RuleSpecFrontmatter, "frontmatter key %s is set twice; keep one", e.k.Value)
			continue
		}
		seen[e.k.Value] = true
		e.vat = f.PosOf(e.v)
		read, ok := frontKeys[e.k.Value]
		if !ok {
			p.errorf(at, RuleSpecUnknownKey, "unknown frontmatter key %q; expected one of repo, base, status, harness, allowance, budget, engine, context, sources, pr", e.k.Value)
			continue
		}
		read(e, s)
	}
}

// frontEntry is one key of a spec's frontmatter and its value, being read.
type frontEntry struct {
	p    *specParser
	f    *parse.Frontmatter
	d    *yamlDecoder
	k, v *yaml.Node
	vat  parse.Pos
}

// str is the entry's value as a non-empty scalar described as what; a
// value of another kind is reported and reads false.
func (e frontEntry) str(what string) (string, bool) {
	if e.v.Kind != yaml.ScalarNode || e.v.Tag == "!!null" || e.v.Value == "" {
		e.p.errorf(e.vat, RuleSpecFrontmatter, "%s must be %s, got %s", e.k.Value, what, kindName(e.v))
		return "", false
	}
	return e.v.Value, true
}

// frontKeys are the keys a spec's frontmatter may set, each with its
// reader.
var frontKeys = map[string]func(e frontEntry, s *Spec){
	"repo": func(e frontEntry, s *Spec) {
		r, ok := e.str("a repository as owner/name")
		switch {
		case !ok:
		case !ValidRepo(r):
			e.p.errorf(e.vat, RuleSpecRepo, "repo must be a repository as owner/name, got %q", r)
		default:
			s.Repo = r
		}
	},
	"base": func(e frontEntry, s *Spec) {
		if b, ok := e.str("a branch name"); ok {
			s.Base = b
		}
	},
	"status": func(e frontEntry, s *Spec) {
		st, ok := e.str("one of draft, active, paused, cancelled")
		if !ok {
			return
		}
		switch Status(st) {
		case StatusDraft, StatusActive, StatusPaused, StatusCancelled:
			s.Status = Status(st)
		default:
			e.p.errorf(e.vat, RuleSpecStatus, "status must be one of draft, active, paused, cancelled, got %q", st)
		}
	},
	"harness": func(e frontEntry, s *Spec) {
		if h, ok := e.str("a harness name"); ok {
			s.Harness = h
			if HarnessName(h) == "" {
				e.p.errorf(e.vat, RuleSpecHarness, "harness must be one of claude-code (or claude), codex, aider, command, got %q", h)
			}
		}
	},
	"budget": func(e frontEntry, s *Spec) {
		b, ok := e.str("an amount like 500000 tokens or $20")
		if !ok {
			return
		}
		switch a, err := ParseAmount(b); {
		case err != nil:
			e.p.errorf(e.vat, RuleSpecBudget, "budget %v", err)
		case a == (Amount{}):
			e.p.errorf(e.vat, RuleSpecBudget, "budget must be more than nothing")
		default:
			s.Budget = &a
		}
	},
	"allowance": func(e frontEntry, s *Spec) {
		a, err := strconv.Atoi(e.v.Value)
		if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!int" || err != nil || a < 1 {
			e.p.errorf(e.vat, RuleSpecAllowance, "allowance must be a whole number of attempts of at least 1, got %s", kindName(e.v))
			return
		}
		s.Allowance = a
	},
	"engine": func(e frontEntry, s *Spec) {
		v, ok := e.str("loop or waves")
		switch {
		case !ok:
		case s.Format == FormatGallivant:
			// gallivant's grammar has its own line for it.
			e.p.errorf(e.vat, RuleSpecEngine, "a gallivant spec names its engine in its **Engine:** line, not in the frontmatter; for example **Engine:** waves")
		case v != EngineLoop && v != EngineWaves:
			e.p.errorf(e.vat, RuleSpecEngine, "engine must be loop or waves, got %q", v)
		default:
			s.Engine = v
		}
	},
	"context": func(e frontEntry, s *Spec) { s.Context, _ = e.paths() },
	"sources": func(e frontEntry, s *Spec) { s.Sources, s.SourcePos = e.paths() },
	"pr":      readPR,
}

// paths is the entry's value as a list of clean relative paths, each with
// the position of its list item; each one that is not is reported
// (spec/paths) and left out.
func (e frontEntry) paths() ([]string, []parse.Pos) {
	var raw []string
	e.d.strings(&raw)(e.v)
	for _, dg := range e.d.diags {
		dg.Rule = RuleSpecPaths
		e.p.diags = append(e.p.diags, dg)
	}
	e.d.diags = nil
	var clean []string
	var at []parse.Pos
	for j, r := range raw {
		c, err := cleanRel(r)
		if err != nil {
			e.p.errorf(e.f.PosOf(e.v.Content[j]), RuleSpecPaths, "%s path %s", e.k.Value, err)
			continue
		}
		clean = append(clean, c)
		at = append(at, e.f.PosOf(e.v.Content[j]))
	}
	return clean, at
}

func (p *specParser) body(s *Spec) {
	root := p.doc.Root()
	h1s := root.Children
	var titleSec *parse.Section
	switch {
	case len(h1s) == 0 || h1s[0].Level() != 1:
		p.errorf(p.firstBodyPos(), RuleSpecTitle, "a spec needs exactly one `# Title` heading; none found")
	default:
		titleSec = h1s[0]
		s.Title = titleSec.Title()
		for _, extra := range h1s[1:] {
			if extra.Level() == 1 {
				p.errorf(extra.Heading.Pos, RuleSpecTitle, "a spec has exactly one `# Title` heading; this is a second one (use `##` for sections)")
			}
		}
	}
	// Sections are looked up under the title; a spec without a title is still
	// read from its top level so that the other rules report too.
	scope := root
	if titleSec != nil {
		scope = titleSec
	}
	p.labels(s, root, scope)
	p.acceptanceCriteria(s, scope)
	p.verify(s, scope)
	p.legs(s, scope)
}

func (p *specParser) firstBodyPos() parse.Pos {
	if len(p.doc.Blocks) > 0 {
		return p.doc.Blocks[0].Start()
	}
	return parse.Pos{Line: 1, Col: 1}
}

// labels reads the **Engine:** and **Amend-grant:** lines from the paragraphs
// before the first `##` section.
func (p *specParser) labels(s *Spec, root, scope *parse.Section) {
	seen := map[string]parse.Pos{}
	blocks := root.Blocks
	if scope != root {
		blocks = append(append([]parse.Block{}, root.Blocks...), scope.Blocks...)
	}
	for _, b := range blocks {
		para, ok := b.(*parse.Paragraph)
		if !ok {
			continue
		}
		for _, l := range para.Lines {
			label, value, vpos, ok := parse.ParseBoldLabel(l)
			if !ok {
				continue
			}
			switch label {
			case "Engine", "Amend-grant":
			default:
				continue
			}
			if prev, dup := seen[label]; dup {
				p.errorf(l.Pos, RuleSpecEngine, "**%s:** is set twice (first at line %d); keep one", label, prev.Line)
				continue
			}
			seen[label] = l.Pos
			if label == "Engine" {
				if value != EngineLoop && value != EngineWaves {
					p.errorf(vpos, RuleSpecEngine, "**Engine:** must be loop or waves, got %q", value)
					continue
				}
				s.Engine = value
				continue
			}
			if value == "" {
				p.errorf(vpos, RuleSpecAmendGrant, "**Amend-grant:** needs a value on the same line (for example `none`)")
				continue
			}
			s.AmendGrant = value
		}
	}
}

func (p *specParser) acceptanceCriteria(s *Spec, scope *parse.Section) {
	found := scope.Find("Acceptance criteria")
	// The grammar requires a level-2 heading. A `### Acceptance criteria`
	// right under the title would otherwise be a child like any other and
	// be read as if it were right; it is refused where it stands instead.
	var secs []*parse.Section
	for _, sec := range found {
		if sec.Level() != 2 {
			p.errorf(sec.Heading.Pos, RuleSpecACs, "%q is a level-%d heading; the acceptance criteria go under a level-2 heading, `## Acceptance criteria`",
				strings.Repeat("#", sec.Level())+" "+sec.Title(), sec.Level())
			continue
		}
		secs = append(secs, sec)
	}
	if len(secs) == 0 && len(found) > 0 {
		return
	}
	if len(secs) == 0 {
		at := p.firstBodyPos()
		if scope.Heading != nil {
			at = scope.Heading.Pos
		}
		p.errorf(at, RuleSpecACs, "a spec needs a `## Acceptance criteria` section holding one list of criteria; none found")
		return
	}
	for _, extra := range secs[1:] {
		p.errorf(extra.Heading.Pos, RuleSpecACs, "a spec has exactly one `## Acceptance criteria` section; this is a second one")
	}
	sec := secs[0]
	var lists []*parse.List
	for _, b := range sec.Blocks {
		switch x := b.(type) {
		case *parse.List:
			lists = append(lists, x)
		case *parse.Paragraph, *parse.CodeBlock, *parse.HTML, *parse.Quote, *parse.Table:
			p.errorf(b.Start(), RuleSpecACs, "`## Acceptance criteria` holds only the list of criteria; move this text into an AC or another section")
		}
	}
	if len(lists) == 0 {
		p.errorf(sec.Heading.Pos, RuleSpecACs, "`## Acceptance criteria` must hold one list of criteria (1., - or - [ ] items); none found")
		return
	}
	for _, extra := range lists[1:] {
		p.errorf(extra.Pos, RuleSpecACs, "`## Acceptance criteria` holds exactly one list, but this one starts a second; to nest items under an AC, indent them to the column of the AC's text (4 spaces under `10.`)")
	}
	for i, it := range lists[0].Items {
		ac := AC{N: i + 1, Pos: it.Pos}
		var details []string
		for _, b := range it.Blocks {
			details = append(details, p.acDetails(b, &ac)...)
		}
		text := normalizeSpace(it.Text())
		if text == "" {
			p.errorf(it.Pos, RuleSpecACs, "AC %d has no text; write the criterion on the item's first line", ac.N)
		}
		if len(details) > 0 {
			text = strings.Join(append([]string{text}, details...), "; ")
		}
		ac.Text = text
		ac.Details = details
		src := make([]string, len(it.Lines))
		for i, l := range it.Lines {
			src[i] = l.Text
		}
		ac.Source = strings.Join(src, "\n")
		s.ACs = append(s.ACs, ac)
	}
}

// acDetails folds a block nested under an AC into the AC: disposition items
// set its disposition, anything else becomes part of its text.
func (p *specParser) acDetails(b parse.Block, ac *AC) []string {
	switch x := b.(type) {
	case *parse.List:
		var out []string
		for _, it := range x.Items {
			t := normalizeSpace(it.Text())
			if kind, text, ok := parseDisposition(t); ok {
				if ac.Disposition.Kind != DispNone {
					p.errorf(it.Pos, RuleSpecDisposition, "AC %d already has the disposition %q (line %d); an AC has at most one", ac.N, ac.Disposition.String(), ac.Disposition.Pos.Line)
					continue
				}
				if kind != DispInScope && text == "" {
					p.errorf(it.TextPos(), RuleSpecDisposition, "disposition %s: needs its reason after the colon (for example `%s: tracked in owner/repo#12`)", kind, kind)
					continue
				}
				if len(it.Blocks) > 0 {
					p.errorf(it.Blocks[0].Start(), RuleSpecDisposition, "a disposition is one line; nothing may be nested under it")
				}
				ac.Disposition = Disposition{Kind: kind, Text: text, Pos: it.TextPos()}
				continue
			}
			if t != "" {
				out = append(out, t)
			}
			for _, nb := range it.Blocks {
				out = append(out, p.acDetails(nb, ac)...)
			}
		}
		return out
	case *parse.Paragraph:
		return []string{normalizeSpace(x.Text())}
	case *parse.CodeBlock:
		var ls []string
		for _, l := range x.Lines {
			ls = append(ls, l.Text)
		}
		return []string{normalizeSpace(strings.Join(ls, " "))}
	case *parse.Quote:
		var out []string
		for _, qb := range x.Blocks {
			out = append(out, p.acDetails(qb, ac)...)
		}
		return out
	case *parse.Table:
		var ls []string
		for _, r := range append([]parse.Row{x.Header}, x.Rows...) {
			ls = append(ls, r.Line.Text)
		}
		return []string{normalizeSpace(strings.Join(ls, " "))}
	}
	return nil
}

func parseDisposition(t string) (DispositionKind, string, bool) {
	if t == string(DispInScope) {
		return DispInScope, "", true
	}
	if m := dispRE.FindStringSubmatch(t); m != nil {
		return DispositionKind(m[1]), strings.TrimSpace(m[2]), true
	}
	return DispNone, "", false
}

// normalizeSpace collapses runs of white space to one space and trims the
// ends. Already-normal text, the common case, is returned without copying.
func normalizeSpace(s string) string {
	normal := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x80 ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			normal = false
			break
		}
	}
	if normal {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func (p *specParser) verify(s *Spec, scope *parse.Section) {
	secs := scope.Find("Verify", "Verification")
	if len(secs) == 0 {
		return
	}
	for _, extra := range secs[1:] {
		p.errorf(extra.Heading.Pos, RuleSpecVerify, "a spec has at most one `## Verify` section; this is a second one")
	}
	sec := secs[0]
	found := false
	for _, b := range sec.Blocks {
		l, ok := b.(*parse.List)
		if !ok {
			continue // prose around the commands is allowed
		}
		if found {
			p.errorf(l.Pos, RuleSpecVerify, "`## Verify` holds one list of commands; join this list to the first")
			continue
		}
		found = true
		for _, it := range l.Items {
			t := strings.TrimSpace(it.Text())
			if len(it.Code) != 1 || t != "`"+it.Code[0].Text+"`" && !isSingleSpan(t, it.Code[0].Text) {
				p.errorf(it.TextPos(), RuleSpecVerify, "each Verify item is one command in a code span, like - `go test ./...`; got %q", t)
				continue
			}
			cmd := strings.TrimSpace(it.Code[0].Text)
			if cmd == "" {
				p.errorf(it.TextPos(), RuleSpecVerify, "Verify command is empty")
				continue
			}
			s.Verify = append(s.Verify, cmd)
		}
	}
	if !found {
		p.errorf(sec.Heading.Pos, RuleSpecVerify, "`## Verify` must hold a list of commands in code spans, like - `go test ./...`; none found")
	}
}

// isSingleSpan reports whether t is exactly one code span with any number of
// backticks as its fence.
func isSingleSpan(t, content string) bool {
	n := 0
	for n < len(t) && t[n] == '`' {
		n++
	}
	if n == 0 || len(t) < 2*n {
		return false
	}
	fence := t[:n]
	return strings.HasSuffix(t, fence) && strings.TrimSpace(t[n:len(t)-n]) == strings.TrimSpace(content)
}

var (
	legNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	scopeTok  = regexp.MustCompile(`^AC ([1-9][0-9]*)$`)
)

func (p *specParser) legs(s *Spec, scope *parse.Section) {
	secs := scope.Find("Legs")
	if len(secs) == 0 {
		return
	}
	for _, extra := range secs[1:] {
		p.errorf(extra.Heading.Pos, RuleSpecLegs, "a spec has at most one `## Legs` section; this is a second one")
	}
	sec := secs[0]
	names := map[string]int{}
	for _, b := range sec.Blocks {
		p.errorf(b.Start(), RuleSpecLegs, "`## Legs` holds only `### Leg: <name>` blocks; move this into one")
	}
	for _, c := range sec.Children {
		h := c.Heading
		name, ok := strings.CutPrefix(h.Text, "Leg:")
		name = strings.TrimSpace(name)
		if !ok || h.Level != 3 {
			p.errorf(h.Pos, RuleSpecLegs, "expected a `### Leg: <name>` heading, got %q", h.Text)
			continue
		}
		if !legNameRE.MatchString(name) || name == HomeMember {
			p.errorf(h.Pos, RuleSpecLegs, "leg name %q must be lowercase letters, digits, '.', '_' or '-' and not %q", name, HomeMember)
			continue
		}
		if prev, dup := names[name]; dup {
			p.errorf(h.Pos, RuleSpecLegs, "leg %q is declared twice (first at line %d)", name, prev)
			continue
		}
		names[name] = h.Pos.Line
		s.Legs = append(s.Legs, p.leg(s, name, c))
	}
	if len(s.Legs) == 0 && len(sec.Children) == 0 {
		p.errorf(sec.Heading.Pos, RuleSpecLegs, "`## Legs` holds no `### Leg: <name>` block; remove the section for a single-repository spec")
	}
}

// leg reads the block of leg name: its `key: value` lines and the
// contract list after `contract:`.
func (p *specParser) leg(s *Spec, name string, sec *parse.Section) Leg {
	r := &legReader{p: p, s: s, leg: Leg{Name: name, Pos: sec.Heading.Pos}}
	for _, sub := range sec.Children {
		p.errorf(sub.Heading.Pos, RuleSpecLegs, "a leg block holds `key: value` lines and its contract list, not headings")
	}
	for _, b := range sec.Blocks {
		switch x := b.(type) {
		case *parse.Paragraph:
			for _, l := range x.Lines {
				r.line(l)
			}
		case *parse.List:
			r.contract(x)
		default:
			p.errorf(b.Start(), RuleSpecLegs, "unexpected block in leg %q; a leg holds `key: value` lines and a contract list", name)
		}
	}
	if r.leg.Repo == "" {
		p.errorf(r.leg.Pos, RuleSpecLegs, "leg %q needs a `repo: owner/name` line", name)
	}
	if r.scopes == 0 {
		p.errorf(r.leg.Pos, RuleSpecScope, "leg %q needs exactly one scope line: `scope: AC 1, AC 3` or `scope: none`", name)
	}
	return r.leg
}

// legReader is one leg block being read: the leg so far, how many scope:
// lines it had, and whether a contract: line came.
type legReader struct {
	p              *specParser
	s              *Spec
	leg            Leg
	scopes         int
	expectContract bool
}

// line reads one `key: value` line of the leg.
func (r *legReader) line(l parse.Line) {
	p, name := r.p, r.leg.Name
	kv, ok := parse.ParseKeyValue(l)
	if !ok {
		p.errorf(l.Pos, RuleSpecLegs, "expected a `key: value` line in leg %q (repo, scope, contract), got %q", name, l.Text)
		return
	}
	switch kv.Key {
	case "repo":
		if !ValidRepo(kv.Value) {
			p.errorf(kv.ValuePos, RuleSpecLegs, "leg %q repo must be owner/name, got %q", name, kv.Value)
		}
		r.leg.Repo = kv.Value
	case "scope":
		r.scopes++
		if r.scopes > 1 {
			p.errorf(kv.KeyPos, RuleSpecScope, "leg %q has a second scope: line; exactly one is allowed", name)
			return
		}
		r.leg.Scope, r.leg.ScopeNone = p.scope(name, kv, len(r.s.ACs))
	case "contract":
		if kv.Value != "" {
			p.errorf(kv.ValuePos, RuleSpecLegs, "contract: takes its items on the following lines, like `- verification: `cmd``")
		}
		r.expectContract = true
	case "design":
		// Kept as prose: ownership is never inferred from it (S-9).
	default:
		p.errorf(kv.KeyPos, RuleSpecLegs, "unknown leg key %q; expected repo, scope, contract or design", kv.Key)
	}
}

// contract reads the leg's contract list, which holds one
// verification item with its command.
func (r *legReader) contract(x *parse.List) {
	p, name := r.p, r.leg.Name
	if !r.expectContract {
		p.errorf(x.Pos, RuleSpecLegs, "a list in a leg block must follow a `contract:` line")
		return
	}
	for _, it := range x.Items {
		t := strings.TrimSpace(it.Text())
		v, ok := strings.CutPrefix(t, "verification:")
		if !ok {
			p.errorf(it.TextPos(), RuleSpecLegs, "contract items are `- verification: `command``; got %q", t)
			continue
		}
		v = strings.TrimSpace(v)
		if len(it.Code) == 1 && isSingleSpan(v, it.Code[0].Text) {
			v = strings.TrimSpace(it.Code[0].Text)
		}
		if v == "" {
			p.errorf(it.TextPos(), RuleSpecLegs, "verification: needs a command")
			continue
		}
		if r.leg.Verification != "" {
			p.errorf(it.TextPos(), RuleSpecLegs, "leg %q has a second verification line; keep one", name)
			continue
		}
		r.leg.Verification = v
	}
}

func (p *specParser) scope(leg string, kv parse.KeyValue, nACs int) ([]int, bool) {
	if kv.Value == "none" {
		return nil, true
	}
	if kv.Value == "" {
		p.errorf(kv.ValuePos, RuleSpecScope, "leg %q scope is empty; write `scope: AC 1, AC 3` or `scope: none`", leg)
		return nil, false
	}
	var out []int
	seen := map[int]bool{}
	at := kv.ValuePos
	rest := kv.Value
	for _, raw := range strings.Split(kv.Value, ",") {
		tok := strings.TrimSpace(raw)
		idx := strings.Index(rest, raw)
		lead := len(raw) - len(strings.TrimLeft(raw, " "))
		p0 := parse.Advance(at, rest[:idx+lead])
		at = parse.Advance(at, rest[:idx+len(raw)])
		rest = rest[idx+len(raw):]
		m := scopeTok.FindStringSubmatch(tok)
		if m == nil {
			p.errorf(p0, RuleSpecScope, "leg %q scope token %q is malformed; expected `AC <n>` tokens separated by commas", leg, tok)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n > nACs {
			p.errorf(p0, RuleSpecScope, "leg %q scope names AC %d but the spec has %d acceptance criteria", leg, n, nACs)
			continue
		}
		if seen[n] {
			p.errorf(p0, RuleSpecScope, "leg %q scope lists AC %d twice", leg, n)
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, false
}
