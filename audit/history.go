package audit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// Commit is one commit of the control branch as the walker saw it.
type Commit struct {
	SHA, Author, Message string
	// Ledgers are the commit's changes to ledger files, one per ledger;
	// their Commit, Author, Message and Others are filled in by Add.
	Ledgers []Change
	// Others are the files it changed that are not ledgers.
	Others []string
	// Filtered counts ledger changes the caller left out (verify SPEC...):
	// such a commit is counted, not judged.
	Filtered int
}

// Report is the verdict on a stretch of history.
type Report struct {
	// Commits counts every commit walked; Transitions counts the `loop:`
	// ones by kind; Person counts people's commits that changed a ledger.
	Commits     int            `json:"commits"`
	Transitions map[string]int `json:"transitions"`
	Person      int            `json:"person_ledger_commits"`
	Violations  []Violation    `json:"violations"`
	// Accepted are people's hand edits that a later `loop: accept` of the
	// same ledger made legal: reported, not failing.
	Accepted []Violation `json:"accepted"`
}

// Legal reports whether the history holds no violation.
func (r Report) Legal() bool { return len(r.Violations) == 0 }

// Summary is the one-line summary: commits verified, transitions by kind,
// violations.
func (r Report) Summary() string {
	kinds := make([]string, 0, len(r.Transitions))
	total := 0
	for k, n := range r.Transitions {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		total += n
	}
	sort.Strings(kinds)
	by := ""
	if len(kinds) > 0 {
		by = " (" + strings.Join(kinds, ", ") + ")"
	}
	s := fmt.Sprintf("verified %d commits: %d transitions%s, %d by people, %d violations", r.Commits, total, by, r.Person, len(r.Violations))
	if len(r.Accepted) > 0 {
		s += fmt.Sprintf(", %d accepted hand edits", len(r.Accepted))
	}
	return s
}

// Verifier checks a history commit by commit, oldest first. It keeps only
// what a later commit can change: hand edits a `loop: accept` may accept.
type Verifier struct {
	report Report
	// open holds, per ledger path, indexes into found of hand edits no
	// accept has covered yet.
	open  map[string][]int
	found []finding
	// last is each ledger's newest version and its parse: the next
	// commit's parent, parsed once.
	last map[string]parsed
}

type parsed struct {
	src []byte
	l   *ledger.Ledger
}

type finding struct {
	v        Violation
	accepted bool
}

// NewVerifier returns an empty verifier.
func NewVerifier() *Verifier {
	return &Verifier{report: Report{Transitions: map[string]int{}}, open: map[string][]int{}, last: map[string]parsed{}}
}

// Add checks one commit (oldest first) and returns the results of its
// ledger changes, in the order given.
func (v *Verifier) Add(c Commit) []Result {
	v.report.Commits++
	subject, _, _ := strings.Cut(c.Message, "\n")
	loop := ledger.LoopAuthored(subject)
	if len(c.Ledgers) == 0 {
		// A transition that wrote the bytes already there is an empty
		// commit: it changes no state, so there is nothing to prove.
		if loop && c.Filtered == 0 && len(c.Others) > 0 {
			v.add(Violation{Commit: c.SHA, Author: c.Author, Subject: subject, Section: SectionFiles,
				Message: fmt.Sprintf("%s changes no ledger; every transition changes exactly one", subject)})
		}
		return nil
	}
	out := make([]Result, 0, len(c.Ledgers))
	kinds := map[string]bool{}
	for i := range c.Ledgers {
		ch := ledgerChange(c, i, loop)
		r := v.checkChange(ch)
		out = append(out, r)
		if r.Kind != KindUnknown {
			kinds[r.Kind] = true
		}
		v.record(ch.Path, r)
	}
	for k := range kinds {
		if k == KindPerson {
			v.report.Person++
		} else {
			v.report.Transitions[k]++
		}
	}
	return out
}

// ledgerChange is commit c's change to its i-th ledger, with the commit's
// facts; a loop: commit's other files are every path it changed besides
// that ledger.
func ledgerChange(c Commit, i int, loop bool) Change {
	ch := c.Ledgers[i]
	ch.Commit, ch.Author, ch.Message = c.SHA, c.Author, c.Message
	ch.Others = nil
	if loop {
		ch.Others = append(ch.Others, c.Others...)
		for j, o := range c.Ledgers {
			if j != i {
				ch.Others = append(ch.Others, o.Path)
			}
		}
	}
	return ch
}

// checkChange checks one ledger change, reusing the ledger parsed at the last
// commit that changed its path when the change starts from those bytes.
func (v *Verifier) checkChange(ch Change) Result {
	var known *ledger.Ledger
	if p, ok := v.last[ch.Path]; ok && ch.Before != nil && bytes.Equal(p.src, ch.Before) {
		known = p.l
	}
	r, child := check(ch, known)
	if child != nil {
		v.last[ch.Path] = parsed{ch.After, child}
	} else {
		delete(v.last, ch.Path)
	}
	return r
}

// record keeps the violations of result r for the ledger at path: a
// hand edit's stay open until a clean loop: accept of that ledger takes
// them on.
func (v *Verifier) record(path string, r Result) {
	if r.Kind == KindAccept && len(r.Violations) == 0 {
		for _, k := range v.open[path] {
			v.found[k].accepted = true
		}
		delete(v.open, path)
	}
	for _, x := range r.Violations {
		k := v.add(x)
		if r.HandEdit {
			v.open[path] = append(v.open[path], k)
		}
	}
}

func (v *Verifier) add(x Violation) int {
	v.found = append(v.found, finding{v: x})
	return len(v.found) - 1
}

// Report returns the verdict so far.
func (v *Verifier) Report() Report {
	r := v.report
	r.Transitions = map[string]int{}
	for k, n := range v.report.Transitions {
		r.Transitions[k] = n
	}
	r.Violations, r.Accepted = []Violation{}, []Violation{}
	for _, f := range v.found {
		if f.accepted {
			r.Accepted = append(r.Accepted, f.v)
		} else {
			r.Violations = append(r.Violations, f.v)
		}
	}
	return r
}
