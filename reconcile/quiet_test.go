package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// daemonPasses runs passes of one reconciler, as a daemon does: its
// adapter keeps the quiet marks between them.
func daemonPasses(t *testing.T, rec *Reconciler) func() *Report {
	return func() *Report {
		t.Helper()
		rep, err := rec.Pass(context.Background())
		if err != nil {
			t.Fatalf("pass: %v", err)
		}
		return rep
	}
}

// quietDelivery is a pull request in review with CI green, waiting for
// alice, after the full read that leaves its quiet mark. pass runs passes
// of one reconciler, as a daemon does: its adapter keeps the marks.
func quietDelivery(t *testing.T) (r *rig, pass func() *Report) {
	t.Helper()
	r = newDelivery(t, "")
	rec := r.reconciler()
	pass = daemonPasses(t, rec)
	pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	// Passes run minutes apart; a read in the same second as the last
	// change leaves no mark.
	r.clock.Advance(time.Minute)
	rep := pass()
	wantSubjects(t, rep)
	if strings.Contains(noteOf(rep), "unchanged since") {
		t.Fatalf("the pass that reads the pull request in full reported it unchanged: %s", noteOf(rep))
	}
	return r, pass
}

// detailReads returns the requests of the log that read one pull
// request's details rather than its repository's list.
func detailReads(r *rig) []string {
	var out []string
	for _, q := range r.gh.Requests() {
		if strings.Contains(q.Path, "/pulls/1") || strings.Contains(q.Path, "/issues/1") || strings.Contains(q.Path, "/commits/") {
			out = append(out, q.Method+" "+q.Path)
		}
	}
	return out
}

// Issue 15: a pull request idle for two passes costs its repository's
// list and base head per pass, all answered 304, and no detail read.
func TestQuietReviewIdleSkipsDetailReads(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	for i := range 2 {
		r.gh.ResetLog()
		rep := pass()
		wantSubjects(t, rep)
		if !strings.Contains(noteOf(rep), "acme/api#1 waits for an approval by @alice") || !strings.Contains(noteOf(rep), "(unchanged since ") {
			t.Errorf("idle pass %d: the wait is %q", i+1, noteOf(rep))
		}
		if d, _ := firstDecision(rep, "specs/feature.md"); d.Look != gatekeep.LookQuiet || d.Step != gatekeep.StepWait {
			t.Errorf("idle pass %d: decision %+v; want the mark's wait, quiet", i+1, d)
		}
		if d := detailReads(r); len(d) != 0 {
			t.Errorf("idle pass %d read the pull request's details: %q", i+1, d)
		}
		c := r.gh.Counts()
		if c.Total > 2 || c.NotModified != c.Total {
			var got []string
			for _, q := range r.gh.Requests() {
				got = append(got, q.Method+" "+q.Path+" "+q.Query)
			}
			t.Errorf("idle pass %d made %d requests, %d answered 304; want at most 2, all 304: %q", i+1, c.Total, c.NotModified, got)
		}
	}
}

// Anything that changes the pull request on GitHub moves its updated_at or
// head: the next pass reads it in full and acts on it.
func TestQuietReviewChangedIsReadInFull(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(r *rig)
		want   []string
	}{
		{"an approval", func(r *rig) { r.as("alice").review(1, "APPROVE", "", r.head(work)) },
			[]string{"loop: ready acme/api#1", "loop: announced ready acme/api#1"}},
		{"a comment", func(r *rig) { r.as("bob").comment(1, "please rename the helper") },
			[]string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1"}},
		{"a new head", func(r *rig) { r.personPush(work, "tweak.txt") }, nil},
		{"a label", func(r *rig) {
			if _, _, err := r.gh.Client("bob").Issues.AddLabelsToIssue(context.Background(), "acme", "api", 1, []string{"needs-thought"}); err != nil {
				t.Fatal(err)
			}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, pass := quietDelivery(t)
			r.gh.ResetLog()
			if rep := pass(); !strings.Contains(noteOf(rep), "unchanged since") {
				t.Fatalf("no quiet mark before the change: %s", noteOf(rep))
			}
			tc.change(r)
			r.clock.Advance(time.Minute)
			r.gh.ResetLog()
			rep := pass()
			if tc.want != nil {
				wantSubjects(t, rep, tc.want...)
			}
			if strings.Contains(noteOf(rep), "unchanged since") {
				t.Errorf("a changed pull request was reported unchanged: %s", noteOf(rep))
			}
			if len(detailReads(r)) == 0 {
				t.Errorf("a changed pull request was not read in full")
			}
		})
	}
	t.Run("a new head is followed", func(t *testing.T) {
		t.Parallel()
		r, pass := quietDelivery(t)
		pass()
		h2 := r.personPush(work, "tweak.txt")
		r.clock.Advance(time.Minute)
		pass()
		if got := r.ledger(ledgerPath).Delivery.Head; got != h2 {
			t.Errorf("head %s after a person's push, want %s", got, h2)
		}
	})
}

// the reviewer's nudge and stall are due by the clock alone; a quiet
// mark never outlives them. The reviewer was asked at the first pass (t0)
// and the mark is taken at t0+1m, so the nudge is due at t0+60m.
func TestQuietReviewClockRulesStillFire(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	unchanged := func(when string, want bool) {
		t.Helper()
		rep := pass()
		wantSubjects(t, rep)
		if got := strings.Contains(noteOf(rep), "unchanged since"); got != want {
			t.Fatalf("%s: skipped %v, want %v: %s", when, got, want, noteOf(rep))
		}
	}
	unchanged("t0+1m", true)
	// A mark lives quietRefresh at most: the pass after that reads in
	// full, and marks again.
	r.clock.Advance(34 * time.Minute)
	unchanged("t0+35m", false)
	unchanged("t0+35m again", true)
	r.clock.Advance(26 * time.Minute)
	wantSubjects(t, pass(), "loop: nudge acme/api#1")
	// The nudge moved updated_at; the pass after it marks again.
	r.clock.Advance(time.Minute)
	unchanged("after the nudge", false)
	r.clock.Advance(10 * time.Minute)
	unchanged("after the nudge, again", true)
	r.clock.Advance(47 * time.Hour)
	wantSubjects(t, pass(), "loop: stop reviewer-silent")
}

// The base moving (which moves neither the pull request's updated_at nor
// its head) is a full read.
func TestQuietReviewBaseMovedIsReadInFull(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	pass()
	if err := r.gh.PutFile("acme/api", "main", "other.txt", "someone else's change\n"); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	rep := pass()
	if strings.Contains(noteOf(rep), "unchanged since") || len(detailReads(r)) == 0 {
		t.Errorf("a moved base did not make a full read: %v, %s", subjectsOf(rep), noteOf(rep))
	}
}

// Quiet marks persist with the rest of the adapter's state.
func TestQuietMarksSurviveTheProcess(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	dir := filepath.Join(t.TempDir(), "state")
	open := func() *githubapi.Client {
		g, err := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Logger: quiet, StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := open()
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	m := quietMark{UpdatedAt: at, Head: "abc", Base: "main", BaseHead: "def", Sum: "s", Seen: at.Add(time.Minute), Until: at.Add(time.Hour), Why: "waits"}
	writeMark(g, "acme/api", 7, &m)
	if err := g.SaveState(); err != nil {
		t.Fatal(err)
	}
	got, ok := readMark(open(), "acme/api", 7)
	if !ok {
		t.Fatal("the mark did not survive the process")
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("mark (-want +got):\n%s", diff)
	}
}

// Issue 15: one-shot processes (the CI mode) that keep $GALLIVANT_CACHE
// skip an idle pull request's detail reads too, and spend no rate limit.
func TestQuietReviewAcrossProcesses(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	dir := filepath.Join(t.TempDir(), "github")
	process := func() *Report {
		t.Helper()
		g, err := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Logger: quiet, Timeout: 5 * time.Second, StateDir: dir,
			Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.reconciler(func(o *Options) { o.GitHub = g }).Pass(context.Background())
		if err != nil {
			t.Fatalf("pass: %v", err)
		}
		return rep
	}
	process()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.clock.Advance(time.Minute)
	if rep := process(); strings.Contains(noteOf(rep), "unchanged since") {
		t.Fatalf("the full read reported the pull request unchanged: %s", noteOf(rep))
	}
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	rep := process()
	wantSubjects(t, rep)
	if !strings.Contains(noteOf(rep), "unchanged since") {
		t.Errorf("a new process read the idle pull request in full: %s", noteOf(rep))
	}
	if d := detailReads(r); len(d) != 0 {
		t.Errorf("a new process read the pull request's details: %q", d)
	}
	if c := r.gh.Counts(); c.Counted != 0 {
		t.Errorf("a new process spent %d rate-limited requests of %d on an idle pull request", c.Counted, c.Total)
	}
}

// A webhook about a repository (a check run, a status: neither moves a pull
// request's updated_at) drops its quiet marks, so the pass the webhook
// triggers reads the pull request in full instead of waiting out the mark.
func TestQuietMarksForgottenOnChanged(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	rec := r.reconciler()
	pass := daemonPasses(t, rec)
	pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.clock.Advance(time.Minute)
	pass()
	r.clock.Advance(time.Minute)
	// CI re-runs on the same head and fails: nothing GitHub lists moves.
	r.as("ci-bot").status(r.head(work), "ci", "failure")
	r.gh.ResetLog()
	if rep := pass(); !strings.Contains(noteOf(rep), "unchanged since") || len(detailReads(r)) != 0 {
		t.Fatalf("without a webhook the mark should hold: %q, reads %q", noteOf(rep), detailReads(r))
	}
	rec.Changed("ACME/api")
	r.gh.ResetLog()
	rep := pass()
	if strings.Contains(noteOf(rep), "unchanged since") || len(detailReads(r)) == 0 {
		t.Errorf("after Changed the pull request was not read in full: %q, reads %q", noteOf(rep), detailReads(r))
	}
}

// prDetailReads returns the requests that read the pull request itself
// (its details, files, reviews, labels), not its head's checks nor its two
// comment lists, which a mark with checks reads again every pass: an
// edited comment moves no pull request's updated_at.
func prDetailReads(r *rig) []string {
	var out []string
	for _, q := range r.gh.Requests() {
		if strings.HasSuffix(q.Path, "/issues/1/comments") || strings.HasSuffix(q.Path, "/pulls/1/comments") {
			continue
		}
		if strings.Contains(q.Path, "/pulls/1") || strings.Contains(q.Path, "/issues/1") {
			out = append(out, q.Method+" "+q.Path)
		}
	}
	return out
}

// wantIdleCost checks the cost of an idle pass over pull requests in
// repos repositories whose marks watch their checks (issue 33): per
// repository its pull-request list, answered 304, and one GraphQL query
// (its checks, comments, base heads and rules, and the classic protection
// of bases the token read with a 200 through REST, rollup.go), which is
// never 304 and is paid from GraphQL's budget, not the REST one; nothing
// else (an unprotected base's 404 is remembered and costs nothing). The
// pass's report counts the same.
func wantIdleCost(t *testing.T, r *rig, rep *Report, repos int) {
	t.Helper()
	c := r.gh.Counts()
	if c.Total != 2*repos || c.GraphQL != repos || c.NotModified != repos {
		var got []string
		for _, q := range r.gh.Requests() {
			got = append(got, q.Method+" "+q.Path)
		}
		t.Errorf("idle pass: %d requests, %d answered 304, %d GraphQL; want %d, %d and %d: %q", c.Total, c.NotModified, c.GraphQL, 2*repos, repos, repos, got)
	}
	if s := rep.Requests; s == nil || s.Requests != c.Total || s.GraphQL != c.GraphQL || s.NotModified != c.NotModified || s.RateLimited != 0 {
		t.Errorf("the pass reported %+v; the stand-in counted %+v", s, c)
	}
}

// Issue 15 and done means done: an idle ready pull request is not read in
// detail, but its head's checks are, every pass (issue 33: in its
// repository's one GraphQL query, rollup.go), so that a check turning red
// on the same head, which moves neither updated_at nor the head, takes
// the ready label off at the next pass even with no webhook.
func TestQuietReadyReadsOnlyItsChecks(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	r.as("alice").review(1, "APPROVE", "", r.head(work))
	r.clock.Advance(time.Minute)
	wantSubjects(t, pass(), "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	r.clock.Advance(time.Minute)
	if rep := pass(); strings.Contains(noteOf(rep), "unchanged since") {
		t.Fatalf("the first pass after ready should read in full: %s", noteOf(rep))
	}
	for i := range 2 {
		r.clock.Advance(time.Minute)
		r.gh.ResetLog()
		rep := pass()
		wantSubjects(t, rep)
		if !strings.Contains(noteOf(rep), "is ready; waits for a person to merge it (unchanged since ") {
			t.Errorf("idle ready pass %d: the wait is %q", i+1, noteOf(rep))
		}
		if d, _ := firstDecision(rep, "specs/feature.md"); d.Look != gatekeep.LookQuiet || d.Step != gatekeep.StepHoldReady {
			t.Errorf("idle ready pass %d: decision %+v; want the mark's ready hold, quiet", i+1, d)
		}
		if d := prDetailReads(r); len(d) != 0 {
			t.Errorf("idle ready pass %d read the pull request's details: %q", i+1, d)
		}
		wantIdleCost(t, r, rep, 1)
	}
	r.as("ci-bot").status(r.head(work), "ci", "failure")
	r.clock.Advance(time.Minute)
	// The label comes off and the failure is answered by a round.
	wantSubjects(t, pass(), "loop: unready acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	if got := r.as("alice").labels(1); len(got) != 0 {
		t.Errorf("labels after a check turned red on the same head: %v", got)
	}
}

// Issue 15: a pull request waiting for CI gets a mark that re-reads only
// its head's checks, since they are what it waits for; checks.wait still
// stops it with nothing new on GitHub, and a check that reports is seen at
// the next pass.
func TestQuietWaitForCIReadsOnlyItsChecks(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*rig, func() *Report) {
		r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""),
			"gallivant.yaml": strings.Replace(rigConfig, "  none: [acme/api]\n", "  wait: 45m\n", 1)})
		rec := r.reconciler()
		pass := daemonPasses(t, rec)
		if rep := pass(); subjectsOf(rep)[len(subjectsOf(rep))-1] != "loop: open pr acme/api#1" {
			t.Fatalf("got %v; notes %+v", subjectsOf(rep), rep.Notes)
		}
		r.clock.Advance(time.Minute)
		if rep := pass(); strings.Contains(noteOf(rep), "unchanged since") {
			t.Fatalf("the full read reported unchanged: %s", noteOf(rep))
		}
		return r, pass
	}
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		r, pass := setup(t)
		r.clock.Advance(time.Minute)
		r.gh.ResetLog()
		rep := pass()
		if !strings.Contains(noteOf(rep), "waits for a first check run or status") || !strings.Contains(noteOf(rep), "(unchanged since ") {
			t.Errorf("idle pass: the wait is %q", noteOf(rep))
		}
		if d := prDetailReads(r); len(d) != 0 {
			t.Errorf("idle pass read the pull request's details: %q", d)
		}
		wantIdleCost(t, r, rep, 1)
	})
	t.Run("checks.wait still fires", func(t *testing.T) {
		t.Parallel()
		r, pass := setup(t)
		r.clock.Advance(50 * time.Minute)
		wantSubjects(t, pass(), "loop: stop checks-silent")
	})
	t.Run("a check that reports is seen", func(t *testing.T) {
		t.Parallel()
		r, pass := setup(t)
		r.as("ci-bot").status(r.head(work), "ci", "success")
		r.clock.Advance(time.Minute)
		rep := pass()
		if strings.Contains(noteOf(rep), "unchanged since") || strings.Contains(noteOf(rep), "waits for a first check run") {
			t.Errorf("a reported check was not seen: %s", noteOf(rep))
		}
	})
}

// A ready pull request whose mark holds must still lose its label when a
// person with a say edits an earlier comment: the edit moves the comment's
// updated_at (new feedback for gatekeep.Feedback, which the full read
// answers with unready) but, in the sandbox as written
// (internal/ghstandin/handlers.go updateIssueComment), not the pull
// request's updated_at, its head, its base, the ledger or the checks.
func TestQuietReadyEditedCommentUnreadies(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	bob := r.as("bob")
	c, _, err := bob.c.Issues.CreateComment(context.Background(), "acme", "api", 1, &github.IssueComment{Body: github.String("please rename the helper")})
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Minute)
	wantSubjects(t, pass(), "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	r.clock.Advance(time.Minute)
	r.greenAndApproved(r.head(work))
	r.clock.Advance(time.Minute)
	// The round's head is proved (evidence replay) before the label.
	wantSubjects(t, pass(), "loop: verify", "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	r.clock.Advance(time.Minute)
	pass() // the full read that leaves the ready mark
	r.clock.Advance(time.Minute)
	if rep := pass(); !strings.Contains(noteOf(rep), "(unchanged since ") {
		t.Fatalf("want the ready mark to hold before the edit: %s", noteOf(rep))
	}
	r.clock.Advance(time.Minute)
	if _, _, err := bob.c.Issues.EditComment(context.Background(), "acme", "api", c.GetID(),
		&github.IssueComment{Body: github.String("please rename the helper, and drop the flag")}); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Minute)
	rep := pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: unready acme/api#1" {
		// What a full read (a fresh adapter, no marks) does with the same state:
		full := subjectsOf(r.pass())
		t.Errorf("edited comment on a ready pull request: the marked pass did %v (note %q); a full read does %v",
			got, noteOf(rep), full)
	}
}

// A full read whose comments could not be read (a 502 that outlasts the
// retries) ends waiting for "the reviews to be readable", not for the
// reviewer, and must leave no mark: otherwise the comment that moved
// updated_at is skipped until the 30-minute refresh.
func TestQuietNoMarkWhenFeedbackUnreadable(t *testing.T) {
	t.Parallel()
	r, pass := quietDelivery(t)
	r.as("bob").comment(1, "please rename the helper")
	r.clock.Advance(time.Minute)
	remove := r.gh.InjectFault(ghstandin.Fault{Method: "GET", Path: `/issues/1/comments$`, Kind: ghstandin.FaultStatus, Status: 502})
	pass()
	remove()
	r.clock.Advance(time.Minute)
	rep := pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: round 1 acme/api#1" {
		t.Errorf("bob's comment was not answered once readable: %v (note %q); a full read does %v",
			got, noteOf(rep), subjectsOf(r.pass()))
	}
}

// The mark of a wait for CI ends at checks.wait, not only at the 30-minute
// refresh: with checks.wait shorter than quietRefresh the pass at the
// deadline stops checks-silent although the mark is 9 minutes old.
// (TestQuietWaitForCIReadsOnlyItsChecks/checks.wait advances 50 minutes,
// past the refresh, and passes with the Until test in quiet() deleted.)
func TestQuietWaitForCIEndsAtChecksWait(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""),
		"gallivant.yaml": strings.Replace(rigConfig, "  none: [acme/api]\n", "  wait: 10m\n", 1)})
	rec := r.reconciler()
	pass := daemonPasses(t, rec)
	if rep := pass(); subjectsOf(rep)[len(subjectsOf(rep))-1] != "loop: open pr acme/api#1" {
		t.Fatalf("got %v; notes %s", subjectsOf(rep), noteOf(rep))
	}
	r.clock.Advance(time.Minute)
	pass() // the full read that leaves the mark
	r.clock.Advance(time.Minute)
	if rep := pass(); !strings.Contains(noteOf(rep), "(unchanged since ") {
		t.Fatalf("want the CI-wait mark to hold: %s", noteOf(rep))
	}
	r.clock.Advance(8 * time.Minute) // t0+10m: checks.wait is due; the mark is 9 minutes old
	wantSubjects(t, pass(), "loop: stop checks-silent")
}

// Marks round-trip through the state file, and a file the previous
// version wrote (version 1: its marks carried no checks, so a build that
// trusted them would skip a ready pull request's checks) is ignored: the
// next process starts cold instead.
func TestQuietStateVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := githubapi.Options{APIURL: "https://ghe.example/api/v3/", Token: "tok", StateDir: dir}
	g, err := githubapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	want := quietMark{UpdatedAt: seen.Add(-time.Hour), Head: "abc", Base: "main", BaseHead: "def", Sum: "s1", Seen: seen,
		Until: seen.Add(time.Hour), Why: "acme/api#1 is ready", Checks: "c1", Feedback: "f1"}
	writeMark(g, "acme/api", 1, &want)
	if err := g.SaveState(); err != nil {
		t.Fatal(err)
	}
	g, err = githubapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := readMark(g, "acme/api", 1)
	if !ok {
		t.Fatal("the mark did not survive the state file")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mark after reload (-want +got):\n%s", diff)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "state-*.json"))
	if len(files) != 1 {
		t.Fatalf("state files %v", files)
	}
	// The quiet map exactly as the previous version's SaveState wrote it.
	old := `{"version":1,"entries":null,"quiet":{"acme/api#1":{"updated_at":"2026-11-30T11:00:00Z","head":"abc","base":"main","base_head":"def","sum":"s1","seen":"2026-11-30T12:00:00.123456789Z","until":"2026-11-30T13:00:00.123456789Z","why":"acme/api#1 waits for an approval by @rev"}}}`
	if err := os.WriteFile(files[0], []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err = githubapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := readMark(g, "acme/api", 1); ok {
		t.Errorf("a version-1 mark was loaded: %+v", m)
	}
}

// Issue 33: an approved pull request whose base requires more approving
// reviews than it has waits for them (docs/gatekeep.md, "Merge state").
// Its checks are final, so its mark watches none; it records what the
// base requires instead, compared every pass with the base's rules and
// protection as its repository's GraphQL query reads them (rollup.go),
// which then also answers the base's head: an idle pass costs the list
// and the query, as for a ready pull request. With GraphQL refused, the
// base's head, rules and protection are read through REST, once per
// base, all 304 while unchanged. A base that comes to require fewer
// approvals, which moves neither the pull request's updated_at nor its
// head, is so seen at the next pass, before the 30-minute refresh: the
// full read finds it ready.
func TestQuietApprovalsWaitSeesBaseRequireFewer(t *testing.T) {
	t.Parallel()
	classic := ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 2}
	ruleset := ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 2, Ruleset: true}
	withReviews := func(p ghstandin.Protection, n int) *ghstandin.Protection { p.RequiredReviews = n; return &p }
	ready := []string{"loop: ready acme/api#1", "loop: announced ready acme/api#1"}
	for _, tc := range []struct {
		name   string
		before ghstandin.Protection
		after  *ghstandin.Protection // nil: the base does not change
		// graphQL, when set, is the status GraphQL answers every
		// query with; idle is then an idle pass's REST requests, every
		// one answered 304.
		graphQL int
		idle    []string
		want    []string // what the pass after the change records
	}{
		{name: "classic protection requires one fewer", before: classic, after: withReviews(classic, 1), want: ready},
		{name: "classic protection requires none", before: classic, after: withReviews(classic, 0), want: ready},
		{name: "a ruleset requires one fewer", before: ruleset, after: withReviews(ruleset, 1), want: ready},
		{name: "the base does not change", before: classic},
		{name: "GraphQL refused", before: classic, after: withReviews(classic, 1), graphQL: 502, want: ready,
			idle: []string{"GET /repos/acme/api/pulls", "GET /repos/acme/api/git/ref/heads/main", "GET /repos/acme/api/rules/branches/main", "GET /repos/acme/api/branches/main/protection"}},
		// The protection's 404 is remembered: no request asks it again.
		{name: "a ruleset, GraphQL refused", before: ruleset, after: withReviews(ruleset, 1), graphQL: 502, want: ready,
			idle: []string{"GET /repos/acme/api/pulls", "GET /repos/acme/api/git/ref/heads/main", "GET /repos/acme/api/rules/branches/main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newDelivery(t, "")
			r.gh.Protect("acme/api", "main", tc.before)
			pass := daemonPasses(t, r.reconciler())
			pass()
			r.greenAndApproved(r.head(work))
			r.clock.Advance(time.Minute)
			rep := pass() // the full read that leaves the mark
			wantSubjects(t, rep)
			const waits = "waits for 2 approving reviews the base branch requires (1 so far)"
			if n := noteOf(rep); !strings.Contains(n, waits) || strings.Contains(n, "unchanged since") {
				t.Fatalf("the full read's note is %q, want it to say it %s", n, waits)
			}
			if tc.graphQL != 0 {
				defer r.gh.InjectFault(ghstandin.Fault{Method: "POST", Path: `^/api/graphql$`, Kind: ghstandin.FaultStatus, Status: tc.graphQL})()
			}
			r.clock.Advance(time.Minute)
			r.gh.ResetLog()
			rep = pass()
			if n := noteOf(rep); !strings.Contains(n, waits+" (unchanged since ") {
				t.Fatalf("the mark did not hold while nothing changed: %q", n)
			}
			if tc.idle == nil {
				wantIdleCost(t, r, rep, 1)
			} else {
				var got []string
				for _, q := range r.gh.Requests() {
					if q.Path != "/api/graphql" {
						got = append(got, q.Method+" "+q.Path)
					}
				}
				if c := r.gh.Counts(); !cmp.Equal(tc.idle, got) || c.NotModified != len(got) {
					t.Errorf("idle pass with GraphQL refused: %d REST requests, %d answered 304 (-want +got):\n%s", len(got), c.NotModified, cmp.Diff(tc.idle, got))
				}
			}
			if tc.after != nil {
				r.gh.Protect("acme/api", "main", *tc.after)
			}
			r.clock.Advance(time.Minute)
			rep = pass()
			wantSubjects(t, rep, tc.want...)
			if held := strings.Contains(noteOf(rep), "unchanged since"); held != (tc.after == nil) {
				t.Errorf("after the base changed (%v) the pass noted %q", tc.after != nil, noteOf(rep))
			}
		})
	}
}

// Which marks without checks watch what their base requires
// (requiredWatched): of the waits such a mark can be (its checks final),
// only one for approvals the base requires ends by a change of the base's
// requirements; a reviewer's approval or a steerer's re-review ends by a
// review, which moves the pull request's updated_at.
func TestRequiredWatched(t *testing.T) {
	t.Parallel()
	approval := gatekeep.Wait{Kind: gatekeep.WaitApproval, User: "alice"}
	rereview := gatekeep.Wait{Kind: gatekeep.WaitReReview, User: "bob"}
	approvals := gatekeep.Wait{Kind: gatekeep.WaitApprovals, Need: 2, Have: 1}
	for _, tc := range []struct {
		name  string
		waits []gatekeep.Wait
		want  bool
	}{
		{"the reviewer's approval", []gatekeep.Wait{approval}, false},
		{"a re-review", []gatekeep.Wait{rereview}, false},
		{"the reviewer and a re-review", []gatekeep.Wait{approval, rereview}, false},
		{"approvals the base requires", []gatekeep.Wait{approvals}, true},
		{"the reviewer and approvals the base requires", []gatekeep.Wait{approval, approvals}, true},
	} {
		if got := requiredWatched(gatekeep.Verdict{Kind: gatekeep.Waiting, WaitsFor: tc.waits}); got != tc.want {
			t.Errorf("%s: requiredWatched = %v, want %v", tc.name, got, tc.want)
		}
	}
}
