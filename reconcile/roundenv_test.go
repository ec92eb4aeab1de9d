package reconcile

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
)

// isRound reports whether task is a review/fix round.
func isRound(task agent.Task) bool { return briefValues(task.Brief)["target"] == "round" }

// reviewRound brings the rig's entry to an open pull request with green
// checks and one new comment of bob's, which the next pass answers with a
// round.
func reviewRound(r *rig) {
	r.pass()
	r.as("ci-bot").status(r.head(work), "ci", "success")
	r.as("bob").comment(1, "Please also cover the zero case.")
}

// Issues 27 and 33: a round whose agent cannot authenticate used to stop
// the entry `harness-error`. It is the pass's one problem: the round is
// settled as not run (`loop: empty round`, no round charged, the feedback
// cursor unmoved, nothing posted on the pull request), no further agent
// starts in the pass, and the next pass runs the round by itself once the
// agent works; `verify` replays the history (audit rule empty round).
func TestRoundEnvironmentFailureIsOnePassProblem(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	failing := true
	scripted := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if failing && isRound(task) {
			return &agent.Failure{Kind: agent.FailureAuth, Status: 401, Cause: "Invalid API key · Fix external API key"}
		}
		return scripted(ctx, dir, task)
	}
	reviewRound(r)
	before := r.ledger(ledgerPath).Delivery.Since
	rep := r.pass()
	wantSubjects(t, rep, "loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1")
	const cause = `the agent could not authenticate: 401 "Invalid API key · Fix external API key"`
	problems := problemsOf(rep)
	if len(problems) != 1 || problems[0].Spec != "gallivant.yaml" || !strings.Contains(problems[0].Message, cause) ||
		!strings.Contains(problems[0].Message, "no further agent starts this pass") {
		t.Fatalf("problems %+v, want one on gallivant.yaml naming %q", problems, cause)
	}
	if !strings.Contains(noteOf(rep), "round 1 left for a later pass: no agent starts this pass") {
		t.Errorf("no wait naming the held round in:\n%s", noteOf(rep))
	}
	if got := sentenceOf(r, "loop: empty round 1"); !strings.Contains(got, "did not run: its agent failed for its environment ("+cause+")") {
		t.Errorf("empty round commit %q, want it to name the cause", got)
	}
	l := r.ledger(ledgerPath)
	if reason, _, stopped := l.Stop(); stopped {
		t.Fatalf("the entry stopped %s", reason)
	}
	if l.Delivery.Round != 0 || !l.Delivery.DispatchedAt.IsZero() || !cmp.Equal(l.Delivery.Since, before) || !l.Delivery.RoundSince.IsZero() {
		t.Errorf("round %d dispatched %v since %v (was %v) round-since %v: want no round counted, none outstanding, no cursor moved",
			l.Delivery.Round, l.Delivery.DispatchedAt, l.Delivery.Since, before, l.Delivery.RoundSince)
	}
	if diff := cmp.Diff([]string{"Please also cover the zero case."}, r.as("bob").comments(1)); diff != "" {
		t.Errorf("pull request comments (-want +got):\n%s", diff)
	}

	failing = false
	rep = r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1"}
	if len(got) < len(want) || !cmp.Equal(got[:len(want)], want) {
		t.Fatalf("the next pass does not run the round:\n got %q\nwant %q first\nnotes: %s", got, want, noteOf(rep))
	}
	if p := problemsOf(rep); len(p) != 0 {
		t.Errorf("problems %+v, want none once the agent works", p)
	}
	if last := r.runs[len(r.runs)-1].Brief; !strings.Contains(last, "Please also cover the zero case.") {
		t.Errorf("the round's brief does not quote the comment:\n%s", last)
	}
	if l := r.ledger(ledgerPath); l.Delivery.Round != 1 {
		t.Errorf("round %d, want 1", l.Delivery.Round)
	}
	verifyControl(t, r)
}

// Issue 33: a round whose checkout is deleted under its agent used to stop
// the entry `harness-error`. The pass notes one problem naming the
// checkout and runs the round again at once in a fresh checkout, whose
// commit lands; a checkout lost again in the same pass leaves the round
// to the next pass (so a cache deleted under every run cannot loop), and
// a full disk leaves it to the next pass at once.
func TestLostRoundIsRerun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// losses is how many of the round's runs lose their environment.
		losses int
		full   bool
		want   []string
	}{
		{"checkout removed once", 1, false, []string{"loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1",
			"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1"}},
		{"checkout removed twice", 2, false, []string{"loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1",
			"loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1"}},
		{"disk full", 1, true, []string{"loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newDelivery(t, rigConfig)
			scripted := r.agent
			lost := 0
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				if !isRound(task) || lost == tc.losses {
					return scripted(ctx, dir, task)
				}
				lost++
				if tc.full {
					return &os.PathError{Op: "write", Path: dir + "/out", Err: syscall.ENOSPC}
				}
				// The agent committed its fix; then the checkout is
				// deleted under it, the commit with it.
				if err := scripted(ctx, dir, task); err != nil {
					return err
				}
				return os.RemoveAll(dir)
			}
			reviewRound(r)
			rep := r.pass()
			got := subjectsOf(rep)
			if len(got) < len(tc.want) || !cmp.Equal(got[:len(tc.want)], tc.want) {
				t.Fatalf("subjects:\n got %q\nwant %q first\nnotes: %s", got, tc.want, noteOf(rep))
			}
			if has(got, "loop: stop harness-error") || len(got) > len(tc.want) && strings.HasPrefix(got[len(tc.want)], "loop: round") {
				t.Fatalf("subjects %q: a stop, or a round past the losses", got)
			}
			wantProblem := "checkout removed: " + r.checkout() + "; the runs it failed are rerun, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"
			if tc.full {
				wantProblem = "disk full at " + r.checkout() + "/out; the runs it failed are rerun by the next pass once there is room, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"
			}
			if diff := cmp.Diff([]string{wantProblem}, lostProblems(rep)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if reason, _, stopped := r.ledger(ledgerPath).Stop(); stopped {
				t.Fatalf("the entry stopped %s", reason)
			}
			if tc.losses == 1 && !tc.full {
				if l := r.ledger(ledgerPath); l.Delivery.Round != 1 || l.Delivery.Head != r.head(work) {
					t.Errorf("round %d head %s, want round 1 on the pushed head %s", l.Delivery.Round, l.Delivery.Head, r.head(work))
				}
				verifyControl(t, r)
				return
			}
			if l := r.ledger(ledgerPath); l.Delivery.Round != 0 {
				t.Errorf("round %d after the lost runs, want 0", l.Delivery.Round)
			}
			// The next pass runs the round, and its commit lands.
			rep = r.pass()
			got = subjectsOf(rep)
			want := []string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1"}
			if len(got) < len(want) || !cmp.Equal(got[:len(want)], want) {
				t.Fatalf("the next pass:\n got %q\nwant %q first\nnotes: %s", got, want, noteOf(rep))
			}
			verifyControl(t, r)
		})
	}
}

// Issues 27 and 33: a round on red checks whose agent could not
// authenticate used to leave the checks answered on their head, so the
// same pass stopped the entry `checks-red` for checks no agent saw. The
// round that did not run leaves them new: no stop, and the next pass
// answers them once the agent works.
func TestRoundEnvironmentFailureOnRedChecks(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	failing := true
	scripted := r.agent
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if failing && isRound(task) {
			return &agent.Failure{Kind: agent.FailureQuota, Status: 429, Cause: "rate limited"}
		}
		return scripted(ctx, dir, task)
	}
	r.pass()
	r.as("ci-bot").status(r.head(work), "ci", "failure")
	wantSubjects(t, r.pass(), "loop: round 1 acme/api#1", "loop: empty round 1 acme/api#1")
	if reason, _, stopped := r.ledger(ledgerPath).Stop(); stopped {
		t.Fatalf("the entry stopped %s", reason)
	}
	failing = false
	rep := r.pass()
	got := subjectsOf(rep)
	want := []string{"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1"}
	if len(got) < len(want) || !cmp.Equal(got[:len(want)], want) {
		t.Fatalf("the next pass does not answer the checks:\n got %q\nwant %q first\nnotes: %s", got, want, noteOf(rep))
	}
	if l := r.ledger(ledgerPath); l.Delivery.Round != 1 {
		t.Errorf("round %d, want 1", l.Delivery.Round)
	}
	verifyControl(t, r)
}
