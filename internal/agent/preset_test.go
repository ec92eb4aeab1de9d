package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=person@example.com",
		"GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// remoteRepo is a bare repository with one commit on main, standing in
// for the member repository; it returns its path and main's commit.
func remoteRepo(t *testing.T) (string, string) {
	src := t.TempDir()
	gitIn(t, src, "init", "--quiet", "--initial-branch=main")
	if err := os.WriteFile(filepath.Join(src, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "init")
	bare := filepath.Join(t.TempDir(), "api.git")
	gitIn(t, src, "clone", "--quiet", "--bare", src, bare)
	return bare, gitIn(t, bare, "rev-parse", "main")
}

const rowBrief = "# Task\n\n```text\niteration: 4\ntarget: 1\nattempts: 1\npending: 1 | home | %s\n```\n"

// runPreset runs one row dispatch through kind with the stand-ins first
// on PATH and returns the outcome and the remote.
func runPreset(t *testing.T, kind string, steer map[string]string) (Outcome, string, string) {
	bin := agentstandin.Write(t)
	for k, v := range steer {
		agentstandin.Set(t, bin, k, v)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	remote, base := remoteRepo(t)
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: strings.ReplaceAll(rowBrief, "%s", base)}
	e := CommandExecutor{Kind: kind, Timeout: time.Minute, WorkDir: t.TempDir()}
	out, err := e.Run(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	return out, remote, base
}

// An agent that commits its work with a message of its own, then writes
// the result, ends with exactly one return commit: its commit squashed
// with the message built from the result, which admission's parser takes.
func TestPresetSquashesMalformedCommit(t *testing.T) {
	out, remote, base := runPreset(t, "claude-code", map[string]string{agentstandin.CommitFirst: ""})
	if out.Err != nil || out.Dirty || out.Commits != 1 {
		t.Fatalf("outcome %+v", out)
	}
	if n := gitIn(t, remote, "rev-list", "--count", base+"..gallivant/feature"); n != "1" {
		t.Fatalf("%s commits on the work branch, want 1", n)
	}
	msg := gitIn(t, remote, "log", "-1", "--format=%B", "gallivant/feature")
	want := "loop: row 1 done\n\npending: 1 | home | " + base + "\niteration: 5\n\n| 1 | done | 2 | test -f rows/row-1.txt; ok |\n\nrow 1 done | row file written | take the next row\n\ntokens: 1200\ncached: 34\ncost: 0.0123"
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Errorf("return message (-want +got):\n%s", diff)
	}
	subject, body, _ := strings.Cut(msg, "\n\n")
	if _, err := ledger.ParseReturn(subject, body); err != nil {
		t.Errorf("admission's parser refuses the built return: %v", err)
	}
	if files := gitIn(t, remote, "show", "--name-only", "--format=", "gallivant/feature"); files != "rows/row-1.txt" {
		t.Errorf("the return changes %q, want the agent's file", files)
	}
}

// A result file the preset cannot use fails the run with the reason, and
// nothing is committed or pushed in the agent's name.
func TestPresetRefusesMalformedResult(t *testing.T) {
	out, remote, _ := runPreset(t, "codex", map[string]string{agentstandin.Result: "status: maybe\nevidence: x\ndecision: a | b\n"})
	if out.Err == nil || !strings.Contains(out.Err.Error(), `status is done or failed, got "maybe"`) {
		t.Fatalf("error %v, want the result file's problem", out.Err)
	}
	if !out.Dirty || out.Commits != 0 {
		t.Errorf("outcome %+v, want the agent's work left uncommitted", out)
	}
	if got := gitIn(t, remote, "branch", "--list", "gallivant/feature"); got != "" {
		t.Errorf("the work branch was pushed: %q", got)
	}
	log, _ := os.ReadFile(out.Log)
	if !strings.Contains(string(log), "status is done or failed") {
		t.Errorf("the log does not say why:\n%s", log)
	}
}

// jsonString is s as a JSON string literal, for the stand-ins' Final and
// Fail steers.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The result travels in the CLI's final message — Claude Code's result
// field, codex's last agent message — with tabs, markdown and prose around
// it, and nothing written outside the checkout: the preset builds the one
// return from it, and the result file never enters the commit.
func TestPresetResultInFinalMessage(t *testing.T) {
	final := "All done.\n\n**status:** done\nevidence: `test -f rows/row-1.txt`;\tok\ndecision: wrote it\t|\tnext row\n"
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			out, remote, base := runPreset(t, kind, map[string]string{agentstandin.Final: jsonString(t, final)})
			if out.Err != nil || out.Dirty || out.Commits != 1 {
				t.Fatalf("outcome %+v", out)
			}
			msg := gitIn(t, remote, "log", "-1", "--format=%B", "gallivant/feature")
			head := "loop: row 1 done\n\npending: 1 | home | " + base + "\niteration: 5\n\n| 1 | done | 2 | test -f rows/row-1.txt; ok |\n\nrow 1 done | wrote it | next row\n\n"
			if !strings.HasPrefix(msg, head) {
				t.Errorf("return message (-want +got):\n%s", cmp.Diff(head, msg))
			}
			if files := gitIn(t, remote, "show", "--name-only", "--format=", "gallivant/feature"); files != "rows/row-1.txt" {
				t.Errorf("the return changes %q, want only the agent's file", files)
			}
		})
	}
}

// A CLI that reports a failure in its own fields fails the run with that
// cause, named as an environment failure, not "exit status 1".
func TestPresetFailureNamed(t *testing.T) {
	for _, kind := range []string{"claude-code", "codex"} {
		t.Run(kind, func(t *testing.T) {
			out, _, _ := runPreset(t, kind, map[string]string{agentstandin.Fail: jsonString(t, "401 invalid x-api-key")})
			if out.Err == nil || !strings.Contains(out.Err.Error(), `the agent could not authenticate: "401 invalid x-api-key"`) {
				t.Fatalf("error %v, want the CLI's cause", out.Err)
			}
			if !IsEnvironment(out.Err) {
				t.Errorf("%v is not an environment failure", out.Err)
			}
		})
	}
}

// Claude Code refuses bypassPermissions as root without IS_SANDBOX=1: the
// preset sets it exactly when the agent runs as root.
func TestPresetEnvIsSandbox(t *testing.T) {
	got := presetEnv("claude-code", nil)
	if os.Geteuid() == 0 {
		if diff := cmp.Diff([]string{"IS_SANDBOX=1"}, got); diff != "" {
			t.Errorf("as root (-want +got):\n%s", diff)
		}
	} else if got != nil {
		t.Errorf("not root: %q, want nothing", got)
	}
	if got := presetEnv("claude-code", &syscall.Credential{Uid: 10001}); got != nil {
		t.Errorf("run_as: %q, want nothing", got)
	}
	if got := presetEnv("codex", nil); got != nil {
		t.Errorf("codex: %q, want nothing", got)
	}
}

// The preflight finds the CLI on the agent's PATH, reads its version, and
// asks claude whether it is logged in; each failure is an environment
// failure that says what to do.
func TestPreflight(t *testing.T) {
	dir := t.TempDir()
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("claude", "#!/bin/sh\ncase \"$1\" in --version) echo '2.1.197 (Claude Code)' ;; auth) [ -n \"$ANTHROPIC_API_KEY\" ] || { echo '{\"loggedIn\": false}'; exit 1; } ;; esac\n")
	write("codex", "#!/bin/sh\necho 'codex-cli 0.171.0'\n")
	path := "PATH=" + dir + ":/usr/bin:/bin"
	tests := []struct {
		name, kind string
		env        []string
		version    string
		kindErr    FailureKind
		err        string
	}{
		{"claude logged in", "claude-code", []string{path, "ANTHROPIC_API_KEY=k"}, "2.1.197 (Claude Code)", "", ""},
		{"claude not logged in", "claude-code", []string{path}, "2.1.197 (Claude Code)", FailureAuth, "claude auth status: not logged in"},
		{"codex", "codex", []string{path}, "codex-cli 0.171.0", "", ""},
		{"aider missing", "aider", []string{path}, "", FailureMissing, "aider is not on the agent's PATH"},
		{"no PATH", "codex", nil, "", FailureMissing, "codex is not on the agent's PATH"},
		{"command has no preflight", "command", []string{path}, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			version, err := Preflight(context.Background(), tc.kind, tc.env, nil)
			if version != tc.version {
				t.Errorf("version %q, want %q", version, tc.version)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			var f *Failure
			if !errors.As(err, &f) || f.Kind != tc.kindErr || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want a %s failure containing %q", err, tc.kindErr, tc.err)
			}
		})
	}
}

func TestInvocation(t *testing.T) {
	e := CommandExecutor{Argv: []string{"my-agent", "--flag"}}
	task := Task{Brief: "the brief\n"}
	escalated := task
	escalated.Model = "big"
	budgeted := task
	budgeted.MaxBudgetMicros = 1_250_000
	prompt := presetPreamble + "the brief\n"
	tests := []struct {
		name, kind string
		t          Task
		session    string
		want       invocation
	}{
		{"claude resumes", "claude-code", escalated, "s-1", invocation{argv: []string{"claude", "-p", "--output-format", "json", "--permission-mode", "bypassPermissions", "--model", "big", "--resume", "s-1"}, stdin: prompt, resumed: "s-1"}},
		{"codex resumes", "codex", escalated, "t-1", invocation{argv: []string{"codex", "exec", "resume", "t-1", "--json", "-c", `sandbox_mode="workspace-write"`, "-c", `model="big"`, "-"}, stdin: prompt, resumed: "t-1"}},
		{"claude", "claude-code", task, "", invocation{argv: []string{"claude", "-p", "--output-format", "json", "--permission-mode", "bypassPermissions"}, stdin: prompt}},
		{"claude escalated", "claude-code", escalated, "", invocation{argv: []string{"claude", "-p", "--output-format", "json", "--permission-mode", "bypassPermissions", "--model", "big"}, stdin: prompt}},
		{"claude with a dollar budget", "claude-code", budgeted, "", invocation{argv: []string{"claude", "-p", "--output-format", "json", "--permission-mode", "bypassPermissions", "--max-budget-usd", "1.25"}, stdin: prompt}},
		{"codex", "codex", task, "", invocation{argv: []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "-"}, stdin: prompt}},
		{"codex has no budget flag", "codex", budgeted, "", invocation{argv: []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "-"}, stdin: prompt}},
		{"aider has no budget flag", "aider", budgeted, "", invocation{argv: []string{"aider", "--message-file", "/p.md", "--yes-always", "--no-auto-commits", "--no-gitignore", "--no-detect-urls", "--no-analytics", "--no-show-release-notes", "--no-check-update", "--no-pretty", "--no-stream"}}},
		{"codex escalated", "codex", escalated, "", invocation{argv: []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "--model", "big", "-"}, stdin: prompt}},
		{"aider", "aider", task, "", invocation{argv: []string{"aider", "--message-file", "/p.md", "--yes-always", "--no-auto-commits", "--no-gitignore", "--no-detect-urls", "--no-analytics", "--no-show-release-notes", "--no-check-update", "--no-pretty", "--no-stream"}}},
		{"aider escalated", "aider", escalated, "", invocation{argv: []string{"aider", "--message-file", "/p.md", "--yes-always", "--no-auto-commits", "--no-gitignore", "--no-detect-urls", "--no-analytics", "--no-show-release-notes", "--no-check-update", "--no-pretty", "--no-stream", "--model", "big"}}},
		{"command gets the brief on stdin", "command", task, "", invocation{argv: []string{"my-agent", "--flag"}, stdin: "the brief\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.invocation(tc.t, tc.kind, "/p.md", tc.session)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(invocation{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := (CommandExecutor{}).invocation(task, "command", "", ""); err == nil {
		t.Errorf("an empty executor.command was accepted")
	}
}

func TestParseUsage(t *testing.T) {
	tests := []struct {
		name, kind, out string
		want            Usage
	}{
		{"claude json", "claude-code", `{"type":"result","session_id":"s1","total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}}`,
			Usage{Tokens: 15, Cached: 3, Cost: "0.5000", Session: "s1"}},
		{"claude final message", "claude-code", `{"type":"result","subtype":"success","is_error":false,"result":"done\nstatus: done","session_id":"s1"}`,
			Usage{Session: "s1", Final: "done\nstatus: done"}},
		{"claude 401", "claude-code", `{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"result":"Invalid API key · Fix external API key","session_id":"s1","total_cost_usd":0}`,
			Usage{Session: "s1", Cost: "0.0000", Failure: &Failure{Kind: FailureAuth, Status: 401, Cause: "Invalid API key · Fix external API key"}}},
		{"claude quota in words", "claude-code", `{"type":"result","is_error":true,"result":"API Error: Credit balance is too low"}`,
			Usage{Failure: &Failure{Kind: FailureQuota, Cause: "API Error: Credit balance is too low"}}},
		{"codex final message and cached input", "codex", "{\"type\":\"item.completed\",\"item\":{\"id\":\"i0\",\"type\":\"agent_message\",\"text\":\"first\"}}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"status: done\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":80,\"output_tokens\":5}}\n",
			Usage{Tokens: 25, Cached: 80, Final: "status: done"}},
		{"codex turn.failed", "codex", "{\"type\":\"error\",\"message\":\"Reconnecting... 1/5\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"unexpected status 401 Unauthorized: invalid api key\"}}\n",
			Usage{Failure: &Failure{Kind: FailureAuth, Status: 401, Cause: "unexpected status 401 Unauthorized: invalid api key"}}},
		{"codex error only", "codex", "{\"type\":\"error\",\"message\":\"stream disconnected before completion: error sending request\"}\n",
			Usage{Failure: &Failure{Kind: FailureNetwork, Cause: "stream disconnected before completion: error sending request"}}},
		{"aider current usage lines", "aider", "Tokens: 2.1k sent, 1.5k cache write, 10k cache hit, 300 received.\nCost: $0.01 message, $0.02 session.\n",
			Usage{Tokens: 900, Cached: 11500, Cost: "0.02"}},
		{"aider cache hit only", "aider", "Tokens: 12 sent, 40 cache hit, 3 received.\n", Usage{Tokens: 15, Cached: 40}},
		{"claude not json", "claude-code", "plain text", Usage{}},
		{"claude negative cost", "claude-code", `{"total_cost_usd":-1}`, Usage{}},
		{"codex jsonl", "codex", "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\nnoise\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"output_tokens\":3}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}\n",
			Usage{Tokens: 12, Session: "t1"}},
		{"aider", "aider", "Tokens: 1.5k sent, 250 received. Cost: $0.02 message, $0.02 session.\nTokens: 2k sent, 1k received. Cost: $0.03 message, $0.05 session.\n",
			Usage{Tokens: 4750, Cost: "0.05"}},
		{"aider without cost", "aider", "Tokens: 12 sent, 3 received.\n", Usage{Tokens: 15}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, parseUsage(tc.kind, []byte(tc.out))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A preset run whose reconciler died after the agent wrote its result but
// before the return was built is completed by the next pass's Recover:
// one return commit, pushed.
func TestRecoverCompletesPresetReturn(t *testing.T) {
	remote, base := remoteRepo(t)
	e := CommandExecutor{Kind: "claude-code", Timeout: time.Minute, WorkDir: t.TempDir()}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: strings.ReplaceAll(rowBrief, "%s", base)}
	ctx := context.Background()
	// What the dead reconciler left: the checkout with the agent's change,
	// the run record and the result file.
	dir, mirror := e.checkoutDir(task), e.mirrorDir(task)
	before, err := e.prepareOrRepair(ctx, e.git(mirror, nil), mirror, dir, task, nil, &Outcome{})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRunRecord(dir, runRecord{Spec: task.Spec, Branch: task.Branch, Pending: task.Pending.String(), Iteration: task.Iteration, Before: before, Kind: "claude-code", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "row-1.txt"), []byte("done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	result := resultPath(dir)
	if err := prepareResult(result, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(result, []byte("status: done\nevidence: test -f row-1.txt; ok\ndecision: written | next\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := e.Recover(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Known || rc.Outcome.Err != nil || rc.Outcome.Dirty || rc.Outcome.Commits != 1 {
		t.Fatalf("recovery %+v", rc)
	}
	if msg := gitIn(t, remote, "log", "-1", "--format=%s", "gallivant/feature"); msg != "loop: row 1 done" {
		t.Errorf("pushed %q, want the built return", msg)
	}
}

// The real CLIs' own output (testdata/cli) yields the final message, the
// usage with the cache apart, and the failure, named.
func TestParseUsageCorpus(t *testing.T) {
	tests := []struct {
		file, kind string
		tokens     int64
		cached     int64
		final      string // a substring of the final message
		failure    FailureKind
		cost       string // the session's cost, when the file gives one
	}{
		{"claude-2.1.197-seed.json", "claude-code", 240, 2020, "row 1: open", "", ""},
		{"claude-2.1.197-row.json", "claude-code", 360, 3030, "**status:** done", "", ""},
		{"claude-2.1.197-401.json", "claude-code", 0, 0, "", FailureAuth, ""},
		{"codex-0.171.0-seed.jsonl", "codex", 240, 2000, "row 1: open", "", ""},
		{"codex-0.171.0-row.jsonl", "codex", 360, 3000, "**status:** done", "", ""},
		{"codex-0.171.0-401.jsonl", "codex", 0, 0, "", FailureAuth, ""},
		{"aider-0.86-row.txt", "aider", 2010, 14500, "", "", "0.02"},
		{"aider-0.86-rows.txt", "aider", 1625 + 16516, 0, "", "", "0.05"},
		{"aider-0.86-local.txt", "aider", 812 + 640, 0, "", "", ""},
		{"aider-0.86-auth.txt", "aider", 0, 0, "", FailureAuth, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			out, err := os.ReadFile(filepath.Join("testdata", "cli", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			u := parseUsage(tc.kind, out)
			if u.Tokens != tc.tokens || u.Cached != tc.cached {
				t.Errorf("tokens %d cached %d, want %d and %d", u.Tokens, u.Cached, tc.tokens, tc.cached)
			}
			if !strings.Contains(u.Final, tc.final) {
				t.Errorf("final %q, want it to contain %q", u.Final, tc.final)
			}
			if tc.cost != "" && u.Cost != tc.cost {
				t.Errorf("cost %q, want %q", u.Cost, tc.cost)
			}
			var got FailureKind
			if u.Failure != nil {
				got = u.Failure.Kind
			}
			if got != tc.failure {
				t.Errorf("failure %+v, want kind %q", u.Failure, tc.failure)
			}
			if tc.final != "" {
				if _, err := ParseResult(ExtractResult(u.Final)); err != nil {
					t.Errorf("the final message's result: %v", err)
				}
			}
		})
	}
}

func FuzzParseUsage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cli", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, kind := range []string{"claude-code", "codex", "aider"} {
			u := parseUsage(kind, out)
			if u.Tokens < 0 || u.Cached < 0 {
				t.Errorf("%s: negative usage %+v", kind, u)
			}
			if len(u.Final) > MaxResult || len(u.Session) > 200 {
				t.Errorf("%s: unbounded final message or session", kind)
			}
			if u.Failure != nil && (len([]rune(u.Failure.Cause)) > 301 || strings.ContainsAny(u.Failure.Cause, "\n\r\t\x1b")) {
				t.Errorf("%s: failure cause not one bounded line: %q", kind, u.Failure.Cause)
			}
		}
	})
}

// A failed run whose output says nothing is explained by the preflight,
// as the agent's user: here, claude is not logged in. Without a cause the
// run's own error stays.
func TestExplainByPreflight(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in --version) echo '2.1.197 (Claude Code)' ;; auth) [ -n \"$ANTHROPIC_API_KEY\" ] || exit 1 ;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runErr := errors.New("the agent claude: exit status 1")
	err := explain(context.Background(), "claude-code", []string{"PATH=" + dir + ":/usr/bin:/bin"}, nil, []byte("not json"), runErr)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != FailureAuth || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("error %v, want the preflight's auth failure with the run's error", err)
	}
	err = explain(context.Background(), "claude-code", []string{"PATH=" + dir + ":/usr/bin:/bin", "ANTHROPIC_API_KEY=k"}, nil, nil, runErr)
	if err != runErr {
		t.Errorf("error %v, want the run's own", err)
	}
	if err := explain(context.Background(), "command", nil, nil, nil, runErr); err != runErr {
		t.Errorf("command: %v, want the run's own", err)
	}
}

func TestUSD(t *testing.T) {
	t.Parallel()
	for micros, want := range map[int64]string{1: "0.000001", 1_250_000: "1.25", 2_000_000: "2", 20_500_000: "20.5", 999_999: "0.999999"} {
		if got := usd(micros); got != want {
			t.Errorf("usd(%d) = %q, want %q", micros, got, want)
		}
	}
}
