package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/store"
)

// onStandin moves the rig's control repository onto the stand-in as
// acme/control, so that the passes fetch and push it over smart HTTP,
// where the stand-in's git faults reach them. r.control becomes the
// stand-in's own copy, which the rig's readers (subjects, ledger) read.
func (r *rig) onStandin(t *testing.T) rigOption {
	t.Helper()
	if err := r.gh.CreateRepo("acme/control", "main"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run(t, dir, "git", "clone", "--quiet", r.gh.GitURLWithToken("acme/control", r.gh.MainToken()), "w")
	w := dir + "/w"
	run(t, w, "git", "fetch", "--quiet", r.control, "main")
	run(t, w, "git", "merge", "--quiet", "--allow-unrelated-histories", "-m", "Approve specs", "FETCH_HEAD")
	run(t, w, "git", "push", "--quiet", "origin", "main")
	r.control = r.gh.RepoDir("acme/control")
	cache := t.TempDir()
	return func(o *Options) {
		st, err := store.Open(context.Background(), store.Options{Control: r.gh.GitURL("acme/control"), Branch: "main", CacheDir: cache, Token: r.gh.MainToken()})
		if err != nil {
			t.Fatalf("open the control repository: %v", err)
		}
		o.Store = st
	}
}

// gitFaultRun runs one spec of two rows to its pull request, pass after
// pass as CI would, with the faults armed: control, on the first push
// of the control branch; work, on the push of row 1's commit. It returns
// the control branch's subjects, the dispatches the agent ran (target
// and member, in order), the work branch's commit subjects and whether a
// pass reported a work-branch push it could not make.
func gitFaultRun(t *testing.T, control, work ghstandin.FaultKind) (subjects, ran, branch []string, unpushed bool, failed int) {
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	through := r.onStandin(t)
	if control != 0 {
		r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/control\.git/git-receive-pack$`, Kind: control, Count: 1})
	}
	inner := r.agent
	armed := false
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		err := inner(ctx, dir, task)
		if work != 0 && task.Pending.Target == 1 && !armed {
			// The agent has committed; its push meets the fault.
			armed = true
			r.gh.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/api\.git/git-receive-pack$`, Kind: work, Count: 1})
		}
		return err
	}
	for i := 0; i < 8; i++ {
		rep, err := r.reconciler(through).Pass(context.Background())
		if err != nil {
			t.Logf("pass %d: %v", i+1, err)
			failed++
			continue
		}
		for _, n := range rep.Notes {
			unpushed = unpushed || (n.Problem && strings.Contains(n.Message, "could not be pushed"))
		}
		if len(rep.Transitions) == 0 && r.prs() > 0 {
			break
		}
	}
	if work != 0 && !armed {
		t.Fatal("row 1 never ran: the work-branch fault was never armed")
	}
	if left := r.gh.Faults(); len(left) != 0 {
		t.Errorf("faults never met: %+v", left)
	}
	verifyControl(t, r)
	for _, task := range r.runs {
		ran = append(ran, task.Pending.TargetString()+" | "+task.Pending.Member)
	}
	log := run(t, r.gh.RepoDir("acme/api"), "git", "log", "--reverse", "--format=%s", "main..gallivant/feature")
	return r.subjects(), ran, strings.Split(log, "\n"), unpushed, failed
}

// Issue 33: a push of the control branch or of a work branch that is lost
// (it landed, the client saw 502), refused with a 5xx or cut by a reset
// neither loses nor duplicates a commit. The faulted run ends as the clean
// one does: each dispatch run once, the work branch with each row's
// commit once, and the same transitions on the control branch, but for a
// `loop: rerun` of the dispatch whose control push was refused before
// its agent started (a push that landed is read back and its pass goes
// on); no stop for a person; `verify` replays it clean.
func TestGitPushFaultsLoseAndDuplicateNothing(t *testing.T) {
	t.Parallel()
	wantSubjects, wantRan, wantBranch, _, _ := gitFaultRun(t, 0, 0)
	if len(wantBranch) < 2 {
		t.Fatalf("the clean run's work branch has %v, want both rows' commits", wantBranch)
	}
	tests := []struct {
		name          string
		control, work ghstandin.FaultKind
		// A work-branch push that met one fault is tried again in its
		// run (a 5xx) or landed and is seen on the branch (a lost
		// answer, a reset): none is reported as not made. One that
		// fails every try is TestFailedWorkBranchPushIsPushedByTheNextPass.
		wantUnpushed bool
		// A control push that landed is read back and its pass goes on;
		// one that did not leaves its dispatch unstarted, and the next
		// pass pushes it and reruns it.
		wantReruns int
	}{
		{"lost", ghstandin.FaultLostResponse, ghstandin.FaultLostResponse, false, 0},
		{"5xx", ghstandin.FaultStatus, ghstandin.FaultStatus, false, 1},
		{"reset", ghstandin.FaultReset, ghstandin.FaultReset, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			subjects, ran, branch, unpushed, failed := gitFaultRun(t, tt.control, tt.work)
			if failed != 0 {
				t.Errorf("%d passes failed, want none", failed)
			}
			if unpushed != tt.wantUnpushed {
				t.Errorf("a pass reported row 1's push as not made: %v, want %v", unpushed, tt.wantUnpushed)
			}
			if diff := cmp.Diff(wantRan, ran); diff != "" {
				t.Errorf("dispatches run (-clean +faulted):\n%s", diff)
			}
			if diff := cmp.Diff(wantBranch, branch); diff != "" {
				t.Errorf("work branch commits (-clean +faulted):\n%s", diff)
			}
			reruns := 0
			subjects = slices.DeleteFunc(subjects, func(s string) bool {
				if strings.HasPrefix(s, "loop: rerun ") {
					reruns++
					return true
				}
				return false
			})
			if reruns != tt.wantReruns {
				t.Errorf("%d reruns, want %d", reruns, tt.wantReruns)
			}
			if diff := cmp.Diff(wantSubjects, subjects); diff != "" {
				t.Errorf("control branch subjects (-clean +faulted):\n%s", diff)
			}
			if slices.ContainsFunc(subjects, func(s string) bool { return strings.HasPrefix(s, "loop: stop") }) {
				t.Errorf("a push fault stopped the entry for a person: %v", subjects)
			}
		})
	}
}
