package reconcile

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Task is one dispatch handed to an executor.
type Task struct {
	Spec, Ledger string
	// Repo is the member repository (owner/name) and CloneURL where git
	// reaches it.
	Repo, CloneURL string
	Branch         string
	// Base is the commit the work branch starts from when it is absent.
	Base    string
	Pending ledger.Pending
	// Iteration is the count the brief carries (before the dispatch bump).
	Iteration int
	Brief     string
	// Model is set on the escalated attempt only.
	Model string
	// DefaultBranch is the member repository's base branch, where a
	// workflow file lives.
	DefaultBranch string
	// Round is set for a review/fix round of the pull-request loop (1, 2,
	// …); Pending is then zero and Brief is a fix brief.
	Round int
}

// name is the task's file name stem: the spec stem and the iteration, or
// the round.
func (t Task) name() string {
	if t.Round > 0 {
		return fmt.Sprintf("%s-round-%d", specs.Stem(t.Spec), t.Round)
	}
	return fmt.Sprintf("%s-%d", specs.Stem(t.Spec), t.Iteration)
}

// what describes the task in logs.
func (t Task) what() string {
	if t.Round > 0 {
		return fmt.Sprintf("round %d", t.Round)
	}
	return fmt.Sprintf("%s iteration %d", t.Pending.String(), t.Iteration)
}

// Outcome is what an executor learned about a run.
type Outcome struct {
	// Finished reports that the run is over (a synchronous executor).
	Finished bool
	// Dirty reports uncommitted changes left in the checkout; nothing was pushed.
	Dirty bool
	// Commits is how many commits the run added locally.
	Commits int
	// Err is a harness failure: the agent could not start, exited non-zero,
	// timed out, or its push was refused.
	Err error
	// Log is the path of the run's kept log.
	Log string
}

// Executor hands a dispatch to an agent. Run is called after the dispatch
// is committed and pushed; a synchronous executor returns when the agent is
// done, an asynchronous one as soon as the task is handed off.
type Executor interface {
	Run(ctx context.Context, t Task) (Outcome, error)
}

// NoneExecutor only records dispatches: an agent elsewhere reads the task
// (`gallivant task`) and pushes its return.
type NoneExecutor struct{}

// Run returns at once; the run is never known to be over before the timeout.
func (NoneExecutor) Run(context.Context, Task) (Outcome, error) { return Outcome{}, nil }

// RecordOnly reports that this executor starts nothing, so a dispatch needs
// no push of its own before it: the pass's final push publishes it, and an
// agent can only read it from the control repository after that.
func (NoneExecutor) RecordOnly() bool { return true }

// recordOnly is implemented by executors that start nothing.
type recordOnly interface{ RecordOnly() bool }

// workflowDispatcher is the part of the GitHub adapter the workflow
// executor uses.
type workflowDispatcher interface {
	ReadWorkflowDispatch(ctx context.Context, repo, workflow, ref string) (WorkflowDispatch, error)
	DispatchWorkflow(ctx context.Context, repo, workflow, ref string, inputs map[string]string) error
}

// WorkflowExecutor triggers a GitHub Actions workflow_dispatch in the member
// repository with the task reference as inputs. The workflow runs the agent
// (it can print the brief with `gallivant task`) and pushes the return.
type WorkflowExecutor struct {
	GitHub   workflowDispatcher
	Workflow string
	// Control names the control repository for the workflow's inputs.
	Control string
}

// Run reads the workflow file on the default branch and dispatches it,
// returning at once. A workflow that does not declare every input the
// executor sends (control, spec, ledger, branch, target, pending,
// iteration, round, model) is refused with a *WorkflowError before
// anything is sent, because GitHub would refuse the dispatch (422).
func (w WorkflowExecutor) Run(ctx context.Context, t Task) (Outcome, error) {
	inputs := map[string]string{
		"control":   w.Control,
		"spec":      t.Spec,
		"ledger":    t.Ledger,
		"branch":    t.Branch,
		"target":    t.Pending.TargetString(),
		"pending":   t.Pending.String(),
		"iteration": fmt.Sprint(t.Iteration),
	}
	if t.Round > 0 {
		inputs["target"], inputs["pending"] = "round", ""
		inputs["round"] = fmt.Sprint(t.Round)
	}
	if t.Model != "" {
		inputs["model"] = t.Model
	}
	ref := t.DefaultBranch
	if ref == "" {
		ref = "main"
	}
	wd, err := w.GitHub.ReadWorkflowDispatch(ctx, t.Repo, w.Workflow, ref)
	if err != nil {
		return Outcome{}, err
	}
	if err := wd.check(t.Repo, w.Workflow, ref, inputs); err != nil {
		return Outcome{}, err
	}
	return Outcome{}, w.GitHub.DispatchWorkflow(ctx, t.Repo, w.Workflow, ref, inputs)
}

// AgentFunc is an in-process agent: it works in dir, a checkout of the work
// branch, reading the brief, and leaves its commits (or its mess) there.
type AgentFunc func(ctx context.Context, dir string, t Task) error

// CommandExecutor runs an agent in a checkout of the member repository on
// the work branch: the brief is written to a file named by GALLIVANT_TASK,
// GALLIVANT_MODEL carries the escalation model on the escalated attempt,
// the run is bounded by Timeout and its log kept. Afterwards it checks the
// local boundary (a clean tree) and pushes the work branch, never forcing.
type CommandExecutor struct {
	Argv    []string
	Timeout time.Duration
	// WorkDir holds checkouts, task files and logs.
	WorkDir string
	// Token authenticates gallivant's own git pushes over https; the agent
	// never sees it.
	Token string
	// Agent runs in place of Argv when set: the demo's and tests' scripted
	// agent.
	Agent AgentFunc
}

// Run prepares the checkout, runs the agent and pushes its work.
func (e CommandExecutor) Run(ctx context.Context, t Task) (Outcome, error) {
	stem := specs.Stem(t.Spec)
	dir := filepath.Join(e.WorkDir, "checkouts", strings.ReplaceAll(t.Repo, "/", "__"), stem)
	logPath := filepath.Join(e.WorkDir, "logs", t.name()+".log")
	out := Outcome{Finished: true, Log: logPath}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return out, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return out, err
	}
	defer logf.Close()
	g := e.git(dir, logf)
	if err := e.prepare(ctx, g, dir, t); err != nil {
		out.Err = fmt.Errorf("prepare the checkout: %w", err)
		return out, nil
	}
	before, err := g.out(ctx, "rev-parse", "HEAD")
	if err != nil {
		out.Err = err
		return out, nil
	}
	taskFile := filepath.Join(e.WorkDir, "tasks", t.name()+".md")
	if err := os.MkdirAll(filepath.Dir(taskFile), 0o755); err != nil {
		return out, err
	}
	if err := os.WriteFile(taskFile, []byte(t.Brief), 0o644); err != nil {
		return out, err
	}
	runCtx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	fmt.Fprintf(logf, "# gallivant: %s %s in %s\n", t.Spec, t.what(), dir)
	if e.Agent != nil {
		out.Err = e.Agent(runCtx, dir, t)
	} else {
		out.Err = e.runCommand(runCtx, dir, taskFile, t, logf)
	}
	if runCtx.Err() != nil && ctx.Err() == nil {
		out.Err = fmt.Errorf("the agent ran past executor.timeout (%s) and was stopped", e.Timeout)
	}
	fmt.Fprintf(logf, "# gallivant: agent finished: %v\n", out.Err)
	status, _ := g.out(ctx, "status", "--porcelain")
	out.Dirty = status != ""
	count, _ := g.out(ctx, "rev-list", "--count", before+"..HEAD")
	fmt.Sscan(count, &out.Commits)
	if out.Dirty || out.Commits == 0 {
		return out, nil
	}
	// Push whatever was committed so that nothing is lost; settling judges
	// it (two commits are a boundary stop, with both commits kept).
	if _, err := g.out(ctx, "push", "--quiet", "origin", "HEAD:refs/heads/"+t.Branch); err != nil {
		out.Err = fmt.Errorf("push the work branch: %w", err)
	}
	return out, nil
}

// prepare makes dir a clean checkout of the work branch.
func (e CommandExecutor) prepare(ctx context.Context, g execGit, dir string, t Task) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		parent := execGit{dir: filepath.Dir(dir), env: g.env, log: g.log}
		if _, err := parent.out(ctx, "clone", "--quiet", "--no-checkout", t.CloneURL, filepath.Base(dir)); err != nil {
			return err
		}
	}
	if _, err := g.out(ctx, "fetch", "--quiet", "--prune", "origin"); err != nil {
		return err
	}
	start := "origin/" + t.Branch
	if _, err := g.out(ctx, "rev-parse", "--verify", "--quiet", start); err != nil {
		start = t.Base
	}
	for _, args := range [][]string{{"checkout", "--quiet", "--force", "-B", t.Branch, start}, {"reset", "--quiet", "--hard", start}, {"clean", "-fdxq"}} {
		if _, err := g.out(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

func (e CommandExecutor) runCommand(ctx context.Context, dir, taskFile string, t Task, logf *os.File) error {
	if len(e.Argv) == 0 {
		return errors.New("executor.command is empty")
	}
	cmd := exec.CommandContext(ctx, e.Argv[0], e.Argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(agentEnv(), "GALLIVANT_TASK="+taskFile, "GALLIVANT_SPEC="+t.Spec, "GALLIVANT_BRANCH="+t.Branch)
	if t.Model != "" {
		cmd.Env = append(cmd.Env, "GALLIVANT_MODEL="+t.Model)
	}
	// The agent runs in its own process group so a timeout stops all of it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the agent %s: %w", e.Argv[0], err)
	}
	return nil
}

// agentEnv is the agent's environment: the reconciler's own, minus GitHub
// credentials. The agent only commits; gallivant pushes.
func agentEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GITHUB_TOKEN", "GH_TOKEN", "GALLIVANT_LIVE_GITHUB_TOKEN", "GIT_ASKPASS", "SSH_ASKPASS":
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (e CommandExecutor) git(dir string, log *os.File) execGit {
	env := []string{"GIT_TERMINAL_PROMPT=0"}
	if e.Token != "" {
		// Credentials go through the environment, never argv or a URL, so
		// they show up in no process list and no log.
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + e.Token))
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+basic)
	}
	return execGit{dir: dir, env: env, log: log}
}

// execGit runs the git binary in a checkout.
type execGit struct {
	dir string
	env []string
	log *os.File
}

func (g execGit) out(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), g.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if g.log != nil && stderr.Len() > 0 {
		g.log.Write(stderr.Bytes())
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, redact(strings.TrimSpace(stderr.String())))
	}
	return strings.TrimSpace(stdout.String()), nil
}
