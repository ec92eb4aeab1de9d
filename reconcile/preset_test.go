package reconcile

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// standinEnviron is this process's environment with the stand-in CLIs
// of bin first on PATH, for an executor's Environ: the process's own PATH
// is left alone, so the tests that run stand-ins run in parallel.
func standinEnviron(bin string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// presetRig is a rig whose executor runs the named preset against the
// stand-in CLIs, first on its PATH.
func presetRig(t *testing.T, kind, spec string) (*rig, string, rigOption) {
	bin := agentstandin.Write(t)
	r := newRig(t, map[string]string{"specs/feature.md": spec})
	opt := func(o *Options) {
		o.Executor = agent.CommandExecutor{Kind: kind, Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Environ: standinEnviron(bin)}
	}
	return r, bin, opt
}

// Each preset turns the stand-in's uncommitted work and result file into
// return commits that admission takes: the seed and both rows are
// recorded, and the CLI was called with its non-interactive flags and the
// prompt where it reads it.
func TestPresetsReachAdmittedRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, call string
	}{
		{"claude-code", "claude -p --output-format json --permission-mode bypassPermissions"},
		{"codex", "codex exec --json --sandbox workspace-write -"},
		{"aider", "aider --message-file "},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			r, bin, opt := presetRig(t, tc.kind, specWith(2, ""))
			rep := r.pass(opt)
			want := andDelivered(
				"loop: seed ledger",
				"loop: dispatch seed", "loop: record home seed",
				"loop: dispatch row 1", "loop: record home row 1",
				"loop: dispatch row 2", "loop: record home row 2",
			)
			if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
				t.Fatalf("transitions (-want +got):\n%s\nnotes %+v\n%s", diff, rep.Notes, r.log.String())
			}
			l := r.ledger(ledgerPath)
			for _, row := range l.Rows {
				if row.Status != ledger.Done {
					t.Errorf("row %d is %s, want done", row.N, row.Status)
				}
			}
			calls := agentstandin.CallsOf(t, bin)
			if len(calls) != 3 {
				t.Fatalf("calls %q, want 3 (seed, row 1, row 2)", calls)
			}
			for _, c := range calls {
				if !strings.HasPrefix(c, tc.call) || strings.Contains(c, "prompt=0") {
					t.Errorf("call %q, want it to start %q with a prompt", c, tc.call)
				}
			}
			// The return carries the CLI's usage as trailers.
			msg := run(t, r.gh.RepoDir("acme/api"), "git", "log", "-1", "--format=%B", "gallivant/feature")
			if !strings.Contains(msg, "\ntokens: ") {
				t.Errorf("return without a tokens: trailer:\n%s", msg)
			}
			// What a CLI keeps for itself (aider's histories and cache, a
			// .gitignore it would edit) is never part of the work.
			files := run(t, r.gh.RepoDir("acme/api"), "git", "ls-tree", "-r", "--name-only", "gallivant/feature")
			for _, f := range strings.Fields(files) {
				if strings.HasPrefix(f, ".aider") || f == ".gitignore" || f == ".gallivant-result" {
					t.Errorf("the work branch carries %s:\n%s", f, files)
				}
			}
		})
	}
}

// The escalated attempt passes the escalation model through the CLI's
// model flag; the plain attempt passes none. Each kind's model flag is
// agent.TestInvocation's ("claude escalated", "codex escalated", "aider
// escalated"); one kind proves the pass hands the model to the executor.
func TestPresetEscalationModel(t *testing.T) {
	t.Parallel()
	tests := []struct{ kind, flag string }{
		{"claude-code", "--model big-model"},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			r, bin, opt := presetRig(t, tc.kind, specWith(1, ""))
			agentstandin.Set(t, bin, agentstandin.FailWithoutModel, "")
			rep := r.pass(opt)
			want := andDelivered("loop: seed ledger", "loop: dispatch seed", "loop: record home seed",
				"loop: dispatch row 1", "loop: record home row 1", "loop: escalate row 1", "loop: dispatch row 1", "loop: record home row 1")
			if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
				t.Fatalf("transitions (-want +got):\n%s\n%s", diff, r.log.String())
			}
			calls := agentstandin.CallsOf(t, bin)
			if len(calls) != 3 {
				t.Fatalf("calls %q", calls)
			}
			if c := calls[1]; strings.Contains(c, "--model") || !strings.Contains(c, "model= ") {
				t.Errorf("the plain attempt: %q, want no model", c)
			}
			if c := calls[2]; !strings.Contains(c, tc.flag) || !strings.Contains(c, "model=big-model") {
				t.Errorf("the escalated attempt: %q, want %q", c, tc.flag)
			}
		})
	}
}

// A spec's harness: chooses the preset for that spec, whatever the
// executor's kind.
func TestHarnessChoosesPreset(t *testing.T) {
	t.Parallel()
	r, bin, _ := presetRig(t, "command", "---\nharness: codex\n---\n"+specWith(1, ""))
	rep := r.pass(func(o *Options) {
		o.Executor = agent.CommandExecutor{Kind: "command", Argv: []string{"false"}, Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Environ: standinEnviron(bin)}
	})
	if got := countSubjects(rep, "loop: record home row 1"); got != 1 {
		t.Fatalf("transitions %q\n%s", subjectsOf(rep), r.log.String())
	}
	for _, c := range agentstandin.CallsOf(t, bin) {
		if !strings.HasPrefix(c, "codex exec") {
			t.Errorf("call %q, want codex", c)
		}
	}
}

// A spec's budget: stops the entry budget once its admitted returns have
// reported spending it (each stand-in run reports 1200 input and output
// tokens and 34 cached ones, which the budget does not count), before the
// next dispatch; `budget +N | why` raises it and the entry goes on. status
// and why show the spend.
func TestBudgetStopAndRaise(t *testing.T) {
	t.Parallel()
	r, _, opt := presetRig(t, "claude-code", "---\nbudget: 2000 tokens\n---\n"+specWith(2, ""))
	rep := r.pass(opt)
	want := []string{"loop: seed ledger", "loop: dispatch seed", "loop: record home seed", "loop: dispatch row 1", "loop: record home row 1", "loop: stop budget"}
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s\n%s", diff, r.log.String())
	}
	l := r.ledger(ledgerPath)
	if got := l.Delivery.Spent.String(); got != "2400 tokens, $0.0246" {
		t.Errorf("spent: %q", got)
	}
	if got := l.Delivery.Stop.String(); got != "budget | the agents spent 2400 tokens, $0.0246 of a budget of 2000 tokens" {
		t.Errorf("stop: %q", got)
	}
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Status("specs/feature.md").SpendLine(); got != "2400 tokens, $0.0246 of a budget of 2000 tokens" {
		t.Errorf("status spend %q", got)
	}
	if why := strings.Join(snap.Explain("specs/feature.md"), "\n"); !strings.Contains(why, "spent: 2400 tokens, $0.0246 of a budget of 2000 tokens") {
		t.Errorf("why does not show the spend:\n%s", why)
	}
	r.request(ledgerPath, "- budget +5000 tokens | row 2 is worth it")
	rep = r.pass(opt)
	if got := subjectsOf(rep); len(got) < 3 || got[0] != "loop: raise budget" || got[1] != "loop: dispatch row 2" || got[2] != "loop: record home row 2" {
		t.Fatalf("after the grant: %q\n%s", got, r.log.String())
	}
	if got := r.ledger(ledgerPath).Delivery.BudgetGranted.String(); got != "5000 tokens" {
		t.Errorf("budget-granted: %q", got)
	}
}
