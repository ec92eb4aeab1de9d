package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/ledger"
)

// learnVia runs a done entry's learn task with its own executor (a preset
// CLI's) and every other dispatch with the rig's scripted agent, so that
// a learn scenario's delivery stays the one the scripted agent makes.
type learnVia struct {
	agent.CommandExecutor
	learn agent.CommandExecutor
	r     *rig
}

// Run runs t, a learn task with the learn executor.
func (x learnVia) Run(ctx context.Context, t agent.Task) (agent.Outcome, error) {
	if !t.Learn {
		return x.CommandExecutor.Run(ctx, t)
	}
	x.r.mu.Lock()
	x.r.runs = append(x.r.runs, t)
	x.r.mu.Unlock()
	return x.learn.Run(ctx, t)
}

// Intend reserves t's checkout with the executor that runs t: a learn
// task's reservation held in the other executor's checkout would be taken
// over by no Run, and the next learn attempt would wait out the lock.
func (x learnVia) Intend(t agent.Task) error {
	if t.Learn {
		return x.learn.Intend(t)
	}
	return x.CommandExecutor.Intend(t)
}

// Abandon releases the reservation Intend made for t.
func (x learnVia) Abandon(t agent.Task, keep bool) {
	if t.Learn {
		x.learn.Abandon(t, keep)
		return
	}
	x.CommandExecutor.Abandon(t, keep)
}

// PreflightKind names the agent kind that runs t.
func (x learnVia) PreflightKind(t agent.Task) string {
	if t.Learn {
		return x.learn.PreflightKind(t)
	}
	return x.CommandExecutor.PreflightKind(t)
}

// Preflight checks the environment of the executor that runs t.
func (x learnVia) Preflight(ctx context.Context, t agent.Task) (string, error) {
	if t.Learn {
		return x.learn.Preflight(ctx, t)
	}
	return x.CommandExecutor.Preflight(ctx, t)
}

// Recover asks the executor that ran t.
func (x learnVia) Recover(ctx context.Context, t agent.Task) (agent.Recovery, error) {
	if t.Learn {
		return x.learn.Recover(ctx, t)
	}
	return x.CommandExecutor.Recover(ctx, t)
}

// learnUnder makes every pass of r run its learn tasks with the preset of
// kind, the stand-in CLIs first on its PATH; it returns their directory.
func learnUnder(t *testing.T, r *rig, kind string) string {
	t.Helper()
	bin := agentstandin.Write(t)
	r.options = append(r.options, func(o *Options) {
		o.Executor = learnVia{CommandExecutor: o.Executor.(agent.CommandExecutor), r: r,
			learn: agent.CommandExecutor{Kind: kind, Timeout: time.Minute, WorkDir: filepath.Join(r.work, "preset"), Token: r.gh.MainToken(), Environ: standinEnviron(bin)}}
	})
	return bin
}

// The learn task under a preset CLI (docs/learning.md "The learn task",
// docs/agents.md "The result"): the CLI edits the lessons file in its
// checkout of the control repository and ends with `status: done` and a
// decision; the preset completes that into the one return commit on
// gallivant/lessons-acme-api, which is admitted and proposed on the
// control repository, its candidate citing the feedback URL the CLI chose.
func TestLearnUnderPresetCLI(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"claude-code", "codex", "aider"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := newLearnRig(t, learnConfig)
			bin := learnUnder(t, r, kind)
			r.pass()
			rep := r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body.")
			wantSubjects(t, rep, "loop: done acme/api#1", "loop: learn acme/api#1", "loop: propose lessons acme/control#1")
			if calls := agentstandin.CallsOf(t, bin); len(calls) != 1 || !strings.Contains(calls[0], "target=learn") {
				t.Fatalf("the stand-in CLI ran %q, want one learn task", calls)
			}
			reviewURL := "https://github.com/acme/api/pull/1#pullrequestreview-" + strconv.FormatInt(r.as("alice").reviewID(1, "Round to whole cents"), 10)
			branch := r.gh.RepoDir("acme/control")
			msg := run(t, branch, "git", "log", "-1", "--format=%B", "gallivant/lessons-acme-api")
			if !strings.HasPrefix(msg, "Propose lessons for acme/api\n\nadded a lesson citing "+reviewURL+"\n") || !strings.Contains(msg, "\ntokens: ") {
				t.Errorf("the return the preset built:\n%s", msg)
			}
			file := run(t, branch, "git", "show", "gallivant/lessons-acme-api:lessons/acme/api.md")
			if !strings.HasPrefix(file, "# Lessons for acme/api\n\n## Answer every review comment\nsources: "+reviewURL+"\n") {
				t.Errorf("lessons/acme/api.md on the lessons branch:\n%s", file)
			}
			body := r.controlPR(1).GetBody()
			for _, want := range []string{"### Answer every review comment\n", "- " + reviewURL + "\n"} {
				if !strings.Contains(body, want) {
					t.Errorf("the proposal's body lacks %q:\n%s", want, body)
				}
			}
			l := r.ledger(ledgerPath)
			if l.Delivery.Learn.State != ledger.LearnProposed || len(l.Delivery.Learn.Candidates) != 1 {
				t.Errorf("learn: %q, want proposed with 1 candidate", l.Delivery.Learn.String())
			}
			// The learn run's spend, from its return's trailers, counts
			// against the spec's budget: the scripted delivery spent
			// nothing.
			if want := ledger.ReturnSpend(msg); want.Tokens == 0 || l.Spent() != want {
				t.Errorf("spent: %s, want the learn return's %s", l.Spent(), want)
			}
			verifyControl(t, r)
		})
	}
}

// A spec's harness: chooses the learn task's CLI as it does its rows' and
// rounds': here the configured executor is the command executor with no
// command of its own for the learn task, and the spec's `harness: codex`
// runs the learn task under the codex preset.
func TestLearnUnderTheSpecsHarness(t *testing.T) {
	t.Parallel()
	r := newLearnRig(t, learnConfig)
	r.edit("specs/feature.md", func(s string) string { return "---\nharness: codex\n---\n" + s })
	bin := agentstandin.Write(t)
	r.options = append(r.options, func(o *Options) {
		o.Executor = learnVia{CommandExecutor: o.Executor.(agent.CommandExecutor), r: r,
			learn: agent.CommandExecutor{Kind: "command", Timeout: time.Minute, WorkDir: filepath.Join(r.work, "preset"), Token: r.gh.MainToken(), Environ: standinEnviron(bin)}}
	})
	r.pass()
	rep := r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body.")
	wantSubjects(t, rep, "loop: done acme/api#1", "loop: learn acme/api#1", "loop: propose lessons acme/control#1")
	calls := agentstandin.CallsOf(t, bin)
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "codex ") || !strings.Contains(calls[0], "target=learn") {
		t.Fatalf("the stand-in CLIs ran %q, want codex once, for the learn task", calls)
	}
	if lt := r.learnBriefs(); len(lt) != 1 || lt[0].Harness != "codex" {
		t.Errorf("the learn task's harness: %+v", lt)
	}
	msg := run(t, r.gh.RepoDir("acme/control"), "git", "log", "-1", "--format=%B", "gallivant/lessons-acme-api")
	if !strings.HasPrefix(msg, "Propose lessons for acme/api\n") {
		t.Errorf("the return the codex preset built:\n%s", msg)
	}
	verifyControl(t, r)
}

// noneDecision is the decision the stand-in CLIs give with status: none.
const noneDecision = "nothing generalises beyond this change | nothing to propose"

// A preset CLI that answers `status: none` and leaves the checkout as it
// was proposes nothing: no commit on the lessons branch, `loop: no
// lessons` quoting the CLI's decision, no pull request.
func TestLearnUnderPresetCLIProposesNothing(t *testing.T) {
	t.Parallel()
	r := newLearnRig(t, learnConfig)
	bin := learnUnder(t, r, "claude-code")
	agentstandin.Set(t, bin, agentstandin.LearnNone, "")
	r.pass()
	rep := r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body.")
	wantSubjects(t, rep, "loop: done acme/api#1", "loop: learn acme/api#1", "loop: no lessons acme/api#1")
	msg := commitMessage(t, r, "loop: no lessons acme/api#1")
	if !strings.Contains(msg, "> the learn task committed nothing") || !strings.Contains(msg, "\n> the agent's decision, as it gave it: \""+noneDecision+"\"\n") {
		t.Errorf("no lessons does not quote the decision %q:\n%s", noneDecision, msg)
	}
	if _, _, err := r.gh.Client("alice").PullRequests.Get(context.Background(), "acme", "control", 1); err == nil {
		t.Error("a none result was proposed")
	}
	// No commit carries the none run's spend: its usage does.
	if l := r.ledger(ledgerPath); l.Spent().Tokens == 0 {
		t.Errorf("spent: %q, want the none run's tokens", l.Spent())
	}
	verifyControl(t, r)
}

// A preset CLI's learn result that gallivant cannot use is refused with
// the precise, positioned reason — to people in the refusal commit, to the
// agent in its one more attempt's brief — and a second refusal is final:
// here a status the learn result does not have, and a `none` beside a
// changed lessons file.
func TestLearnUnderPresetCLIRefusesAResultItCannotUse(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ result, why string }{
		"a status that is not done or none": {"decision: added it | review\nstatus: failed\n",
			`result line 2: a learn task's status is done (you changed the lessons file) or none (no lesson generalises), got "failed"`},
		"none beside a change": {"status: none\ndecision: nothing generalises | nothing to propose\n",
			"the status is none, but the checkout has changes"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newLearnRig(t, learnConfig)
			bin := learnUnder(t, r, "codex")
			agentstandin.Set(t, bin, agentstandin.Result, tc.result)
			r.pass()
			wantSubjects(t, r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body."),
				"loop: done acme/api#1", "loop: learn acme/api#1", "loop: refuse lessons acme/api#1", "loop: learn acme/api#1", "loop: refuse lessons acme/api#1")
			want := "> the learn task's result could not be completed into a return: the result file .gallivant-result: " + tc.why
			if msg := commitMessage(t, r, "loop: refuse lessons acme/api#1"); !strings.Contains(msg, want) || !strings.Contains(msg, "that was its last attempt") {
				t.Errorf("the refusal does not quote the reason %q:\n%s", want, msg)
			}
			prompt, err := os.ReadFile(filepath.Join(bin, agentstandin.LastLearnPrompt))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(prompt), "## Your last return was refused\n") || !strings.Contains(string(prompt), want) {
				t.Errorf("the second attempt's prompt does not quote the refusal:\n%s", prompt)
			}
			if l := r.ledger(ledgerPath); l.Delivery.Learn.String() != "refused attempt 2" {
				t.Errorf("learn: %q, want refused attempt 2", l.Delivery.Learn.String())
			}
			verifyControl(t, r)
		})
	}
}

// The workflow and none executors run no agent on this machine, so they
// dispatch no learn task, and the pass says why once: here learning: is
// turned on after the delivery, and the pass that would learn from it runs
// with each of them.
func TestLearnNotDispatchedWithoutALocalAgent(t *testing.T) {
	t.Parallel()
	for name, exec := range map[string]Executor{"workflow": agent.WorkflowExecutor{Workflow: "agent.yml"}, "none": agent.NoneExecutor{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newLearnRig(t, strings.TrimSuffix(learnConfig, "learning:\n  control_repo: acme/control\n"))
			r.pass()
			wantSubjects(t, r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body."), "loop: done acme/api#1")
			r.edit("gallivant.yaml", func(string) string { return learnConfig })
			rep := r.pass(func(o *Options) { o.Executor = exec })
			if len(rep.Transitions) != 0 || !strings.Contains(noteOf(rep), "learning: is on but the executor runs no agent on this machine") {
				t.Errorf("a pass with the %s executor: %v\nnotes: %s", name, subjectsOf(rep), noteOf(rep))
			}
			if n := len(r.learnBriefs()); n != 0 {
				t.Errorf("%d learn tasks ran", n)
			}
		})
	}
}
