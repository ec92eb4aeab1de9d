package reconcile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/gatekeep"
)

// Evidence replay: before the pull request opens, gallivant runs each done
// row's evidence command in the verify checkout and records the run in
// ## Proof; the receipt shows it.
func TestEvidenceReplayedBeforeOpen(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	got := strings.Join(subjectsOf(r.pass()), "\n")
	if !strings.Contains(got, "loop: record home row 2\nloop: verify\nloop: open pr acme/api#1") {
		t.Fatalf("got %v, want the evidence replayed before the pull request opened", got)
	}
	l := r.ledgerOf("specs/feature.md")
	head := r.head(work)
	for _, n := range []int{1, 2} {
		p, ok := l.ProofOf(n)
		if !ok || p.Head != head || p.Exit != 0 || p.Tests != "assertion" || p.Command != "test -f rows/row-"+string(rune('0'+n))+".txt" {
			t.Errorf("proof of row %d = %+v (%v), want test -f rows/row-%d.txt passed on %s", n, p, ok, n, head[:7])
		}
	}
	if rows := gatekeep.Unproven(l, head); len(rows) != 0 {
		t.Errorf("rows %v unproven on the opened head", rows)
	}
	body := r.as("alice").pr(1).GetBody()
	if want := "| proof | passed | row 1: `test -f rows/row-1.txt` on " + head[:7] + ", exit 0, assertion |"; !strings.Contains(body, want) {
		t.Errorf("the receipt lacks %q:\n%s", want, body)
	}
}

// False evidence on a new head under review: a person's push removes what
// row 1's evidence checks. The replay on that head fails, the entry stops
// verify-failed naming the row and the command, and the pull request is
// not labelled ready.
func TestFalseEvidenceOnNewHeadStops(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	if got := subjectsOf(r.pass()); got[len(got)-1] != "loop: open pr acme/api#1" {
		t.Fatalf("got %v, want the pull request opened", got)
	}
	h := r.personRemove(work, "rows/row-1.txt")
	r.greenAndApproved(h)
	var all []string
	for i := 0; i < 4; i++ {
		all = append(all, subjectsOf(r.pass())...)
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "loop: verify") || !strings.Contains(joined, "loop: stop verify-failed") || strings.Contains(joined, "loop: ready") {
		t.Fatalf("got %v, want a replay on the new head and a verify-failed stop, never ready", all)
	}
	l := r.ledgerOf("specs/feature.md")
	stop := l.Delivery.Stop.String()
	if !strings.Contains(stop, "test -f rows/row-1.txt") || !strings.Contains(stop, "row 1") {
		t.Errorf("stop %q does not name the row and the command", stop)
	}
	if p, ok := l.ProofOf(1); !ok || p.Head != h || p.Exit == 0 {
		t.Errorf("proof of row 1 = %+v, want the failed run on %s", p, h[:7])
	}
	if labels := r.as("alice").labels(1); len(labels) != 0 {
		t.Errorf("labels %v, want none", labels)
	}
}

// personRemove deletes a file on the work branch as a person and pushes.
func (r *rig) personRemove(branch, file string) string {
	r.t.Helper()
	dir := r.t.TempDir()
	run(r.t, dir, "git", "clone", "--quiet", "--branch", branch, r.gh.RepoDir("acme/api"), "w")
	w := filepath.Join(dir, "w")
	if err := os.Remove(filepath.Join(w, file)); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "tweak.txt"), []byte("a person's change\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	run(r.t, w, "git", "add", "-A")
	run(r.t, w, "git", "commit", "--quiet", "-m", "A person's change")
	run(r.t, w, "git", "push", "--quiet", "origin", branch)
	return run(r.t, w, "git", "rev-parse", "HEAD")
}
