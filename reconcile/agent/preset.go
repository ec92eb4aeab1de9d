package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// invocation is how one run of an agent CLI starts: its argv and what it
// reads on standard input.
type invocation struct {
	argv  []string
	stdin string
	// resumed is the session the run resumes, "" for a new one.
	resumed string
}

// kind is the executor kind that runs t: the spec's harness when it names
// one, else the configured kind (command when unset).
func (e CommandExecutor) kind(t Task) string {
	if k := specs.HarnessName(t.Harness); k != "" {
		return k
	}
	if e.Kind == "" {
		return specs.ExecutorCommand
	}
	return e.Kind
}

// invocation builds the command line of t's run. The command executor
// runs executor.command with the brief on standard input; a preset runs
// its CLI non-interactively with the prompt (the result-file preamble and
// the brief) where that CLI reads it, and the escalation model through
// that CLI's model flag. docs/agents.md cites each CLI's documentation.
func (e CommandExecutor) invocation(t Task, kind, promptFile, session string) (invocation, error) {
	prompt := presetPreamble + t.Brief
	switch kind {
	case specs.ExecutorClaudeCode:
		// claude -p reads the prompt from standard input when no prompt
		// argument is given; --output-format json ends with one object
		// carrying session_id, total_cost_usd and usage; --resume
		// continues a session by its id.
		argv := []string{"claude", "-p", "--output-format", "json", "--permission-mode", "bypassPermissions"}
		if t.Model != "" {
			argv = append(argv, "--model", t.Model)
		}
		if session != "" {
			argv = append(argv, "--resume", session)
		}
		return invocation{argv: argv, stdin: prompt, resumed: session}, nil
	case specs.ExecutorCodex:
		if session != "" {
			// `codex exec resume` takes the session id and the prompt and,
			// of exec's options, only -c overrides and --json.
			argv := []string{"codex", "exec", "resume", session, "--json", "-c", `sandbox_mode="workspace-write"`}
			if t.Model != "" {
				argv = append(argv, "-c", "model="+strconv.Quote(t.Model))
			}
			return invocation{argv: append(argv, "-"), stdin: prompt, resumed: session}, nil
		}
		// codex exec reads the prompt from standard input when it is
		// given as `-`; --json prints JSONL events, turn.completed
		// carrying usage.
		argv := []string{"codex", "exec", "--json", "--sandbox", "workspace-write"}
		if t.Model != "" {
			argv = append(argv, "--model", t.Model)
		}
		return invocation{argv: append(argv, "-"), stdin: prompt}, nil
	case specs.ExecutorAider:
		// aider takes the message from a file and exits after it; it must
		// not commit on its own (the preset builds the one return commit).
		argv := []string{"aider", "--message-file", promptFile, "--yes-always", "--no-auto-commits", "--no-check-update", "--no-pretty", "--no-stream"}
		if t.Model != "" {
			argv = append(argv, "--model", t.Model)
		}
		return invocation{argv: argv}, nil
	case specs.ExecutorCommand:
		if len(e.Argv) == 0 {
			return invocation{}, errors.New("executor.command is empty")
		}
		return invocation{argv: e.Argv, stdin: t.Brief}, nil
	}
	return invocation{}, fmt.Errorf("unknown executor kind %q", kind)
}

// isPreset reports whether kind runs a known CLI whose return the preset
// completes.
func isPreset(kind string) bool {
	switch kind {
	case specs.ExecutorClaudeCode, specs.ExecutorCodex, specs.ExecutorAider:
		return true
	}
	return false
}

// presetPreamble comes before the brief in a preset's prompt: how to
// answer without writing the commit message by hand.
const presetPreamble = `You are run by gallivant without a person at the terminal. Do the task below in
this checkout. When you are done, do not write the return commit yourself: write
the result to the file named by the GALLIVANT_RESULT environment variable, plain
text, one "key: value" per line:

    status: done or failed
    evidence: <one selective check command>; <up to three result lines>
    decision: <what happened> | <next step or blocker>

For a seed dispatch write one "row <n>: open|done | <evidence>" line per row and
the decision instead of status and evidence. gallivant commits your changes with
the return message built from this file.

`

// Usage is what a CLI reported about its run's spend, parsed from its own
// output; zero values are unknown.
type Usage struct {
	Tokens int64
	// Cost is in US dollars, as the CLI printed it.
	Cost string
	// Session is the CLI's session id, for resuming it.
	Session string
}

// trailers renders u as the return commit's tokens: and cost: trailers.
func (u Usage) trailers() []string {
	var out []string
	if u.Tokens > 0 {
		out = append(out, fmt.Sprintf("tokens: %d", u.Tokens))
	}
	if u.Cost != "" {
		out = append(out, "cost: "+u.Cost)
	}
	return out
}

var (
	costRE        = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,6})?$`)
	aiderTokensRE = regexp.MustCompile(`Tokens: ([0-9.]+)(k?) sent, ([0-9.]+)(k?) received\.(?: Cost: \$([0-9.]+) message, \$([0-9.]+) session\.)?`)
)

// parseUsage reads a CLI's standard output for its usage. It never fails:
// output it cannot read yields zero usage.
func parseUsage(kind string, out []byte) Usage {
	var u Usage
	switch kind {
	case specs.ExecutorClaudeCode:
		// The last JSON object on the output is the result.
		var res struct {
			Type      string   `json:"type"`
			SessionID string   `json:"session_id"`
			Cost      *float64 `json:"total_cost_usd"`
			Usage     struct {
				Input       int64 `json:"input_tokens"`
				Output      int64 `json:"output_tokens"`
				CacheCreate int64 `json:"cache_creation_input_tokens"`
				CacheRead   int64 `json:"cache_read_input_tokens"`
			} `json:"usage"`
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var next = res
			if err := dec.Decode(&next); err != nil {
				break
			}
			res = next
		}
		u.Session = res.SessionID
		u.Tokens = res.Usage.Input + res.Usage.Output + res.Usage.CacheCreate + res.Usage.CacheRead
		if res.Cost != nil && *res.Cost >= 0 && *res.Cost < 1e9 {
			u.Cost = strconv.FormatFloat(*res.Cost, 'f', 4, 64)
		}
	case specs.ExecutorCodex:
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var ev struct {
				Type     string `json:"type"`
				ThreadID string `json:"thread_id"`
				Usage    struct {
					Input  int64 `json:"input_tokens"`
					Output int64 `json:"output_tokens"`
				} `json:"usage"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch ev.Type {
			case "thread.started":
				u.Session = ev.ThreadID
			case "turn.completed":
				u.Tokens += ev.Usage.Input + ev.Usage.Output
			}
		}
	case specs.ExecutorAider:
		for _, m := range aiderTokensRE.FindAllStringSubmatch(string(out), -1) {
			u.Tokens += aiderCount(m[1], m[2]) + aiderCount(m[3], m[4])
			if m[6] != "" && costRE.MatchString(m[6]) {
				u.Cost = m[6]
			}
		}
	}
	if u.Tokens < 0 {
		u.Tokens = 0
	}
	return u
}

// aiderCount reads aider's "2.1k"-style token counts.
func aiderCount(n, k string) int64 {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f < 0 || f > 1e12 {
		return 0
	}
	if k == "k" {
		f *= 1000
	}
	return int64(f)
}

// boundedBuffer keeps the first max bytes written to it.
type boundedBuffer struct {
	bytes.Buffer
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var attemptsRE = regexp.MustCompile(`(?m)^attempts: ([0-9]{1,6})$`)

// prepareResult creates the empty result file the agent writes, owned by
// the agent's user; the directory is gallivant's, so the agent can write
// the file's content and nothing else.
func prepareResult(path string, cred *syscall.Credential) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if cred != nil {
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// readResult reads the result file without following a symlink, bounded.
func readResult(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxResult+1))
}

// complete turns what a preset's agent left into the one return commit:
// when the agent left work uncommitted, or its commits are not exactly one
// admissible return, and it wrote a result file, its changes are committed
// (squashing its own commits) with the message built from the file. An
// empty result file leaves the checkout as the agent left it, for
// admission to judge. git runs in the checkout as the agent, with the
// agent's environment and hooks off, as the status in collect does.
func (e CommandExecutor) complete(ctx context.Context, ag execGit, dir, resultPath string, t Task, before string, u Usage) (bool, error) {
	data, err := readResult(resultPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read the result file: %w", err)
	}
	safe := []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"}
	run := func(args ...string) (string, error) { return ag.out(ctx, append(safe, args...)...) }
	status, err := run("status", "--porcelain")
	if err != nil {
		return false, err
	}
	count, err := run("rev-list", "--count", before+"..HEAD")
	if err != nil {
		return false, err
	}
	n, _ := strconv.Atoi(count)
	if status == "" && n == 1 && t.Round == 0 {
		subject, _ := run("log", "-1", "--format=%s")
		body, _ := run("log", "-1", "--format=%b")
		if _, err := ledger.ParseReturn(subject, body); err == nil {
			return false, nil // the agent wrote an admissible return itself
		}
	}
	if t.Round > 0 && status == "" && n <= 1 {
		return false, nil
	}
	var msg string
	if t.Round > 0 {
		msg = fmt.Sprintf("Answer review round %d\n", t.Round)
		if len(bytes.TrimSpace(data)) > 0 {
			if r, err := ParseResult(data); err == nil {
				msg += "\n" + r.Decision + "\n"
			}
		}
		if tr := u.trailers(); len(tr) > 0 {
			msg += "\n" + strings.Join(tr, "\n") + "\n"
		}
	} else {
		if len(bytes.TrimSpace(data)) == 0 {
			return false, nil
		}
		r, err := ParseResult(data)
		if err != nil {
			return false, fmt.Errorf("the result file %s: %w", resultPath, err)
		}
		attempts := 0
		if m := attemptsRE.FindStringSubmatch(t.Brief); m != nil {
			attempts, _ = strconv.Atoi(m[1])
		}
		if msg, err = r.Message(t, attempts, u.trailers()); err != nil {
			return false, fmt.Errorf("the result file %s: %w", resultPath, err)
		}
	}
	msgFile := resultPath + ".msg"
	if err := os.WriteFile(msgFile, []byte(msg), 0o644); err != nil {
		return false, err
	}
	defer os.Remove(msgFile)
	if n > 0 {
		if _, err := run("reset", "--quiet", "--soft", before); err != nil {
			return false, err
		}
	}
	if _, err := run("add", "-A"); err != nil {
		return false, err
	}
	ident := []string{}
	if email, _ := run("config", "user.email"); email == "" {
		ident = []string{"-c", "user.name=gallivant agent", "-c", "user.email=agent@gallivant.invalid"}
	}
	if _, err := run(append(ident, "commit", "--quiet", "--allow-empty", "--no-verify", "-F", msgFile)...); err != nil {
		return false, err
	}
	return true, nil
}

// completeRun reads the preset's usage from its output and completes the
// return (complete); a result file it cannot use fails the run with the
// reason, which the pass reports.
func (e CommandExecutor) completeRun(ctx context.Context, dir, resultFile, kind string, t Task, before string, env []string, cred *syscall.Credential, logf *os.File, stdout []byte, out *Outcome) {
	u := parseUsage(kind, stdout)
	out.Usage = u
	e.keepSession(t, kind, u.Session)
	if u.Tokens > 0 || u.Cost != "" || u.Session != "" {
		fmt.Fprintf(logf, "# gallivant: usage tokens=%d cost=%s session=%s\n", u.Tokens, u.Cost, u.Session)
	}
	ag := execGit{dir: dir, env: agentGitEnv, base: env, log: logf, cred: cred}
	built, err := e.complete(ctx, ag, dir, resultFile, t, before, u)
	switch {
	case err != nil:
		out.Err = fmt.Errorf("the agent's return could not be completed: %w", err)
		fmt.Fprintf(logf, "# gallivant: %v\n", out.Err)
	case built:
		fmt.Fprintf(logf, "# gallivant: committed the return from the result file\n")
	}
}
