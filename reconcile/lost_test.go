package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// lostProblems returns the pass's problems that name an environment loss.
func lostProblems(rep *Report) []string {
	var out []string
	for _, n := range problemsOf(rep) {
		if strings.HasPrefix(n.Message, "disk full at ") || strings.HasPrefix(n.Message, "checkout removed: ") {
			out = append(out, n.Message)
		}
	}
	return out
}

// sentenceOf returns the message body of the newest control commit whose
// subject is subject.
func sentenceOf(r *rig, subject string) string {
	r.t.Helper()
	return run(r.t, r.control, "git", "log", "-1", "--format=%b", "--fixed-strings", "--grep="+subject, "main")
}

// afterSeed is what the rig's one-row spec does after its seed is
// admitted, within the same pass.
var afterSeed = []string{"loop: record home seed", "loop: dispatch row 1", "loop: record home row 1", "loop: verify",
	"loop: open pr acme/api#1", "loop: ready acme/api#1", "loop: announced ready acme/api#1"}

// Issue 33: a cache deleted under a running agent used to stop the
// dispatch `harness-error` ("the checkout's .git is no longer a
// directory") for a person. A run whose checkout was removed lost its
// environment, not the entry's work: the pass notes one problem naming
// the checkout, reruns the dispatch at once as the same iteration
// (`loop: rerun`, L-69) in a fresh checkout, and delivers; `verify`
// replays the history (audit rule rerun).
func TestRemovedCheckoutIsRerun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		remove func(r *rig, dir string) string
	}{
		{"the checkout", func(r *rig, dir string) string { return dir }},
		{"the whole cache directory", func(r *rig, dir string) string { return r.work }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
			scripted := r.agent
			removed := false
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				if err := scripted(ctx, dir, task); err != nil || removed {
					return err
				}
				// The agent committed its return; then the cache is
				// deleted under it, the commit with it.
				removed = true
				return os.RemoveAll(tc.remove(r, dir))
			}
			rep := r.pass()
			want := append([]string{"loop: seed ledger", "loop: dispatch seed", "loop: rerun seed"}, afterSeed...)
			if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
				t.Errorf("subjects (-want +got):\n%s", diff)
			}
			wantProblem := []string{"checkout removed: " + r.checkout() + "; the runs it failed are rerun, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"}
			if diff := cmp.Diff(wantProblem, lostProblems(rep)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if got := sentenceOf(r, "loop: rerun seed"); !strings.Contains(got, "lost its environment (checkout removed: "+r.checkout()+")") {
				t.Errorf("rerun commit %q, want it to name the removed checkout", got)
			}
			if len(r.runs) != 3 || r.runs[0].Pending.String() != r.runs[1].Pending.String() || r.runs[0].Iteration != r.runs[1].Iteration {
				var got []string
				for _, run := range r.runs {
					got = append(got, run.What())
				}
				t.Errorf("runs %q, want the seed twice as the same iteration, then row 1", got)
			}
			if reason, _, stopped := r.ledgerOf("specs/feature.md").Stop(); stopped {
				t.Errorf("the entry stopped %s", reason)
			}
			verifyControl(t, r)
		})
	}
}

// Issue 33: the rerun of a lost run stays within ledger.MaxReruns: a
// checkout removed under every run is rerun three times, then the dispatch
// stops `interrupted` (a person's), never `harness-error`.
func TestRemovedCheckoutRerunsAreBounded(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	r.agent = func(ctx context.Context, dir string, task agent.Task) error { return os.RemoveAll(dir) }
	rep := r.pass()
	want := []string{"loop: seed ledger", "loop: dispatch seed"}
	for range ledger.MaxReruns {
		want = append(want, "loop: rerun seed")
	}
	want = append(want, "loop: stop interrupted")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if got := lostProblems(rep); len(got) != 1 {
		t.Errorf("problems %q, want one for the pass", got)
	}
	if reason, _, _ := r.ledgerOf("specs/feature.md").Stop(); reason != ledger.StopInterrupted {
		t.Errorf("stop %q, want %q", reason, ledger.StopInterrupted)
	}
	verifyControl(t, r)
}

// Issue 33: a full disk (ENOSPC) used to stop the dispatch whose run it
// failed. The pass notes one problem naming where the disk was full and
// leaves the dispatch outstanding, spending no rerun and no attempt; the
// next pass, with room again, finds the lost run's record (or the intent
// of the run that could not start), reruns it as the same iteration and
// delivers.
func TestDiskFullRerunsInTheNextPass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// fill makes the first run's write fail with ENOSPC and returns
		// the path the problem names and a func that frees the disk.
		fill func(t *testing.T, r *rig, full *bool) (string, func())
	}{
		{"the agent's write", func(t *testing.T, r *rig, full *bool) (string, func()) {
			scripted := r.agent
			r.agent = func(ctx context.Context, dir string, task agent.Task) error {
				if !*full {
					return scripted(ctx, dir, task)
				}
				// Half a change written, the rest refused: a dirty tree.
				p := filepath.Join(dir, "notes.txt")
				if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
					return err
				}
				return &os.PathError{Op: "write", Path: p, Err: syscall.ENOSPC}
			}
			return filepath.Join(r.checkout(), "notes.txt"), func() { *full = false }
		}},
		{"gallivant's own write of the task file", func(t *testing.T, r *rig, full *bool) (string, func()) {
			if _, err := os.Stat("/dev/full"); err != nil {
				t.Skip("no /dev/full: the kernel's ENOSPC cannot be had without a mount")
			}
			// The kernel answers every write to /dev/full with ENOSPC.
			task := filepath.Join(r.work, "tasks", "feature-0.md")
			if err := os.MkdirAll(filepath.Dir(task), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/full", task); err != nil {
				t.Fatal(err)
			}
			return task, func() {
				if err := os.Remove(task); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
			full := true
			path, free := tc.fill(t, r, &full)
			rep := r.pass()
			if diff := cmp.Diff([]string{"loop: seed ledger", "loop: dispatch seed"}, subjectsOf(rep)); diff != "" {
				t.Errorf("first pass subjects (-want +got):\n%s", diff)
			}
			wantProblem := []string{"disk full at " + path + "; the runs it failed are rerun by the next pass once there is room, no person needed (docs/reconcile.md#crashes-and-concurrent-reconcilers)"}
			if diff := cmp.Diff(wantProblem, lostProblems(rep)); diff != "" {
				t.Errorf("first pass problems (-want +got):\n%s", diff)
			}
			l := r.ledgerOf("specs/feature.md")
			if reason, _, stopped := l.Stop(); stopped || l.Pending == nil || l.Delivery.Reruns != 0 {
				t.Fatalf("after the full disk: stop %q, pending %v, reruns %d; want the dispatch outstanding, no rerun spent", reason, l.Pending, l.Delivery.Reruns)
			}
			iterations := l.Iterations
			free()
			rep = r.pass()
			if diff := cmp.Diff(append([]string{"loop: rerun seed"}, afterSeed...), subjectsOf(rep)); diff != "" {
				t.Errorf("next pass subjects (-want +got):\n%s", diff)
			}
			if got := lostProblems(rep); len(got) != 0 {
				t.Errorf("next pass problems %q, want none", got)
			}
			l = r.ledgerOf("specs/feature.md")
			if reason, _, stopped := l.Stop(); stopped {
				t.Errorf("the entry stopped %s", reason)
			}
			if l.Iterations != iterations+1 {
				t.Errorf("iterations %d, want %d: the rerun takes no new count, row 1 one", l.Iterations, iterations+1)
			}
			verifyControl(t, r)
		})
	}
}
