package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Change is one commit's change to one ledger, as plain values.
type Change struct {
	// Commit is the child commit's SHA; Author its author ("Name <email>").
	Commit, Author string
	// Message is the full commit message, subject first.
	Message string
	// Path is the ledger's repository path.
	Path string
	// Before and After are the ledger's bytes at the parent and at the
	// commit; nil when the file does not exist there.
	Before, After []byte
	// Others lists the other files the commit changed, so that a `loop:`
	// commit touching more than its ledger is caught.
	Others []string
	// Spec is the ledger's spec as of the commit, when the caller could
	// read and parse it; it lets `loop: seed ledger` and `loop: amend` be
	// replayed. Approved is the spec at the parent ledger's spec-commit.
	Spec, Approved *specs.Spec
}

// Subject returns the first line of the message.
func (c *Change) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return strings.TrimRight(s, " \t\r")
}

// Trailers returns the message's Gallivant- trailers in order
// (ledger.ParseTrailers).
func (c *Change) Trailers() []ledger.Trailer { return ledger.ParseTrailers(c.Message) }

// trailer returns the first value of key, "" when absent.
func (c *Change) trailer(key string) string { return ledger.TrailerValue(c.Trailers(), key) }

// Section names a part of a ledger a violation is about. The ledger's own
// parts are named as in its file; commit-level findings have their own.
const (
	SectionHeader    = "header" // the lines between the discriminant and the row table
	SectionRows      = "rows"   // the row table
	SectionMapping   = "leg mapping"
	SectionDecisions = "decisions"
	SectionDelivery  = "delivery"
	SectionRequests  = "requests"
	SectionProof     = "proof"
	SectionTasks     = "tasks"
	SectionLedger    = "ledger"   // the file as a whole: created, deleted, unreadable
	SectionSubject   = "subject"  // the commit subject names no transition, or another one
	SectionTrailers  = "trailers" // a trailer the transition writes is missing or different
	SectionFiles     = "files"    // a `loop:` commit changed more than its ledger
)

// Violation is one way a commit's change is not legal.
type Violation struct {
	Commit  string `json:"commit"`
	Author  string `json:"author"`
	Subject string `json:"subject"`
	Path    string `json:"path"`
	Section string `json:"section"`
	Message string `json:"message"`
	// Excerpt is a short diff: `-` lines the legal change would have
	// written (or the parent had), `+` lines the commit wrote instead.
	Excerpt string `json:"excerpt,omitempty"`
}

// Result is the verdict on one Change.
type Result struct {
	// Kind is the transition kind for a `loop:` commit (its rule's name),
	// "person" for anyone else's commit.
	Kind       string
	Violations []Violation
	// HandEdit reports a person's change to reconciler-owned sections,
	// which a later `loop: accept` of the same ledger makes legal.
	HandEdit bool
}

// KindPerson is the Result kind of a commit without a `loop:` subject.
const KindPerson = "person"

// KindUnknown is the Result kind of a `loop:` subject no rule knows.
const KindUnknown = "unknown"

// check is Check with the parent already parsed (nil: parse Before); it
// also returns the parsed child, so that a walk parses each version once.
func check(c Change, known *ledger.Ledger) (Result, *ledger.Ledger) {
	subject := c.Subject()
	v := func(section, format string, args ...any) Violation {
		return Violation{Commit: c.Commit, Author: c.Author, Subject: subject, Path: c.Path, Section: section, Message: fmt.Sprintf(format, args...)}
	}
	parent, child, bad := parseSides(c, known)
	if !ledger.LoopAuthored(subject) {
		res := Result{Kind: KindPerson}
		res.Violations, res.HandEdit = checkPerson(c, parent, child, bad, v)
		return res, child
	}
	// A coordinated entry's per-leg transition is its single-repository
	// transition applied to the leg's view (ledger.LegView) and folded
	// back (ledger.WithLeg): the replay does exactly that.
	var r *rule
	sub, err := ledger.ParseSubject(subject)
	leg, own, ok := legOfSubject(sub, parent, child, c.Spec)
	if err == nil && ok {
		r = match(own)
	}
	if r == nil {
		return Result{Kind: KindUnknown, Violations: []Violation{v(SectionSubject, "unknown transition %q: no rule proves it (docs/verify.md lists the known ones)", subject)}}, child
	}
	res := Result{Kind: r.kind}
	if len(c.Others) > 0 {
		res.Violations = append(res.Violations, v(SectionFiles, "a loop: commit changes only its ledger; this one also changes %s", strings.Join(c.Others, ", ")))
	}
	if x, ok := shapeViolation(r, subject, parent, child, bad, v); ok {
		res.Violations = append(res.Violations, x)
		return res, child
	}
	s := &step{parent: parent, child: child, c: &c, sub: own}
	if leg != "" {
		s.parent, s.child = gatekeep.LegViewFor(parent, c.Spec, leg), gatekeep.LegViewFor(child, c.Spec, leg)
	}
	res.Violations = append(res.Violations, replayViolations(r, s, parent, child, sub, leg, v)...)
	return res, child
}

// shapeViolation is the violation of a loop: commit whose ledger cannot be
// replayed at all: it does not parse (bad), is deleted, is created by
// anything but a seed, or is seeded over an existing one.
func shapeViolation(r *rule, subject string, parent, child *ledger.Ledger, bad string, v func(string, string, ...any) Violation) (Violation, bool) {
	switch {
	case bad != "":
		return v(SectionLedger, "%s", bad), true
	case child == nil:
		return v(SectionLedger, "%s deletes the ledger; no transition does", subject), true
	case parent == nil && !r.creates:
		return v(SectionLedger, "%s creates the ledger; only loop: seed ledger does", subject), true
	case parent != nil && r.creates:
		return v(SectionLedger, "%s over an existing ledger; a seed creates one", ledger.Subject{Kind: ledger.KindSeedLedger}), true
	}
	return Violation{}, false
}

// replayViolations replays rule r on step s and compares each outcome
// with the commit's ledger child (parent before it; s holds a leg's views
// of both when leg is set, and the outcome is folded back before it is
// compared; sub is the commit's subject): nil when one outcome is exactly
// the commit, otherwise the findings of the first outcome with the fewest.
func replayViolations(r *rule, s *step, parent, child *ledger.Ledger, sub ledger.Subject, leg string, v func(string, string, ...any) Violation) []Violation {
	c := s.c
	subject := c.Subject()
	best := []Violation(nil)
	for i, o := range r.replay(s) {
		var vs []Violation
		if o.err == nil && leg != "" {
			o.l = ledger.WithLeg(parent, leg, o.l, gatekeep.DeliveringMembers(parent, c.Spec))
			if o.c != nil && sub.Leg != "" {
				if ws, err := ledger.ParseSubject(o.c.Subject); err == nil {
					ws.Leg = leg
					o.c.Subject = ws.String()
				}
			}
		}
		if o.err != nil {
			vs = append(vs, v(o.section(), "%s cannot be this transition: %v", subject, o.err))
		} else {
			for _, d := range diffLedgers(o.l, child) {
				x := v(d.section, "%s writes something else in %s", subject, d.section)
				x.Excerpt = d.excerpt
				vs = append(vs, x)
			}
			if o.c != nil {
				vs = append(vs, commitFindings(o.c, c, child, v)...)
			}
		}
		if len(vs) == 0 {
			return nil
		}
		if i == 0 || len(vs) < len(best) {
			best = vs
		}
	}
	return best
}

// commitFindings compares the replayed commit with the real one: the exact
// subject and every trailer the transition writes.
func commitFindings(want *ledger.Commit, c *Change, child *ledger.Ledger, v func(string, string, ...any) Violation) []Violation {
	var out []Violation
	if want.Subject != c.Subject() {
		out = append(out, v(SectionSubject, "the change is what %q writes, not %q", want.Subject, c.Subject()))
	}
	got := c.Trailers()
	for _, t := range want.Trailers {
		if !slices.Contains(got, t) {
			x := v(SectionTrailers, "the transition writes the trailer %s: %s", t.Key, t.Value)
			if have := c.trailer(t.Key); have != "" {
				x.Excerpt = fmt.Sprintf("-%s: %s\n+%s: %s", t.Key, t.Value, t.Key, have)
			}
			out = append(out, x)
		}
	}
	if sp := c.trailer(ledger.TrailerSpec); sp != "" && sp != child.Spec {
		out = append(out, v(SectionTrailers, "Gallivant-Spec names %s but the ledger is %s's", sp, child.Spec))
	}
	out = append(out, lessonsFindings(c, v)...)
	return out
}

// parseSides parses both versions; bad says why the change cannot be
// judged as a ledger change (the child does not parse).
func parseSides(c Change, known *ledger.Ledger) (parent, child *ledger.Ledger, bad string) {
	if known != nil {
		parent = known
	} else if c.Before != nil {
		l, ds := ledger.Parse(c.Path, c.Before)
		if !ledger.Fatal(ds) {
			parent = l
		}
	}
	if c.After != nil {
		l, ds := ledger.Parse(c.Path, c.After)
		if ledger.Fatal(ds) {
			msg := "the ledger does not parse"
			if len(ds) > 0 {
				msg += ": " + ds[0].Message
			}
			return parent, nil, msg
		}
		child = l
	}
	if c.Before != nil && parent == nil && child != nil {
		// The parent was already unreadable (reported at the commit that
		// broke it); nothing can be replayed on it.
		return nil, child, "the parent ledger does not parse, so no transition can be replayed on it"
	}
	return parent, child, ""
}

// checkPerson allows a person's commit to change only `## Requests`.
func checkPerson(c Change, parent, child *ledger.Ledger, bad string, v func(string, string, ...any) Violation) ([]Violation, bool) {
	switch {
	case c.Before == nil && c.After == nil:
		return nil, false
	case c.Before == nil:
		return []Violation{v(SectionLedger, "a person created the ledger; only loop: seed ledger creates one")}, true
	case c.After == nil:
		// Deleting a ledger abandons its entry (the spec-gone stop
		// recommends it); a new one starts from loop: seed ledger.
		return nil, false
	case bad != "":
		if parent == nil {
			// Repairing an unreadable ledger is a person's job (the
			// ledger-malformed stop asks for it).
			return nil, false
		}
		return []Violation{v(SectionLedger, "a person's edit leaves the ledger unreadable: %s", strings.TrimPrefix(bad, "the ledger does not parse: "))}, true
	}
	var out []Violation
	for _, d := range HandEdits(parent, child) {
		x := v(d.Section, "a person changed the reconciler-owned %s section; a person's commit may change only ## Requests", d.Section)
		x.Excerpt = d.Excerpt
		out = append(out, x)
	}
	return out, len(out) > 0
}

// sectionDiff is one differing section and its excerpt.
type sectionDiff struct {
	section, excerpt string
}

// diffLedgers compares two ledgers section by section in their canonical
// form, so that layout alone (CRLF, a `- ` before a request) never counts.
func diffLedgers(want, got *ledger.Ledger) []sectionDiff {
	a, b := sections(want), sections(got)
	var out []sectionDiff
	for _, name := range sectionOrder {
		if ex := excerpt(a[name], b[name]); ex != "" {
			out = append(out, sectionDiff{name, ex})
		}
	}
	return out
}

var sectionOrder = []string{SectionHeader, SectionRows, SectionMapping, SectionDecisions, SectionDelivery, SectionProof, SectionTasks, SectionRequests}

func sections(l *ledger.Ledger) map[string][]string {
	m := map[string][]string{SectionHeader: l.HeaderLines()}
	for _, r := range l.Rows {
		m[SectionRows] = append(m[SectionRows], r.Line())
	}
	for _, x := range l.Mapping {
		m[SectionMapping] = append(m[SectionMapping], fmt.Sprintf("| %d | %d | %s |", x.Row, x.AC, x.Leg))
	}
	if l.Mapping != nil && len(l.Mapping) == 0 {
		m[SectionMapping] = []string{"(empty)"}
	}
	for _, d := range l.Decisions {
		m[SectionDecisions] = append(m[SectionDecisions], d.Line)
	}
	if l.Delivery != nil {
		m[SectionDelivery] = l.Delivery.Lines()
	}
	for _, p := range l.Proofs {
		m[SectionProof] = append(m[SectionProof], p.String())
	}
	if l.HasProof && len(l.Proofs) == 0 {
		m[SectionProof] = []string{"(empty)"}
	}
	for _, t := range l.Tasks {
		m[SectionTasks] = append(m[SectionTasks], t.String())
	}
	if l.Tasks != nil && len(l.Tasks) == 0 {
		m[SectionTasks] = []string{"(empty)"}
	}
	m[SectionRequests] = l.Requests
	if !l.HasRequests {
		m[SectionRequests] = []string{"(no ## Requests section)"}
	}
	return m
}

// excerptLines bounds an excerpt: enough to see the edit, never the file.
const excerptLines = 3

// excerpt renders what differs once the common first and last lines are
// set aside: want's lines prefixed `-`, got's prefixed `+`, at most
// excerptLines of each; "" when equal.
func excerpt(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	j := 0
	for j < len(want)-i && j < len(got)-i && want[len(want)-1-j] == got[len(got)-1-j] {
		j++
	}
	var out []string
	for k, ln := range want[i : len(want)-j] {
		if k == excerptLines {
			break
		}
		out = append(out, "-"+ln)
	}
	for k, ln := range got[i : len(got)-j] {
		if k == excerptLines {
			break
		}
		out = append(out, "+"+ln)
	}
	return strings.Join(out, "\n")
}

// SectionChange is one reconciler-owned section that differs, with an
// excerpt (`-` the transition's version, `+` the current one).
type SectionChange struct {
	Section, Excerpt string
}

// HandEdits lists the reconciler-owned sections in which now differs from
// last, the version the newest `loop:` commit wrote (L-121): everything but
// `## Requests`, compared in canonical form so that layout never counts.
func HandEdits(last, now *ledger.Ledger) []SectionChange {
	want := last.Clone()
	want.Requests, want.HasRequests = now.Requests, now.HasRequests
	var out []SectionChange
	for _, d := range diffLedgers(want, now) {
		out = append(out, SectionChange{Section: d.section, Excerpt: d.excerpt})
	}
	return out
}

// RuleHandEdit is the check rule id of a ledger whose reconciler-owned
// sections differ from the newest loop: commit's version (L-121).
const RuleHandEdit = "ledger/hand-edit"

// legOfSubject names the leg of a coordinated entry a transition acted on,
// and the subject as the leg's own transition writes it: a subject that
// names no pull request carries " leg <name>" (reconcile's applyLeg), one
// that names a pull request names a leg's (its `pr <leg>:` key) or a
// leg's lessons proposal (its `learn <leg>:` key). A
// single-repository entry, or a subject of the entry's own (a stop, a
// resume, a row-loop transition), has no leg.
func legOfSubject(sub ledger.Subject, parent, child *ledger.Ledger, sp *specs.Spec) (leg string, own ledger.Subject, ok bool) {
	coordinated := parent != nil && child != nil && sp != nil && len(sp.Members()) >= 2
	if sub.Leg != "" {
		if !coordinated || !slices.Contains(sp.Members(), sub.Leg) {
			return "", sub, false
		}
		own = sub
		own.Leg = ""
		return sub.Leg, own, true
	}
	if !coordinated || sub.PR.IsZero() {
		return "", sub, true
	}
	for _, m := range sp.Members() {
		if legPR(parent, m) == sub.PR || legPR(child, m) == sub.PR {
			return m, sub, true
		}
	}
	// A lessons proposal's subject names the proposal on the control
	// repository: the member whose learn task opened it.
	for _, m := range sp.Members() {
		if legProposal(parent, m) == sub.PR || legProposal(child, m) == sub.PR {
			return m, sub, true
		}
	}
	return "", sub, true
}

// legProposal is the lessons proposal a member's learn: line names; zero
// when none.
func legProposal(l *ledger.Ledger, member string) ledger.PullRef {
	if l.Delivery == nil || l.Delivery.PerMember[member] == nil {
		return ledger.PullRef{}
	}
	return l.Delivery.PerMember[member].Learn.PR
}

// legPR is a member's pull request as a ledger records it; zero when none.
func legPR(l *ledger.Ledger, member string) ledger.PullRef {
	if l.Delivery == nil || l.Delivery.PerMember[member] == nil {
		return ledger.PullRef{}
	}
	return l.Delivery.PerMember[member].PR
}
