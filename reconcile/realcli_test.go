//go:build realcli

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/modelserver"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// The real agent CLIs, driven end to end through gallivant by the scripted
// model server on 127.0.0.1. The CLIs are installed by
// scripts/agent-clis.sh (which .ci/run calls) at the versions
// docs/agents.md pins; GALLIVANT_AGENT_CLIS names the directory they were
// installed into. Run with `go test -tags realcli -run RealCLI ./reconcile/`.

// pinned are the CLI versions docs/agents.md names and
// scripts/agent-clis.sh installs.
var pinned = map[string]string{"claude": agent.PinnedClaudeCode + " (Claude Code)", "codex": "codex-cli " + agent.PinnedCodex}

// realCLIs returns the directory that holds the pinned claude and codex,
// or skips the test saying why.
func realCLIs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GALLIVANT_AGENT_CLIS")
	if dir == "" {
		t.Skip("GALLIVANT_AGENT_CLIS is not set: run scripts/agent-clis.sh (npm) and set it to the directory it prints")
	}
	for bin, want := range pinned {
		out, err := exec.Command(filepath.Join(dir, bin), "--version").Output()
		if err != nil {
			t.Skipf("%s is not installed in %s (npm unreachable?): %v", bin, dir, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Fatalf("%s --version is %q; docs/agents.md pins %q (scripts/agent-clis.sh installs it)", bin, got, want)
		}
	}
	return dir
}

var (
	probeRE   = regexp.MustCompile(`probe: git (writable|read-only)`)
	targetRE  = regexp.MustCompile(`(?m)^target: (\S+)`)
	seedRowRE = regexp.MustCompile(`(?m)^- row ([0-9]+):`)
	// taskRE and taskFileRE read a wave task's brief: the filled-in task:
	// line of its return contract and the first path of its Files list.
	taskRE     = regexp.MustCompile(`(?m)^task: (\S+) \| attempt [0-9]+ \| [0-9a-f]{40}$`)
	taskFileRE = regexp.MustCompile(`(?m)^(?:Create|Modify): (\S+)$`)
	// learnFileRE and learnURLRE read a learn task's brief: the lessons
	// file of its header and the first feedback URL it lists.
	learnFileRE = regexp.MustCompile(`(?m)^lessons: (lessons/\S+\.md)$`)
	learnURLRE  = regexp.MustCompile(`(?m)^- (https://\S+) by @`)
)

// modelScript answers like a model: it reads the brief in the prompt,
// changes the checkout and runs the check with the CLI's own shell tool,
// and ends with a final message whose result lines are written as models
// write them — a natural-language seed decision, tabs in the evidence,
// markdown around the lines.
func modelScript(turn modelserver.Turn) modelserver.Step {
	if m := taskRE.FindStringSubmatch(turn.Prompt); m != nil {
		// A wave's task: write its file, look, and answer with a status
		// and a decision in prose and markdown.
		file := "tasks/" + m[1] + ".txt"
		if f := taskFileRE.FindStringSubmatch(turn.Prompt); f != nil {
			file = f[1]
		}
		switch len(turn.Results) {
		case 0:
			return modelserver.Step{Shell: fmt.Sprintf("mkdir -p \"$(dirname %s)\" && printf '// task %s\\n' > %s", file, m[1], file)}
		case 1:
			return modelserver.Step{Shell: "test -f " + file + " && echo written"}
		}
		return modelserver.Step{Final: fmt.Sprintf("Task %s is in place.\n\n- **status:** done\n- decision: wrote %s\t|\ttake the next task\n", m[1], file)}
	}
	target := ""
	if m := targetRE.FindStringSubmatch(turn.Prompt); m != nil {
		target = m[1]
	}
	switch {
	case target == "learn":
		// A learn task: add a lesson citing the first feedback URL the
		// brief lists to the lessons file it names, look, and answer with
		// a status and a decision in prose and markdown.
		file, url := "lessons/unknown.md", "https://github.com/unknown/unknown/pull/1#issuecomment-1"
		if m := learnFileRE.FindStringSubmatch(turn.Prompt); m != nil {
			file = m[1]
		}
		if m := learnURLRE.FindStringSubmatch(turn.Prompt); m != nil {
			url = m[1]
		}
		switch len(turn.Results) {
		case 0:
			return modelserver.Step{Shell: fmt.Sprintf("mkdir -p \"$(dirname %s)\" && { test -s %s || printf '# Lessons for acme/api\\n' > %s; } && printf '\\n## Round to whole cents before adding tax\\nsources: %s\\n\\nRound each amount to whole cents before tax is added.\\n' >> %s", file, file, file, url, file)}
		case 1:
			return modelserver.Step{Shell: "grep -c '^## ' " + file}
		}
		return modelserver.Step{Final: "One piece of feedback generalises, so I added it as a lesson.\n\n- **status:** done\n- decision: added a lesson on rounding before tax\t|\ta person reviews the proposal\n"}
	case target == "seed":
		if len(turn.Results) == 0 {
			return modelserver.Step{Shell: "ls rows 2>&1; echo checked"}
		}
		var b strings.Builder
		b.WriteString("I looked at the checkout: none of the row files exists yet, so every row stays open.\n\n")
		for _, m := range seedRowRE.FindAllStringSubmatch(turn.Prompt, -1) {
			fmt.Fprintf(&b, "- row %s: open | `test -f rows/row-%s.txt`; FAIL:\tmissing\n", m[1], m[1])
		}
		b.WriteString("\nI seeded all of them and closed none on baseline; the first row is the one to take.\n")
		return modelserver.Step{Final: b.String()}
	case target != "":
		switch len(turn.Results) {
		case 0:
			// The probe records whether the agent could write into .git,
			// which the codex sandbox forbids.
			return modelserver.Step{Shell: fmt.Sprintf("mkdir -p rows && printf 'row %s\\n' > rows/row-%s.txt; if touch .git/probe 2>/dev/null; then echo probe: git writable; else echo probe: git read-only; fi", target, target)}
		case 1:
			return modelserver.Step{Shell: fmt.Sprintf("test -f rows/row-%s.txt && echo ok", target)}
		}
		return modelserver.Step{Final: fmt.Sprintf("Done: the row file is written and the check passes.\n\n**status:** done\nevidence: test -f rows/row-%s.txt;\tok\ndecision: wrote rows/row-%s.txt\t|\ttake the next row\n", target, target)}
	}
	// A review round, or anything else: answer with a fix.
	if len(turn.Results) == 0 {
		return modelserver.Step{Shell: "mkdir -p fixes && echo fix > fixes/round.txt"}
	}
	return modelserver.Step{Final: "Fixed.\n\nstatus: done\nevidence: test -f fixes/round.txt; ok\ndecision: answered the round | wait for review\n"}
}

// keepLogs copies the runs' logs into $GALLIVANT_REALCLI_CORPUS when it
// is set: how internal/agent/testdata/cli's corpus of real CLI output is
// refreshed after a version bump.
func keepLogs(t *testing.T, work, prefix string) {
	dst := os.Getenv("GALLIVANT_REALCLI_CORPUS")
	if dst == "" {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(work, "logs", "*.log"))
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			_ = os.WriteFile(filepath.Join(dst, prefix+"-"+filepath.Base(l)), b, 0o644)
		}
	}
}

// writeCodexConfig makes the model server codex's model provider in
// home/.codex/config.toml (codex reads $HOME/.codex when CODEX_HOME is
// unset), owned by uid:gid.
func writeCodexConfig(t *testing.T, home string, srv *modelserver.Server, uid, gid int) {
	t.Helper()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "scripted"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
env_key = "SCRIPTED_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
[otel]
exporter = "none"
`, srv.URL)
	file := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		for _, p := range []string{codexHome, file} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// realCLIEnv sets the environment every real CLI run gets — the pinned
// CLIs first on PATH, HOME in a temp directory, the model server as the
// only API, everything nonessential off — and returns the names for
// executor.env.
func realCLIEnv(t *testing.T, bin string, srv *modelserver.Server, home string) []string {
	t.Helper()
	writeCodexConfig(t, home, srv, -1, -1)
	vars := map[string]string{
		"PATH":               bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":               home,
		"ANTHROPIC_BASE_URL": srv.URL,
		"ANTHROPIC_API_KEY":  "sk-ant-scripted",
		"SCRIPTED_API_KEY":   "sk-scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_NONESSENTIAL_TRAFFIC":             "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"CLAUDE_CODE_MAX_RETRIES":                  "0",
		"NO_PROXY":                                 "127.0.0.1",
	}
	var names []string
	for k, v := range vars {
		t.Setenv(k, v)
		names = append(names, k)
	}
	return names
}

// agentUser creates a normal user for run_as when the test runs as root
// (useradd), removed when the test ends; "" when it cannot.
func agentUser(t *testing.T, srv *modelserver.Server) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return ""
	}
	name := "gvrealcli"
	_ = exec.Command("userdel", "-r", name).Run()
	if out, err := exec.Command("useradd", "-m", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Logf("useradd: %v: %s", err, out)
		return ""
	}
	t.Cleanup(func() { _ = exec.Command("userdel", "-r", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	writeCodexConfig(t, u.HomeDir, srv, uid, gid)
	return name
}

// A spec goes from seed to an open pull request with each real CLI, as
// the user gallivant runs as (root here, so Claude Code needs IS_SANDBOX)
// and as a normal user (executor.run_as): the seed's natural-language
// decision and the rows' tabbed evidence are admitted without a stop, and
// the returns carry the CLI's usage with the cache apart. codex runs in
// its workspace-write sandbox, which keeps .git read-only.
func TestRealCLISeedToPullRequest(t *testing.T) {
	bin := realCLIs(t)
	var mu sync.Mutex
	probes := map[string]int{}
	srv := modelserver.Start(t, func(turn modelserver.Turn) modelserver.Step {
		for _, r := range turn.Results {
			if m := probeRE.FindString(r); m != "" {
				mu.Lock()
				probes[turn.API+" "+m]++
				mu.Unlock()
			}
		}
		return modelScript(turn)
	})
	envNames := realCLIEnv(t, bin, srv, t.TempDir())
	runAs := agentUser(t, srv)
	type cliRun struct{ kind, runAs string }
	runs := []cliRun{{"claude-code", ""}, {"codex", ""}}
	if runAs != "" {
		runs = append(runs, cliRun{"claude-code", runAs}, cliRun{"codex", runAs})
	} else {
		t.Log("not root: the runs as a normal user (executor.run_as) are skipped")
	}
	for _, tc := range runs {
		name := tc.kind + "/as-gallivant"
		if tc.runAs != "" {
			name = tc.kind + "/as-" + tc.runAs
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
			if tc.runAs != "" {
				// The agent's user reaches its checkout under the work dir.
				for d := r.work; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
					os.Chmod(d, 0o755)
				}
			}
			opt := func(o *Options) {
				o.Executor = agent.CommandExecutor{Kind: tc.kind, Timeout: 2 * time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Env: envNames, RunAs: tc.runAs}
			}
			rep := r.pass(opt)
			want := andDelivered(
				"loop: seed ledger",
				"loop: dispatch seed", "loop: record home seed",
				"loop: dispatch row 1", "loop: record home row 1",
				"loop: dispatch row 2", "loop: record home row 2",
			)
			if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
				logs, _ := filepath.Glob(filepath.Join(r.work, "logs", "*.log"))
				var tail string
				for _, l := range logs {
					b, _ := os.ReadFile(l)
					tail += "== " + l + "\n" + string(b[max(0, len(b)-3000):]) + "\n"
				}
				t.Fatalf("transitions (-want +got):\n%s\nnotes %+v\n%s\n%s", diff, rep.Notes, r.log.String(), tail)
			}
			keepLogs(t, r.work, strings.ReplaceAll(name, "/", "-"))
			if testing.Verbose() {
				logs, _ := filepath.Glob(filepath.Join(r.work, "logs", "*.log"))
				for _, l := range logs {
					b, _ := os.ReadFile(l)
					t.Logf("%s:\n%s", filepath.Base(l), b)
				}
			}
			l := r.ledger(ledgerPath)
			for _, row := range l.Rows {
				if row.Status != ledger.Done {
					t.Errorf("row %d is %s, want done", row.N, row.Status)
				}
			}
			mu.Lock()
			if tc.kind == "codex" && (probes["responses probe: git writable"] > 0 || probes["responses probe: git read-only"] == 0) {
				t.Errorf("codex's agent wrote into .git: the workspace-write sandbox is not in force (%v)", probes)
			}
			mu.Unlock()
			msg := run(t, r.gh.RepoDir("acme/api"), "git", "log", "-1", "--format=%B", "gallivant/feature")
			if !strings.Contains(msg, "| 2 | done | 1 | test -f rows/row-2.txt; ok |") || !strings.Contains(msg, "\ntokens: ") || !strings.Contains(msg, "\ncached: ") {
				t.Errorf("the last return:\n%s", msg)
			}
		})
	}
}

// A revoked key: the model's API answers 401. Each CLI's own failure
// fields (Claude Code's is_error/api_error_status/result, codex's
// turn.failed) reach the pass's one problem, which names the cause rather
// than "exit status 1"; the dispatch is withdrawn, not stopped, and the CLI
// gives up at once rather than retrying for minutes. Once the API answers
// again, the next pass runs the entry on with no person involved.
func TestRealCLIAuthFailureNamed(t *testing.T) {
	bin := realCLIs(t)
	srv := modelserver.Start(t, modelScript)
	envNames := realCLIEnv(t, bin, srv, t.TempDir())
	// One server for both CLIs, refusing and then answering: the
	// subtests run one after the other.
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			srv.Refuse(&modelserver.Refusal{Status: 401, Message: "invalid x-api-key"})
			r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
			opt := func(o *Options) {
				o.Executor = agent.CommandExecutor{Kind: kind, Timeout: 2 * time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Env: envNames}
			}
			rep := r.pass(opt)
			keepLogs(t, r.work, kind+"-401")
			var problems []string
			for _, n := range rep.Notes {
				if n.Problem {
					problems = append(problems, n.Message)
				}
			}
			if len(problems) != 1 || !strings.Contains(problems[0], "the agent could not authenticate: ") || !strings.Contains(problems[0], "401") {
				t.Fatalf("problems %q, want one naming the authentication failure", problems)
			}
			if strings.Contains(problems[0], "exit status") {
				t.Errorf("problem %q still says only the exit status", problems[0])
			}
			l := r.ledger(ledgerPath)
			if stop := l.Delivery.Stop.String(); !l.Delivery.Stop.IsZero() {
				t.Errorf("the entry stopped: %q", stop)
			}
			if got := countSubjects(rep, "loop: withdraw seed"); got != 1 {
				t.Errorf("transitions %q, want the seed's dispatch withdrawn", subjectsOf(rep))
			}
			srv.Refuse(nil)
			rep = r.pass(opt)
			if got := countSubjects(rep, "loop: record home seed"); got != 1 || countSubjects(rep, "loop: stop") != 0 {
				t.Errorf("once the API answers: %q, want the seed recorded and no stop", subjectsOf(rep))
			}
		})
	}
}

// A waves spec's tasks run under each real CLI: the wave's two tasks at
// once, then the next wave, each CLI ending with a status and a decision
// that the preset completes into the task's return (docs/plans.md "Wave
// execution"), admitted and applied to the work branch in plan order.
func TestRealCLIWaveTasks(t *testing.T) {
	bin := realCLIs(t)
	srv := modelserver.Start(t, modelScript)
	envNames := realCLIEnv(t, bin, srv, t.TempDir())
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := wavesRig(t, nil)
			opt := func(o *Options) {
				o.Executor = agent.CommandExecutor{Kind: kind, Timeout: 2 * time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Env: envNames}
			}
			rep, err := r.reconciler(opt, func(o *Options) { o.Crash = rowsStart }).Pass(context.Background())
			if !errors.Is(err, errRowsStart) {
				t.Fatalf("the pass ended with %v before the rows started\nnotes: %s\n%s", err, noteOf(rep), sentencesOf(rep))
			}
			keepLogs(t, r.work, kind+"-waves")
			l := r.ledger("plans/001-rate-limit-ledger.md")
			for _, id := range []string{"T001", "T002", "T003"} {
				if tk, _ := l.Task(id); tk.Status != ledger.TaskDone || tk.Attempts != 1 {
					t.Errorf("task %s is %s after %d attempts, want done after 1\n%s", id, tk.Status, tk.Attempts, sentencesOf(rep))
				}
			}
			work := r.gh.RepoDir("acme/api")
			for id, file := range map[string]string{"T001": "ratelimit/window.go", "T002": "ratelimit/respond.go", "T003": "ratelimit/doc.go"} {
				msg := run(t, work, "git", "log", "--format=%B", "-1", "--grep=^task: "+id+" | attempt 1 | ", "gallivant/001-rate-limit")
				if !strings.HasPrefix(msg, "loop: task "+id+" done\n\ntask: "+id+" | attempt 1 | ") || !strings.Contains(msg, "\n\nwrote "+file+"\n") || !strings.Contains(msg, "\ntokens: ") {
					t.Errorf("task %s's commit on the work branch:\n%s", id, msg)
				}
			}
			verifyControl(t, r)
		})
	}
}

// A done entry's learn task runs under each real CLI (docs/learning.md
// "The learn task"): the CLI edits the lessons file in its checkout of the
// control repository with its own shell tool and ends with a status and a
// decision in prose and markdown, which the preset completes into the one
// return commit; it is admitted and opened as a pull request on the control
// repository, its candidate citing the review the CLI chose. The delivery
// before it is the scripted agent's.
func TestRealCLILearnTask(t *testing.T) {
	bin := realCLIs(t)
	srv := modelserver.Start(t, modelScript)
	envNames := realCLIEnv(t, bin, srv, t.TempDir())
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := newLearnRig(t, learnConfig)
			r.options = append(r.options, func(o *Options) {
				o.Executor = learnVia{CommandExecutor: o.Executor.(agent.CommandExecutor), r: r,
					learn: agent.CommandExecutor{Kind: kind, Timeout: 2 * time.Minute, WorkDir: filepath.Join(r.work, "preset"), Token: r.gh.MainToken(), Env: envNames}}
			})
			r.pass()
			rep := r.deliverAfterTwoRounds(1, work, "Round to whole cents before adding tax.", "Never log the request body.")
			keepLogs(t, filepath.Join(r.work, "preset"), kind+"-learn")
			if got := subjectsOf(rep); !cmp.Equal(got, []string{"loop: done acme/api#1", "loop: learn acme/api#1", "loop: propose lessons acme/control#1"}) {
				t.Fatalf("the merge pass: %q\nnotes: %s\n%s", got, noteOf(rep), sentencesOf(rep))
			}
			reviewURL := "https://github.com/acme/api/pull/1#pullrequestreview-" + strconv.FormatInt(r.as("alice").reviewID(1, "Round to whole cents"), 10)
			msg := run(t, r.gh.RepoDir("acme/control"), "git", "log", "-1", "--format=%B", "gallivant/lessons-acme-api")
			if !strings.HasPrefix(msg, "Propose lessons for acme/api\n\nadded a lesson on rounding before tax\n") || !strings.Contains(msg, "\ntokens: ") {
				t.Errorf("the return the preset built:\n%s", msg)
			}
			body := r.controlPR(1).GetBody()
			for _, want := range []string{"### Round to whole cents before adding tax\n", "- " + reviewURL + "\n"} {
				if !strings.Contains(body, want) {
					t.Errorf("the proposal's body lacks %q:\n%s", want, body)
				}
			}
			if l := r.ledger(ledgerPath); l.Delivery.Learn.State != ledger.LearnProposed || len(l.Delivery.Learn.Candidates) != 1 {
				t.Errorf("learn: %q, want proposed with 1 candidate", l.Delivery.Learn.String())
			}
			verifyControl(t, r)
		})
	}
}
