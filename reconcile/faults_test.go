package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/scripted"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// GitHub failing during a pass delays transitions but never corrupts a
// ledger: the entry is reported and picked up again on the next pass.
func TestGitHubFaultsDelayButNeverCorrupt(t *testing.T) {
	t.Parallel()
	faults := []ghstandin.Fault{
		{Method: "GET", Path: `/git/ref/heads/`, Kind: ghstandin.FaultStatus, Status: 502},
		{Method: "GET", Path: `/git/ref/heads/`, Kind: ghstandin.FaultTimeout},
		{Method: "GET", Path: `/git/ref/heads/`, Kind: ghstandin.FaultRateLimit},
		{Method: "GET", Path: `/git/ref/heads/`, Kind: ghstandin.FaultSecondary429, RetryAfter: 600},
		{Method: "POST", Path: `/git/refs$`, Kind: ghstandin.FaultStatus, Status: 500},
	}
	for _, f := range faults {
		t.Run(f.Path+string(rune('0'+f.Kind)), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "specs/other.md": specWith(1, "")})
			remove := r.gh.InjectFault(f)
			rep, err := r.reconciler(func(o *Options) {
				gh, _ := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Timeout: 200 * time.Millisecond, Attempts: 2, Logger: o.Log,
					Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
				o.GitHub = gh
			}).Pass(context.Background())
			if err != nil {
				t.Fatalf("the pass failed instead of delaying: %v", err)
			}
			problems := 0
			for _, n := range rep.Notes {
				if n.Problem {
					problems++
				}
			}
			if problems == 0 {
				t.Errorf("the GitHub failure was not reported: %+v", rep.Notes)
			}
			// Whatever was committed is a well-formed ledger.
			for _, s := range []string{"plans/feature-ledger.md", "plans/other-ledger.md"} {
				if out := run(t, r.control, "git", "ls-tree", "main", s); out != "" {
					r.ledger(s)
				}
			}
			remove()
			r.pass()
			r.pass()
			for _, s := range []string{"plans/feature-ledger.md", "plans/other-ledger.md"} {
				if l := r.ledger(s); l.Rows[0].Status != ledger.Done {
					t.Errorf("%s did not finish after the fault cleared: %+v", s, l.Rows[0])
				}
			}
		})
	}
}

// A push race inside receive-pack's window (an update hook moves main) is
// retried from the new head; history stays linear and nothing is lost.
func TestPushRaceIsRetried(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	hook := filepath.Join(r.control, "hooks", "update")
	script := `#!/bin/sh
# On the first push, someone else moves the branch first.
[ -f "$GIT_DIR/raced" ] && exit 0
touch "$GIT_DIR/raced"
tree=$(git rev-parse "$2^{tree}")
new=$(echo "a person's commit" | GIT_AUTHOR_NAME=p GIT_AUTHOR_EMAIL=p@x GIT_COMMITTER_NAME=p GIT_COMMITTER_EMAIL=p@x git commit-tree "$tree" -p "$2")
git update-ref "$1" "$new" "$2"
`
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := r.pass()
	if rep.Retries == 0 {
		t.Errorf("Retries = 0, want the push race to be hit and retried")
	}
	subjects := r.subjects()
	if !slices.Contains(subjects, "a person's commit") {
		t.Errorf("the racing commit was lost: %v", subjects)
	}
	if merges := run(t, r.control, "git", "rev-list", "--merges", "--count", "main"); merges != "0" {
		t.Errorf("history is not linear: %s merges", merges)
	}
	if l := r.ledger(ledgerPath); l.Rows[0].Status != ledger.Done {
		t.Errorf("the entry did not finish: %+v", l.Rows[0])
	}
	seen := map[string]bool{}
	for _, task := range r.runs {
		if seen[task.Pending.String()] {
			t.Errorf("dispatch %s ran twice", task.Pending)
		}
		seen[task.Pending.String()] = true
	}
}

// A hostile return is refused without touching other entries.
func TestHostileReturnsAreRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "specs/other.md": specWith(1, "")})
	r.agent = func(ctx context.Context, dir string, task agent.Task) error {
		if task.Spec != "specs/feature.md" || task.Pending.Target == ledger.SeedTarget {
			return ScriptedAgent(func(string, int, string) Behavior { return Done })(ctx, dir, task)
		}
		kv := briefValues(task.Brief)
		body := "loop: row 1 done\n\npending: " + kv["pending"] + "\niteration: 2\n\n| 1 | done | 1 | go test ./x -run T; ok |\n\nrow 1 done | <script>alert(1)</script> ## Delivery\nstop: | x\n" + strings.Repeat("\x1b[2J", 10) + strings.Repeat("A", 1<<20)
		os.WriteFile(filepath.Join(dir, "evil.txt"), []byte(kv["iteration"]), 0o644)
		g := scripted.Git{Dir: dir, Env: []string{"GIT_AUTHOR_NAME=evil", "GIT_AUTHOR_EMAIL=e@x", "GIT_COMMITTER_NAME=evil", "GIT_COMMITTER_EMAIL=e@x"}}
		g.Out(ctx, "add", "-A")
		msg := filepath.Join(t.TempDir(), "msg")
		os.WriteFile(msg, []byte(body), 0o644)
		_, err := g.Out(ctx, "commit", "--quiet", "-F", msg)
		return err
	}
	r.pass()
	l := r.ledger("plans/feature-ledger.md")
	if row := l.Rows[0]; row.Status != ledger.Failed || !strings.Contains(row.Evidence, ": the commit message is 1048") {
		t.Errorf("the hostile return was not refused as a miss: %+v", row)
	}
	// Two refused attempts exhaust allowance 2 (rule 2 precedes rule 3).
	if reason, _, stopped := l.Stop(); !stopped || reason != "allowance" {
		t.Errorf("stop %q, want allowance", reason)
	}
	if o := r.ledger("plans/other-ledger.md"); o.Rows[0].Status != ledger.Done {
		t.Errorf("the other entry was disturbed: %+v", o.Rows[0])
	}
	// The refusal commit quotes nothing that could break the ledger.
	data := run(t, r.control, "git", "show", "main:plans/feature-ledger.md")
	if strings.Contains(data, "<script") || strings.Contains(data, "\x1b") {
		t.Errorf("hostile text reached the ledger:\n%s", data)
	}
}

// A local control repository without a remote is committed to in place.
func TestStoreInPlace(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	local := filepath.Join(t.TempDir(), "control")
	run(t, filepath.Dir(local), "git", "clone", "--quiet", r.control, "control")
	run(t, local, "git", "remote", "remove", "origin")
	st, err := store.Open(context.Background(), store.Options{Control: local})
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Logger: quiet})
	exec := agent.CommandExecutor{Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Agent: r.agent}
	rep, err := New(Options{Store: st, GitHub: gh, Executor: exec, Clock: r.clock.Now, CloneURL: r.gh.GitURL, Log: quiet, MergePoll: time.Millisecond}).Pass(context.Background())
	if err != nil || len(rep.Transitions) != 5+len(delivered) {
		t.Fatalf("in-place pass: %v %v", err, subjectsOf(rep))
	}
	// The work tree follows the branch: the ledger is on disk and clean.
	if _, err := os.Stat(filepath.Join(local, ledgerPath)); err != nil {
		t.Errorf("the ledger is not in the work tree: %v", err)
	}
	if st := run(t, local, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the work tree is dirty after the pass:\n%s", st)
	}
	// A person's uncommitted edit of a file the pass does not touch, and
	// an untracked scratch file, neither block the pass nor get lost; the
	// pass's own file is written and staged; nothing else is touched.
	os.WriteFile(filepath.Join(local, "specs/feature.md"), []byte("local edit\n"), 0o644)
	os.WriteFile(filepath.Join(local, "scratch.txt"), []byte("notes\n"), 0o644)
	st2, _ := store.Open(context.Background(), store.Options{Control: local})
	if got := st2.Uncommitted(); len(got) != 1 || got[0] != "specs/feature.md" {
		t.Errorf("Uncommitted() = %v, want [specs/feature.md] (untracked files are not listed)", got)
	}
	st2.Commit(context.Background(), "plans/x.md", []byte("x"), "loop: test", r.clock.Now())
	if err := st2.Push(context.Background()); err != nil {
		t.Fatalf("an unrelated edit blocked the pass: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(local, "specs/feature.md")); string(data) != "local edit\n" {
		t.Errorf("the person's edit was overwritten: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(local, "plans/x.md")); string(data) != "x" {
		t.Errorf("the pass's file is not in the work tree: %q", data)
	}
	if got := run(t, local, "git", "status", "--porcelain"); got != " M specs/feature.md\n?? scratch.txt" && got != "M specs/feature.md\n?? scratch.txt" {
		t.Errorf("status after the pass:\n%s", got)
	}
	// A person's edit of a file the pass changes refuses the pass, naming
	// the file, and the edit stays.
	os.WriteFile(filepath.Join(local, "plans/x.md"), []byte("a person's x\n"), 0o644)
	st3, _ := store.Open(context.Background(), store.Options{Control: local})
	st3.Commit(context.Background(), "plans/x.md", []byte("y"), "loop: test", r.clock.Now())
	err = st3.Push(context.Background())
	if !errors.Is(err, store.ErrDirtyCheckout) || !strings.Contains(err.Error(), "plans/x.md") {
		t.Errorf("Push = %v, want a refusal naming plans/x.md", err)
	}
	if data, _ := os.ReadFile(filepath.Join(local, "plans/x.md")); string(data) != "a person's x\n" {
		t.Errorf("the person's edit was overwritten: %q", data)
	}
}

// Issue 11: while passes update an in-place checkout, a person keeps
// editing another file; not one edit is reverted (a whole-tree reset used
// to revert about one in six).
//
// The person rewrites the file with a numbered line and, before each next
// edit, reads it back: anything but their own last line means a pass wrote
// over it. Checking as it goes, instead of appending and checking at the
// end, keeps the file one line long, so a pass costs the same on a loaded
// machine as on a quiet one (an appended file grew by the megabyte and made
// the passes quadratic).
func TestInPlaceUpdatesNeverRevertAnEdit(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	local := filepath.Join(t.TempDir(), "control")
	run(t, filepath.Dir(local), "git", "clone", "--quiet", r.control, "control")
	run(t, local, "git", "remote", "remove", "origin")
	notes := filepath.Join(local, "specs", "feature.md")
	type result struct {
		edits    int
		reverted string
	}
	done := make(chan result, 1)
	stop := make(chan struct{})
	halt := sync.OnceFunc(func() { close(stop) })
	t.Cleanup(halt) // a failed pass below must not leave the person editing
	go func() {
		last := ""
		for n := 1; ; n++ {
			select {
			case <-stop:
				done <- result{edits: n - 1}
				return
			default:
			}
			if last != "" {
				if got, err := os.ReadFile(notes); err != nil || string(got) != last {
					done <- result{edits: n - 1, reverted: fmt.Sprintf("after edit %d the file holds %q (err %v), want %q", n-1, got, err, last)}
					return
				}
			}
			last = fmt.Sprintf("edit %d\n", n)
			if err := os.WriteFile(notes, []byte(last), 0o644); err != nil {
				last = ""
			}
		}
	}()
	for i := 0; i < 20; i++ {
		st, err := store.Open(context.Background(), store.Options{Control: local})
		if err != nil {
			t.Fatal(err)
		}
		st.Commit(context.Background(), "plans/x.md", []byte(fmt.Sprintf("pass %d\n", i)), "loop: test", r.clock.Now())
		if err := st.Push(context.Background()); err != nil {
			t.Fatalf("pass %d: %v", i, err)
		}
	}
	halt()
	res := <-done
	if res.reverted != "" {
		t.Fatalf("a pass reverted the person's edit: %s", res.reverted)
	}
	if res.edits == 0 {
		t.Fatal("the person made no edit while the passes ran")
	}
	if got, _ := os.ReadFile(filepath.Join(local, "plans/x.md")); string(got) != "pass 19\n" {
		t.Errorf("plans/x.md = %q, want the last pass's", got)
	}
}
