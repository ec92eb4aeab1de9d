package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// A learn run whose reconciler dies is recovered from this cache as a
// row's dispatch is (docs/learning.md "Admission"), never left to wait
// executor.timeout and the grace period: the next pass — the clock not
// moved — adopts the finished return (pushed, or still only in the learn
// checkout) without running the agent again, and dispatches again at once
// the task whose agent never started. The history verifies clean.
func TestLearnKilledMidwayIsRecovered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// kill runs the pass that records the merge and dies in it.
		kill func(r *rig)
		// want are the next pass's transitions; runs how many learn
		// agents ran in all.
		want []string
		runs int
	}{{
		name: "after its return was pushed",
		kill: func(r *rig) { r.killedAt("executor:after") },
		want: []string{"loop: propose lessons acme/control#1"},
		runs: 1,
	}, {
		name: "with its commit only in the learn checkout",
		kill: func(r *rig) {
			scripted := r.agent
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				err := scripted(ctx, dir, task)
				if task.Learn {
					panic(errKilled) // after the commit, before the push
				}
				return err
			}
			r.killedByAgent()
			r.agent = scripted
			if _, ok, err := r.gh.Client("alice").Git.GetRef(context.Background(), "acme", "control", "heads/gallivant/lessons-acme-api"); err == nil || ok != nil && ok.StatusCode != 404 {
				r.t.Fatalf("the killed run's return reached the lessons branch: %v", err)
			}
		},
		want: []string{"loop: propose lessons acme/control#1"},
		runs: 1,
	}, {
		name: "before its agent started",
		kill: func(r *rig) { r.killedAt("executor:before") },
		want: []string{"loop: learn acme/api#1", "loop: propose lessons acme/control#1"},
		runs: 1,
	}, {
		name: "with its agent, before it committed",
		kill: func(r *rig) {
			scripted := r.agent
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				if task.Learn {
					panic(errKilled)
				}
				return scripted(ctx, dir, task)
			}
			r.killedByAgent()
			r.agent = scripted
		},
		want: []string{"loop: learn acme/api#1", "loop: propose lessons acme/control#1"},
		runs: 2,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newLearnRig(t, learnConfig)
			r.pass()
			r.mergeAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body.")
			tt.kill(r)
			if l := r.ledger(ledgerPath); l.Delivery.Learn.State != ledger.LearnDispatched {
				t.Fatalf("learn: %q after the kill, want dispatched", l.Delivery.Learn.String())
			}
			runs := len(r.learnBriefs())
			// gallivant task prints the dispatched task's brief, the one
			// its agent was handed.
			brief, ok := learnTaskBrief(t, r)
			if !ok || !strings.Contains(brief, "target: learn\n") || (runs > 0 && brief != r.learnBriefs()[0].Brief) {
				t.Errorf("LearnTaskBrief (%v):\n%s", ok, brief)
			}
			rep := r.pass()
			if got := subjectsOf(rep); !slices.Equal(got, tt.want) {
				t.Fatalf("the pass after the kill: %v, want %v\nnotes: %s\n%s", got, tt.want, noteOf(rep), run(t, r.control, "git", "log", "--format=%B", "-5", "main"))
			}
			if got := len(r.learnBriefs()); got != tt.runs {
				t.Errorf("%d learn agents ran (%d before the recovery), want %d", got, runs, tt.runs)
			}
			l := r.ledger(ledgerPath)
			if got := l.Delivery.Learn; got.State != ledger.LearnProposed || len(got.Candidates) != 2 || got.Attempts() != 1 {
				t.Errorf("learn: %q, want proposed with 2 candidates on the first attempt", got.String())
			}
			if _, ok := learnTaskBrief(t, r); ok {
				t.Error("a brief for a learn task no longer dispatched")
			}
			verifyControl(t, r)
		})
	}
}

// learnTaskBrief is what `gallivant task` prints for the feature spec's
// learn task (LearnTaskBrief), read from a fresh cache.
func learnTaskBrief(t *testing.T, r *rig) (string, bool) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	brief, ok, err := LearnTaskBrief(context.Background(), st, snap, "specs/feature.md", "acme/control")
	if err != nil {
		t.Fatal(err)
	}
	return brief, ok
}
