package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

// initExecutors are the executor blocks `gallivant init --executor` can
// write, by name: the flag's one list of values, its help and its
// completion all come from here, so a preset added here is offered
// everywhere.
var initExecutors = map[string]string{
	specs.ExecutorNone: `executor:
  # With kind none gallivant seeds ledgers and tracks pull requests, but dispatches
  # no agent. Switch to command or workflow when an agent is ready.
  kind: none                   # claude-code | codex | aider | command | workflow | none
  # command: ["claude", "-p"]  # kind command: the agent's argv; the task brief arrives on stdin
  # workflow: agent.yml        # kind workflow: the workflow_dispatch file in the target repository
` + executorCommon,
	specs.ExecutorCommand: `executor:
  # The command executor runs this argv in a checkout of the target
  # repository, the task brief on standard input (docs/reconcile.md#command).
  kind: command                # claude-code | codex | aider | command | workflow | none
  command: ["claude", "-p"]
  # workflow: agent.yml        # kind workflow: the workflow_dispatch file in the target repository
` + executorCommon,
	specs.ExecutorClaudeCode: presetExecutor(specs.ExecutorClaudeCode, "Claude Code (claude)"),
	specs.ExecutorCodex:      presetExecutor(specs.ExecutorCodex, "OpenAI Codex CLI (codex)"),
	specs.ExecutorAider:      presetExecutor(specs.ExecutorAider, "aider"),
	specs.ExecutorWorkflow: `executor:
  # The workflow executor dispatches this workflow in the target
  # repository, which runs the agent (docs/reconcile.md#workflow lists its inputs).
  kind: workflow               # claude-code | codex | aider | command | workflow | none
  workflow: agent.yml
  # command: ["claude", "-p"]  # kind command: the agent's argv
` + executorCommon,
}

// presetExecutor is the executor block of an agent preset: gallivant runs
// the CLI in a checkout of the target repository (docs/agents.md).
func presetExecutor(kind, cli string) string {
	return `executor:
  # The ` + kind + ` preset runs ` + cli + ` in a checkout of the target repository
  # with the task brief as its prompt (docs/agents.md: install and authenticate it first).
  kind: ` + kind + `
  # command: ["claude", "-p"]  # kind command: the agent's argv; the task brief arrives on stdin
  # workflow: agent.yml        # kind workflow: the workflow_dispatch file in the target repository
` + executorCommon
}

// executorCommon are the executor keys every kind shares, at their defaults.
const executorCommon = `  # timeout: 60m                # Go duration an agent run may take; with a GitHub App keep
  #                             # timeout + grace under an hour, e.g. 50m (docs/github.md)
  # grace: 5m                   # after timeout, before another pass may call a dispatch interrupted
  # replay_budget: 30m          # command executor: total time of one verification's evidence replay
  # escalation_model: ""        # passed on an escalated attempt; empty: it runs on the default model
  # verify: true                # command executor: run the spec's Verify before the pull request opens
  # proof_check: gallivant-proof # workflow, none: the CI job running gallivant prove; without it
  #                             # their pull requests are never labelled ready (docs/verify.md)
  # env: [PATH, HOME, LANG, LC_ALL, TERM, TMPDIR, TZ, USER, LOGNAME, SHELL]
  #                             # the only variables the agent inherits; never a secret
  # run_as: ""                  # run the agent as this user (gallivant must be root)
  # max_parallel: 4             # agent runs of different entries at once
  # max_parallel_per_repo: 2    # at most this many in one repository (default: no bound)
`

// initExecutorNames lists initExecutors' keys, sorted, for help and errors.
func initExecutorNames() []string {
	names := make([]string, 0, len(initExecutors))
	for n := range initExecutors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var branchRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)

type initOptions struct {
	Dir      string
	Executor string
	Repo     string
	Branch   string
}

func (a *app) newInitCmd() *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold a control repository: gallivant.yaml, an example spec and a GitHub Actions workflow",
		Long: `init writes a new control repository into DIR (the current directory by
default): a commented gallivant.yaml with every key at its default, specs/
with one example spec (a draft, so no agent runs until you edit it),
chains/, plans/, and .github/workflows/gallivant.yml, which runs
gallivant reconcile on every push to the control branch and on a schedule,
and gallivant check on pull requests, through gallivant's GitHub Action.

init never overwrites: when any file it would write exists it writes
nothing and names them. It prints the next three steps.

--executor picks the executor block: ` + strings.Join(initExecutorNames(), ", ") + `.
--repo fills defaults.repo, the target repository of specs that name none.`,
		Example: `  gallivant init
  gallivant init control --repo acme/api --executor command`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return a.initRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Executor, "executor", specs.ExecutorNone, "executor block to write: "+strings.Join(initExecutorNames(), ", "))
	cmd.Flags().StringVar(&opts.Repo, "repo", "your-org/your-repo", "the target repository (owner/name) specs default to")
	cmd.Flags().StringVar(&opts.Branch, "branch", "main", "the control branch the workflow reconciles on")
	_ = cmd.RegisterFlagCompletionFunc("executor", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return initExecutorNames(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// scaffoldFile is one file init writes.
type scaffoldFile struct {
	path string // slash-separated, relative to DIR
	body string
}

func (a *app) initRun(opts *initOptions) error {
	block, ok := initExecutors[opts.Executor]
	if !ok {
		return usageError("--executor must be one of %s, got %q", strings.Join(initExecutorNames(), ", "), opts.Executor)
	}
	if !specs.ValidRepo(opts.Repo) {
		return usageError("--repo must be a repository as owner/name, got %q", opts.Repo)
	}
	// The branch is written into YAML unquoted: only plain names.
	if !branchRE.MatchString(opts.Branch) {
		return usageError("--branch must be a branch name of letters, digits, '.', '_', '-' and '/', got %q", opts.Branch)
	}
	files := scaffold(opts, block)
	var exist []string
	for _, f := range files {
		p := filepath.Join(opts.Dir, filepath.FromSlash(f.path))
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return &exitError{code: exitCannotRun, err: fmt.Errorf("init: %w", err)}
		}
	}
	if len(exist) == 1 {
		return &exitError{code: exitCannotRun, err: fmt.Errorf("init writes nothing: %s already exists; move it away or pick another directory", exist[0])}
	}
	if len(exist) > 1 {
		return &exitError{code: exitCannotRun, err: fmt.Errorf("init writes nothing: %s already exist; move them away or pick another directory", strings.Join(exist, ", "))}
	}
	for _, f := range files {
		p := filepath.Join(opts.Dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return &exitError{code: exitCannotRun, err: fmt.Errorf("init: %w", err)}
		}
		// O_EXCL: a file that appeared since the check above is still never overwritten.
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return &exitError{code: exitCannotRun, err: fmt.Errorf("init: %w", err)}
		}
		_, err = w.WriteString(f.body)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return &exitError{code: exitCannotRun, err: fmt.Errorf("init: %w", err)}
		}
		fmt.Fprintf(a.io.Out, "created %s\n", filepath.ToSlash(filepath.Join(opts.Dir, filepath.FromSlash(f.path))))
	}
	cd := ""
	if filepath.Clean(opts.Dir) != "." {
		cd = "cd " + opts.Dir + ", "
	}
	fmt.Fprintf(a.io.Err, `
Next steps:
  1. %sedit specs/example.md (or write your own spec) and run gallivant check.
  2. Commit, and push to the %s branch of a new GitHub repository.
  3. Give the workflow a GitHub App (variable GALLIVANT_APP_ID, secret
     GALLIVANT_APP_PRIVATE_KEY) or a token (secret GALLIVANT_TOKEN);
     docs/github.md lists the permissions. The next push runs a pass.
`, cd, opts.Branch)
	return nil
}

// releaseRef is the git ref of gallivant's own repository that scaffolded
// files point at: the release this binary is, else main.
func releaseRef() string {
	v := version()
	if strings.HasPrefix(v, "v") && !strings.Contains(v, "-0.") && !strings.Contains(v, "+") {
		return v
	}
	return "main"
}

// actionVersion is the gallivant version the scaffolded workflow installs.
func actionVersion() string {
	if r := releaseRef(); r != "main" {
		return r
	}
	return "latest"
}

func scaffold(opts *initOptions, executorBlock string) []scaffoldFile {
	ref := releaseRef()
	r := strings.NewReplacer("{{ref}}", ref, "{{version}}", actionVersion(), "{{repo}}", opts.Repo, "{{branch}}", opts.Branch, "{{executor}}", executorBlock)
	return []scaffoldFile{
		{"gallivant.yaml", r.Replace(configTemplate)},
		{"specs/example.md", r.Replace(exampleSpec)},
		{"specs/README.md", "# specs\n\nOne markdown file per spec; `gallivant check` validates them and\n`gallivant reconcile` drives each one that is not a draft. The grammar is in\nhttps://github.com/gallivant/gallivant/blob/" + ref + "/docs/grammar.md#specs.\n"},
		{"chains/README.md", "# chains\n\nChains order specs into milestones that merge one after another\n(https://github.com/gallivant/gallivant/blob/" + ref + "/docs/grammar.md#chains).\n"},
		{"plans/README.md", "# plans\n\nPlans written for specs, and the ledgers gallivant keeps for them\n(`<spec>-ledger.md`, written by `loop:` commits; do not edit them by hand).\nhttps://github.com/gallivant/gallivant/blob/" + ref + "/docs/plans.md\n"},
		{".github/workflows/gallivant.yml", r.Replace(workflowTemplate)},
	}
}

const configTemplate = `# yaml-language-server: $schema=https://raw.githubusercontent.com/gallivant/gallivant/{{ref}}/docs/schema/gallivant.schema.json
#
# gallivant's configuration. Every key is optional and shows its default;
# commented keys are at their default too. Unknown keys are errors, so
# "gallivant check" catches a typo. Reference:
# https://github.com/gallivant/gallivant/blob/{{ref}}/docs/grammar.md#gallivantyaml
control:
  branch: {{branch}}                 # desired state; loop: commits land here
  specs: [specs]               # directories scanned for specs (recursive, *.md)
  chains: [chains]             # directories scanned for chains
  plans: plans                 # plans and ledgers: <plans>/<spec-stem>-ledger.md
github:
  api_url: https://api.github.com/   # GitHub Enterprise: https://host/api/v3/
  token_env: GITHUB_TOKEN      # the token's variable; GH_TOKEN is read when it is unset
  # A GitHub App instead of a token (docs/github.md): its pull requests
  # start CI. The key is read from $GALLIVANT_APP_PRIVATE_KEY, else this file.
  # app_id: 123456
  # app_installation_id: 7654321  # default: the installation on the control repository
  # app_private_key_file: /path/to/app.private-key.pem
defaults:
  repo: {{repo}}           # target repository when a spec names none
  base: main                   # base branch when a spec names none
  allowance: 4                 # attempts per row when a ledger is seeded
  escalate_after: 3            # failed attempts before the escalation model is used
  max_rounds: 10               # review/fix rounds per pull request
# reviewer:                    # a person whose review clears a pull request; omit for none
#   login: your-login          # required inside the block
#   rereview_minutes: 60
#   stall_hours: 48
labels:
  ready: ready-for-human       # the label on a pull request ready for a person
{{executor}}gatekeep:
  max_prs: 8                   # most pull requests one "gallivant gatekeep" call takes
checks:
  wait: 30m                    # a head with no check run or status stops checks-silent after this
  none: []                     # target repositories (owner/name) without CI
schedule: "@every 5m"          # "gallivant daemon" only; cron syntax or @every <duration>
dashboard_issue: false         # true: one issue in the control repository, its boxes steer entries (docs/requests.md)
# notify:                      # webhook targets (docs/operations.md); omit for none
#   - name: team-chat          # stable: ledgers owe notifications by this name
#     url_env: SLACK_WEBHOOK_URL  # or url: https://…
#     format: slack            # or json (default)
#     on: [stops, ready, done] # also: stuck, resumes
# formats:                     # specs written with GitHub spec-kit or Kiro (docs/grammar.md)
#   spec_kit: [specs]          # <root>/<NNN-feature>/spec.md and tasks.md
#   kiro: [.kiro/specs]        # <root>/<feature>/requirements.md and tasks.md
#   success_criteria: false    # spec-kit: SC-### success criteria are criteria too
#   verify: []                 # commands for a spec without ## Verify
# learning:                    # review feedback becomes proposed lessons (docs/learning.md)
#   control_repo: acme/control # where the lessons pull requests open; default: the control URL's
#   repos: []                  # learn only from these targets; default: every target
`

const exampleSpec = `---
repo: {{repo}}
# A draft is checked but never reconciled: delete this line when the spec
# says what you want built.
status: draft
---
# Health endpoint

**Engine:** loop

## Problem
Load balancers cannot tell whether the service is up.

## Acceptance criteria
1. GET /healthz answers 200 with the body "ok".
2. The endpoint needs no authentication.

## Verify
- ` + "`go test ./...`" + `
`

const workflowTemplate = `# gallivant: reconcile the control repository on every push to {{branch}} and
# on a schedule; check pull requests against it.
# https://github.com/gallivant/gallivant/blob/{{ref}}/docs/github.md
name: gallivant
on:
  push:
    branches: [{{branch}}]
    # loop: commits only touch ledgers; they need no pass of their own.
    paths: ["**", "!plans/**-ledger.md"]
  pull_request:
    branches: [{{branch}}]
  schedule:
    - cron: "*/10 * * * *"
  workflow_dispatch:
permissions:
  contents: read
jobs:
  check:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - uses: actions/checkout@v6
      - uses: gallivant/gallivant@{{ref}}
        with:
          version: {{version}}
          command: check
  reconcile:
    if: github.event_name != 'pull_request'
    runs-on: ubuntu-latest
    # Above executor.timeout (60m by default) plus the pass around it; a
    # hung job is cut off instead of holding the concurrency group for 6h.
    timeout-minutes: 90
    # Passes are safe to overlap, but queueing them wastes no minutes.
    concurrency:
      group: gallivant-reconcile
      cancel-in-progress: false
    permissions:
      contents: write          # loop: commits when no App or token is given
    steps:
      - uses: actions/checkout@v6
      # Preflight: token scopes and access, CI for gallivant's pushes,
      # control branch protection, the agent CLI. Its findings and fixes
      # are in the log; a failed check does not hold the pass back.
      - uses: gallivant/gallivant@{{ref}}
        continue-on-error: true
        with:
          version: {{version}}
          command: doctor
          cache: "false"
          app-id: ${{ vars.GALLIVANT_APP_ID }}
          app-private-key: ${{ secrets.GALLIVANT_APP_PRIVATE_KEY }}
          token: ${{ secrets.GALLIVANT_TOKEN }}
      - uses: gallivant/gallivant@{{ref}}
        with:
          version: {{version}}
          command: reconcile
          # A GitHub App (recommended: its pull requests start CI) ...
          app-id: ${{ vars.GALLIVANT_APP_ID }}
          app-private-key: ${{ secrets.GALLIVANT_APP_PRIVATE_KEY }}
          # ... or a token that can write the target repositories.
          token: ${{ secrets.GALLIVANT_TOKEN }}
`
