package ledger

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// ReopenedByAmendment is the evidence of a done row whose AC was reworded.
const ReopenedByAmendment = "reopened by amendment"

// Amend reconciles a ledger to an edited spec after a `resnapshot` request
// (docs/ledger.md "Spec changes"): appended ACs become new rows, a new
// deviates:/deferred:/elsewhere: disposition cuts its row, a disposition
// that no longer cuts reopens the row, and a reworded AC whose row was done
// reopens it with evidence `reopened by amendment`. Attempts, iterations
// and allowance are preserved (L-84).
//
// Rows index ACs by position, which is what receipts attest (S-18). So an
// edit that removes, reorders or inserts ACs before existing ones is
// refused: the remedy is a cutting disposition for an AC that should go, and
// new ACs at the end. For a coordinated spec the legs must stay the same;
// scope changes add rows for new (AC, leg) pairs and cut rows of pairs that
// are gone.
func Amend(l *Ledger, approved, edited *specs.Spec, specCommit string, req Request) (*Ledger, Commit, error) {
	if reason := amendRefusal(l, approved, edited); reason != "" {
		return nil, Commit{}, &Refusal{Request: req.Line, Reason: reason}
	}
	a := &amendment{approved: approved, edited: edited, n: l.Clone(), cuts: []int{}}
	if edited.Coordinated() {
		a.entries()
	} else {
		a.rows()
	}
	n := a.n
	n.removeRequest(req.Line)
	n.clearStop()
	oldFP, newFP := n.Delivery.Contract, edited.Contract().Fingerprint()
	n.delivery().SpecCommit = specCommit
	n.delivery().Contract = newFP
	n.delivery().Labels = n.labelsFor(edited)
	for _, r := range n.Rows {
		if r.Status.Unresolved() && n.Phase() != PhaseImplement {
			n.delivery().Phase = PhaseImplement
			a.changes = append(a.changes, "back to implement")
			break
		}
	}
	subject := Subject{Kind: KindAmend}.String()
	if len(a.changes) == 1 && len(a.cuts) == 1 {
		subject = Subject{Kind: KindCutRow, Row: a.cuts[0]}.String()
	}
	if len(a.changes) == 0 {
		a.changes = append(a.changes, "no row changed")
	}
	diff := specs.DiffContracts(approved.Contract(), edited.Contract())
	return n, Commit{
		Subject:  subject,
		Sentence: fmt.Sprintf("Accepted the edited spec (contract %s -> %s): %s.", oldFP, newFP, strings.Join(a.changes, ", ")),
		Text:     diff.String(),
		Trailers: []Trailer{{TrailerRequest, req.Line}},
	}, nil
}

// amendRefusal says why a resnapshot cannot be applied to l, or "" when it
// can: the ledger is not at a spec-changed stop, or the edit removes,
// reorders or inserts ACs, or changes the legs.
func amendRefusal(l *Ledger, approved, edited *specs.Spec) string {
	if reason, _, stopped := l.Stop(); !stopped || reason != StopSpecChanged {
		return "resnapshot is accepted only at a spec-changed stop"
	}
	if len(edited.ACs) < len(approved.ACs) {
		return fmt.Sprintf("the edited spec has %d acceptance criteria, the approved one %d; instead of deleting an AC give it a deviates:, deferred: or elsewhere: disposition", len(edited.ACs), len(approved.ACs))
	}
	for i, old := range approved.ACs {
		for j, cur := range edited.ACs {
			if j != i && cur.Text == old.Text && edited.ACs[i].Text != old.Text {
				return fmt.Sprintf("AC %d of the approved spec now stands at position %d; ACs may not be reordered or inserted before existing ones (append new ACs at the end)", i+1, j+1)
			}
		}
	}
	if edited.Coordinated() != approved.Coordinated() || !sameLegs(approved, edited) {
		return "the edited spec changes its legs; adding, removing or renaming a leg needs a new spec"
	}
	return ""
}

// amendment is one accepted resnapshot in progress: the ledger being
// amended, and the changes and cut rows the commit will name.
type amendment struct {
	approved, edited *specs.Spec
	n                *Ledger
	changes          []string
	cuts             []int
}

// apply brings one row in line with its AC's edited text and disposition.
func (a *amendment) apply(row *Row, ac int) {
	old, cur := a.approved.AC(ac), a.edited.AC(ac)
	switch {
	case cur.Disposition.Cuts() && row.Status != Cut:
		row.Status, row.Evidence = Cut, cleanEvidence(cur.Disposition.String())
		a.changes = append(a.changes, fmt.Sprintf("row %d cut (%s)", row.N, cur.Disposition.Kind))
		a.cuts = append(a.cuts, row.N)
	case !cur.Disposition.Cuts() && row.Status == Cut:
		row.Status, row.Evidence = Open, ""
		a.changes = append(a.changes, fmt.Sprintf("row %d reopened (disposition removed)", row.N))
	case old != nil && old.Text != cur.Text && row.Status == Done:
		row.Status, row.Evidence = Open, ReopenedByAmendment
		a.changes = append(a.changes, fmt.Sprintf("row %d reopened (AC %d reworded)", row.N, ac))
	}
}

// rows amends a single-repository ledger, whose row n is AC n: existing
// rows follow their ACs and appended ACs become new rows.
func (a *amendment) rows() {
	n := a.n
	for i := range n.Rows {
		a.apply(&n.Rows[i], i+1)
	}
	for _, ac := range a.edited.ACs[len(a.approved.ACs):] {
		n.Rows = append(n.Rows, newRow(len(n.Rows)+1, ac))
		a.changes = append(a.changes, fmt.Sprintf("row %d added for AC %d", len(n.Rows), ac.N))
	}
}

// entries amends a coordinated ledger through its leg mapping: a row whose
// (AC, leg) pair is gone is cut, the others follow their ACs, and new pairs
// become new rows.
func (a *amendment) entries() {
	n := a.n
	want := map[specs.Entry]bool{}
	for _, e := range a.edited.Entries() {
		want[e] = true
	}
	have := map[specs.Entry]int{}
	for _, m := range n.Mapping {
		have[specs.Entry{AC: m.AC, Member: m.Leg}] = m.Row
		r, _ := n.Row(m.Row)
		if !want[specs.Entry{AC: m.AC, Member: m.Leg}] {
			if r.Status != Cut {
				r.Status, r.Evidence = Cut, "removed by amendment: leg "+m.Leg+" no longer owns AC "+fmt.Sprint(m.AC)
				a.changes = append(a.changes, fmt.Sprintf("row %d cut (leg %s no longer owns AC %d)", r.N, m.Leg, m.AC))
				a.cuts = append(a.cuts, r.N)
			}
			continue
		}
		a.apply(r, m.AC)
	}
	for _, e := range a.edited.Entries() {
		if _, ok := have[e]; ok {
			continue
		}
		r := newRow(len(n.Rows)+1, *a.edited.AC(e.AC))
		n.Rows = append(n.Rows, r)
		n.Mapping = append(n.Mapping, Mapping{Row: r.N, AC: e.AC, Leg: e.Member})
		a.changes = append(a.changes, fmt.Sprintf("row %d added for AC %d on %s", r.N, e.AC, e.Member))
	}
}

func newRow(n int, ac specs.AC) Row {
	r := Row{N: n, Status: Open}
	if ac.Disposition.Cuts() {
		r.Status, r.Evidence = Cut, cleanEvidence(ac.Disposition.String())
	}
	return r
}

func sameLegs(a, b *specs.Spec) bool {
	if len(a.Legs) != len(b.Legs) {
		return false
	}
	for i := range a.Legs {
		if a.Legs[i].Name != b.Legs[i].Name || a.Legs[i].Repo != b.Legs[i].Repo {
			return false
		}
	}
	return true
}
