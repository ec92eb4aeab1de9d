package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/scripted"
	"github.com/gallivant/gallivant/internal/store"
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

// False evidence on a new head under review: a person's push
// removes what row 1's evidence checks. The replay on that head fails and
// is answered like red CI on it: one fix round whose brief quotes the
// replayed command and its output; the round's push is replayed, passes
// and is labelled ready. gallivant verify replays the history.
func TestFalseEvidenceOnNewHeadIsAFixRound(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	rows := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if briefValues(task.Brief)["target"] != "round" {
			return rows(ctx, dir, task)
		}
		if err := os.WriteFile(filepath.Join(dir, "rows", "row-1.txt"), []byte("restored\n"), 0o644); err != nil {
			return err
		}
		g := scripted.Git{Dir: dir, Env: []string{"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com"}}
		if _, err := g.Out(ctx, "add", "-A"); err != nil {
			return err
		}
		_, err := g.Out(ctx, "commit", "--quiet", "-m", "Restore rows/row-1.txt")
		return err
	}
	if got := subjectsOf(r.pass()); got[len(got)-1] != "loop: open pr acme/api#1" {
		t.Fatalf("got %v, want the pull request opened", got)
	}
	h := r.personRemove(work, "rows/row-1.txt")
	r.greenAndApproved(h)
	got := strings.Join(subjectsOf(r.pass()), "\n")
	if !strings.Contains(got, "loop: follow acme/api#1\nloop: verify\nloop: round 1 acme/api#1\nloop: pushed round 1 acme/api#1") || strings.Contains(got, "loop: ready") {
		t.Fatalf("got %v, want the failed replay on the new head answered by round 1", got)
	}
	brief := r.runs[len(r.runs)-1].Brief
	for _, want := range []string{"gallivant's evidence replay failed: of row 1 on " + h[:7] + ": `test -f rows/row-1.txt` exited 1 (assertion)",
		"(gallivant replayed the evidence command: exit status 1, assertion)"} {
		if !strings.Contains(brief, want) {
			t.Errorf("the round's brief lacks %q:\n%s", want, brief)
		}
	}
	fixed := r.head(work)
	// gallivant why judges the round's head by the gate's rule: not proved.
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if why, want := strings.Join(snap.Explain("specs/feature.md"), "\n"), "completion gate: evidence-unproven - rows 1, 2 are not proved on "+fixed[:7]; !strings.Contains(why, want) {
		t.Errorf("gallivant why lacks %q:\n%s", want, why)
	}
	r.greenAndApproved(fixed)
	var all []string
	for i := 0; i < 3; i++ {
		all = append(all, subjectsOf(r.pass())...)
	}
	if joined := strings.Join(all, "\n"); !strings.Contains(joined, "loop: verify") || !strings.Contains(joined, "loop: ready acme/api#1") || strings.Contains(joined, "loop: stop") {
		t.Fatalf("got %v, want the round's head replayed and labelled ready", all)
	}
	if p, ok := r.ledgerOf("specs/feature.md").ProofOf(1); !ok || p.Head != fixed || !p.Proved() {
		t.Errorf("proof of row 1 = %+v, want a passed run on %s", p, fixed[:7])
	}
	verifyControl(t, r)
}

// A fix round for a failed replay that pushes nothing leaves the replay
// failing on the head the round was dispatched for: the entry stops
// verify-failed naming the row and the command, and the pull request is
// not labelled ready.
func TestFalseEvidenceOnNewHeadStopsAfterItsRound(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	r.script = func(target string, _ int, _ string) Behavior {
		if target == "round" {
			return NoCommit
		}
		return Done
	}
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
	if !strings.Contains(joined, "loop: round 1 acme/api#1") || !strings.Contains(joined, "loop: stop verify-failed") || strings.Contains(joined, "loop: ready") {
		t.Fatalf("got %v, want one round for the failed replay, then a verify-failed stop, never ready", all)
	}
	l := r.ledgerOf("specs/feature.md")
	stop := l.Delivery.Stop.String()
	for _, want := range []string{"test -f rows/row-1.txt", "row 1", "after a fix round for it"} {
		if !strings.Contains(stop, want) {
			t.Errorf("stop %q lacks %q", stop, want)
		}
	}
	if p, ok := l.ProofOf(1); !ok || p.Head != h || p.Exit == 0 {
		t.Errorf("proof of row 1 = %+v, want the failed run on %s", p, h[:7])
	}
	if labels := r.as("alice").labels(1); len(labels) != 0 {
		t.Errorf("labels %v, want none", labels)
	}
	verifyControl(t, r)
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
