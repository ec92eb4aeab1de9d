package reconcile

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

var errInjected = errors.New("injected crash")

// settleRig runs passes until nothing is due, answering the stops a crash
// can cause the way a person would (resume an interrupted dispatch) and
// letting time pass while a dispatch is outstanding.
func settleRig(t *testing.T, r *rig, crash func(string) error) {
	t.Helper()
	for i := 0; i < 20; i++ {
		rep, err := r.reconciler(func(o *Options) { o.Crash = crash }).Pass(context.Background())
		if errors.Is(err, errInjected) {
			crash = nil // the process died; the next one runs clean
			continue
		}
		if err != nil {
			t.Fatalf("pass %d: %v", i, err)
		}
		l := r.ledger(ledgerPath)
		if reason, _, stopped := l.Stop(); stopped {
			if reason != "interrupted" {
				t.Fatalf("unexpected stop %s", reason)
			}
			r.request(ledgerPath, "resume | the reconciler crashed before the agent started")
			continue
		}
		if l.Pending != nil {
			r.clock.Advance(36 * time.Minute) // executor.timeout and grace
			continue
		}
		if len(rep.Transitions) == 0 {
			return
		}
	}
	t.Fatalf("the entry did not settle")
}

// normalized renders a rig's ledger with the SHAs that differ between rigs
// (each creates its repositories afresh) replaced by names.
func normalized(r *rig) string {
	l := r.ledger(ledgerPath)
	for i := range l.Proofs {
		// How long an evidence replay took is the machine's, not the state's.
		l.Proofs[i].Duration = 0
	}
	s := string(ledger.Format(l))
	first := strings.Fields(run(r.t, r.control, "git", "rev-list", "--max-parents=0", "main"))[0]
	base := run(r.t, r.gh.RepoDir("acme/api"), "git", "rev-parse", "main")
	work := run(r.t, r.gh.RepoDir("acme/api"), "git", "rev-parse", "gallivant/feature")
	s = strings.NewReplacer(first, "<control>", base, "<base>", work, "<work>").Replace(s)
	// When the pull request opened depends on how many passes a crash cost.
	s = regexp.MustCompile(`(?m)^(since|reviewer-asked|head-at): .*$`).ReplaceAllString(s, "$1: <time>")
	// The receipt's hash covers the verify line, which names the verified
	// head: a work commit's SHA, which differs from run to run.
	return regexp.MustCompile(`(?m)^receipt: [0-9a-f]{12}$`).ReplaceAllString(s, "receipt: <hash>")
}

func crashSpec() map[string]string {
	return map[string]string{"specs/feature.md": specWith(2, "")}
}

// Crash anywhere: abort a pass at every step boundary in turn, then run
// fresh passes. The end state equals an uninterrupted run's, no dispatch
// runs twice, and no transition is lost.
func TestCrashAnywhere(t *testing.T) {
	t.Parallel()
	script := func(target string, n int, model string) Behavior {
		if target == "2" && n == 1 {
			return Fail
		}
		return Done
	}
	ref := newRig(t, crashSpec())
	ref.script = script
	var points []string
	settleRig(t, ref, func(p string) error { points = append(points, p); return nil })
	want := normalized(ref)
	if len(points) < 10 {
		t.Fatalf("only %d step boundaries: %v", len(points), points)
	}
	for k := range points {
		t.Run(fmt.Sprintf("%02d-%s", k, points[k]), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, crashSpec())
			r.script = script
			n := 0
			settleRig(t, r, func(p string) error {
				n++
				if n == k+1 {
					return errInjected
				}
				return nil
			})
			got := normalized(r)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("end state differs from an uninterrupted run (-want +got):\n%s", diff)
			}
			// No dispatch ran twice.
			seen := map[string]bool{}
			for _, task := range r.runs {
				key := task.Pending.String()
				if seen[key] {
					t.Errorf("dispatch %s ran twice", key)
				}
				seen[key] = true
			}
			// Every dispatch commit is one iteration: none repeated, none lost.
			dispatches := 0
			for _, s := range r.subjects() {
				if strings.HasPrefix(s, "loop: dispatch") {
					dispatches++
				}
			}
			if l := r.ledger(ledgerPath); dispatches != l.Iterations {
				t.Errorf("%d dispatch commits for %d iterations", dispatches, l.Iterations)
			}
			run(t, r.control, "git", "fsck", "--strict", "--no-progress")
		})
	}
}
