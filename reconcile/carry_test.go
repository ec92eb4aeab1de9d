package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// Carried proof: a review round that changes only row 2's file re-runs
// row 2's evidence only; row 1's proof is carried from the opened head,
// the loop: verify commit and the receipt say so, and the pull request is
// labelled ready on it.
func TestReviewRoundReplaysOnlyTheChangedRow(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	if got := subjectsOf(r.pass()); got[len(got)-1] != "loop: open pr acme/api#1" {
		t.Fatalf("got %v, want the pull request opened", got)
	}
	opened := r.head(work)
	h := r.personPush(work, "rows/row-2.txt")
	r.greenAndApproved(h)
	var all []string
	for i := 0; i < 4 && !strings.Contains(strings.Join(all, "\n"), "loop: ready"); i++ {
		all = append(all, subjectsOf(r.pass())...)
	}
	if joined := strings.Join(all, "\n"); !strings.Contains(joined, "loop: verify") || !strings.Contains(joined, "loop: ready") {
		t.Fatalf("got %v, want a replay on the new head, then ready", all)
	}
	l := r.ledgerOf("specs/feature.md")
	want := map[int]ledger.Proof{
		1: {Row: 1, Head: h, CarriedFrom: opened, Tests: "assertion", Command: "test -f rows/row-1.txt"},
		2: {Row: 2, Head: h, Tests: "assertion", Command: "test -f rows/row-2.txt"},
	}
	for n, w := range want {
		p, ok := l.ProofOf(n)
		if !ok || p.Head != w.Head || p.CarriedFrom != w.CarriedFrom || p.Exit != 0 || p.Tests != w.Tests || p.Command != w.Command {
			t.Errorf("proof of row %d = %+v (%v), want %+v", n, p, ok, w)
		}
	}
	// The one loop: verify commit on h ran row 2's command only.
	log := run(t, r.control, "git", "log", "--format=%B%x00", "main")
	var verify string
	for _, m := range strings.Split(log, "\x00") {
		if strings.HasPrefix(strings.TrimSpace(m), "loop: verify") && strings.Contains(m, "Gallivant-Head: "+h) {
			if verify != "" {
				t.Fatalf("two loop: verify commits on %s:\n%s\n%s", h[:7], verify, m)
			}
			verify = m
		}
	}
	for _, s := range []string{"1 evidence run of the done rows replayed", "1 proof carried",
		"Gallivant-Proof: row 1 | " + h + " carried from " + opened + " |", "Gallivant-Proof: row 2 | " + h + " | exit 0"} {
		if !strings.Contains(verify, s) {
			t.Errorf("the loop: verify commit lacks %q:\n%s", s, verify)
		}
	}
	body := r.as("alice").pr(1).GetBody()
	if s := "| proof | passed | row 1: `test -f rows/row-1.txt` on " + h[:7] + " (carried from " + opened[:7] + "), exit 0, assertion |"; !strings.Contains(body, s) {
		t.Errorf("the receipt lacks %q:\n%s", s, body)
	}
	if got := r.as("alice").labels(1); len(got) != 1 {
		t.Errorf("labels %v, want ready", got)
	}
}
