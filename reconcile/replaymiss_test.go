package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// A row whose evidence is false on the final head before the pull request
// opens is a miss against that row: `loop: repair row 1` charges it one
// attempt, the row loop dispatches it again with a brief that quotes the
// replayed command and its output, and the honest return opens the pull
// request. The verification repair is not used, and gallivant verify
// replays the history.
func TestFalseEvidenceBeforeOpenRepairsTheRow(t *testing.T) {
	t.Parallel()
	config := strings.Replace(rigConfig, "allowance: 2", "allowance: 4", 1)
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": config})
	r.script = func(target string, n int, _ string) Behavior {
		if target == "1" && n == 1 {
			return Lie
		}
		return Done
	}
	got := subjectsOf(r.pass())
	joined := strings.Join(got, "\n")
	if !strings.Contains(joined, "loop: record home row 1\nloop: verify\nloop: repair row 1\n") ||
		!strings.Contains(joined, "loop: repair row 1\nloop: dispatch row 1\nloop: record home row 1\nloop: verify\nloop: open pr acme/api#1") ||
		strings.Contains(joined, "loop: repair verification") {
		t.Fatalf("got %v, want the false evidence repaired as row 1, then the pull request opened", got)
	}
	var repairBrief string
	for _, run := range r.runs {
		if briefValues(run.Brief)["target"] == "1" {
			repairBrief = run.Brief
		}
	}
	for _, want := range []string{"## The evidence replay that failed", "test -f rows/row-1.txt", "(gallivant replayed the evidence command: exit status 1, assertion)",
		"hint: the return of iteration 1 was admitted, but gallivant replayed its evidence"} {
		if !strings.Contains(repairBrief, want) {
			t.Errorf("the repair dispatch's brief lacks %q:\n%s", want, repairBrief)
		}
	}
	l := r.ledgerOf("specs/feature.md")
	if row, _ := l.Row(1); row.Status != ledger.Done || row.Attempts != 3 {
		t.Errorf("row 1 = %+v, want done after 3 attempts (the replay miss counted)", row)
	}
	verifyControl(t, r)
}

// False evidence every time spends the row's allowance: the entry stops
// allowance on that row, whose evidence names the replayed command, and no
// pull request opens.
func TestFalseEvidenceSpendsTheRowsAllowance(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.script = func(target string, _ int, _ string) Behavior {
		if target == "1" {
			return Lie
		}
		return Done
	}
	got := subjectsOf(r.pass())
	if got[len(got)-1] != "loop: stop allowance" || r.prs() != 0 {
		t.Fatalf("got %v with %d pull requests, want an allowance stop and none", got, r.prs())
	}
	l := r.ledgerOf("specs/feature.md")
	row, _ := l.Row(1)
	if row.Status != ledger.Failed || !strings.Contains(row.Evidence, ledger.ReplayMissPrefix) || !strings.Contains(row.Evidence, "test -f rows/row-1.txt exited 1") {
		t.Errorf("row 1 = %+v, want failed with the replay miss naming the command", row)
	}
	if stop := l.Delivery.Stop.String(); !strings.Contains(stop, "row 1") {
		t.Errorf("stop %q does not name the row", stop)
	}
	verifyControl(t, r)
}

// A coordinated spec replays each leg's rows on that leg's own head before
// its pull request opens: false evidence on the web leg is a miss against
// its row, repaired in the entry's row loop, and both legs end ready with
// a proof of every row on its leg's head. gallivant verify replays the
// legs' records.
func TestLegsReplayEachLegsEvidence(t *testing.T) {
	t.Parallel()
	r := newLegs(t, strings.Replace(legsConfig, "allowance: 2", "allowance: 4", 1), legsSpec)
	r.script = func(target string, n int, _ string) Behavior {
		if target == "2" && n == 1 {
			return Lie
		}
		return Done
	}
	rep := r.pass()
	joined := strings.Join(subjectsOf(rep), "\n")
	for _, want := range []string{"loop: verify leg web\nloop: repair row 2\n", "loop: record web row 2\nloop: verify leg web\nloop: open pr acme/web#1", "loop: ready acme/api#1", "loop: ready acme/web#1"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("subjects lack %q:\n%s\n%s", want, joined, noteOf(rep))
		}
	}
	l := r.ledger(legsLedger)
	heads := map[int]string{1: "acme/api", 3: "acme/api", 2: "acme/web", 4: "acme/web"}
	for row, repo := range heads {
		h := run(t, r.gh.RepoDir(repo), "git", "rev-parse", "gallivant/audit")
		if p, ok := l.ProofOf(row); !ok || p.Head != h || !p.Proved() {
			t.Errorf("proof of row %d = %+v (%v), want a passed run on %s's head %s", row, p, ok, repo, h[:7])
		}
	}
	if row, _ := l.Row(2); row.Attempts != 3 {
		t.Errorf("row 2 = %+v, want 3 attempts (the replay miss counted)", row)
	}
	verifyControl(t, r)
}

// Under review, a leg's replay that fails on its new head is a fix round
// on that leg: a person's push removes what row 2's evidence checks
// on the web leg; both legs leave ready, the web leg's head is replayed,
// and round 1 of acme/web#1 answers the failure, quoted in its brief.
func TestLegsFalseEvidenceUnderReviewIsALegRound(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	if got := strings.Join(subjectsOf(r.pass()), "\n"); !strings.Contains(got, "loop: ready acme/web#1") {
		t.Fatalf("got %s, want both legs ready", got)
	}
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", "--branch", "gallivant/audit", r.gh.RepoDir("acme/web"), "w")
	w := dir + "/w"
	run(t, w, "git", "rm", "--quiet", "rows/row-2.txt")
	run(t, w, "git", "commit", "--quiet", "-m", "A person's change")
	run(t, w, "git", "push", "--quiet", "origin", "gallivant/audit")
	runs := len(r.runs)
	got := strings.Join(subjectsOf(r.pass()), "\n")
	if !strings.Contains(got, "loop: verify leg web\nloop: round 1 acme/web#1") || strings.Contains(got, "round 1 acme/api#1") {
		t.Fatalf("got %s, want the web leg's failed replay answered by its round 1", got)
	}
	if len(r.runs) <= runs || r.runs[runs].Repo != "acme/web" || !strings.Contains(r.runs[runs].Brief, "gallivant's evidence replay failed: of row 2 on ") {
		t.Errorf("the web leg's round brief does not carry the replay's finding: %+v", r.runs[runs:])
	}
	if labels := r.on("acme/api", "alice").labels(1); len(labels) != 0 {
		t.Errorf("api still labelled %v while web is back in review", labels)
	}
	verifyControl(t, r)
}
