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
	"unicode/utf8"

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
		if t.MaxBudgetMicros > 0 {
			// --max-budget-usd bounds the run's own API spend: the
			// dollars left of the entry's budget.
			argv = append(argv, "--max-budget-usd", usd(t.MaxBudgetMicros))
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
		// not commit on its own (the preset builds the one return commit),
		// edit the repository's .gitignore, offer to fetch the URLs a
		// brief quotes (--yes-always would accept), or send analytics.
		argv := []string{"aider", "--message-file", promptFile, "--yes-always", "--no-auto-commits", "--no-gitignore", "--no-detect-urls", "--no-analytics", "--no-show-release-notes", "--no-check-update", "--no-pretty", "--no-stream"}
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
// answer without writing the commit message by hand. The result travels
// in the agent's final message (Claude Code's `result`, codex's last agent
// message) or in the result file inside the checkout (aider, or any agent
// that prefers a file): nothing has to be written outside the checkout or
// into .git, which a CLI's sandbox forbids.
const presetPreamble = `You are run by gallivant without a person at the terminal. Do the task below in
this checkout. When you are done, do not commit and do not write the return commit
yourself: leave your changes in the checkout and end your final message with the
result, plain text, one "key: value" per line:

    status: done or failed
    evidence: <one selective check command>; <up to three result lines>
    decision: <what happened> | <next step or blocker>

For a seed dispatch give one "row <n>: open|done | <evidence>" line per row
instead of status, evidence and decision; for a plan task (its brief has a
"task: <id> | attempt <n> | <head>" line) give status and decision only; for a
learn task (its brief says "target: learn") give "status: done" when you changed
the lessons file or "status: none" when no lesson generalises, and a decision,
nothing else. (You may instead write these lines to
the file named by the GALLIVANT_RESULT environment variable, inside the checkout.)
gallivant commits your changes with the return message built from them.

`

// Usage is what a CLI reported about its run, parsed from its own
// output: its spend, its session, its final message and its failure; zero
// values are unknown.
type Usage struct {
	// Tokens is input plus output tokens, what a token budget counts.
	Tokens int64
	// Cached is the cache reads and writes the CLI reported, recorded
	// apart from Tokens: they are much cheaper, and a budget of tokens
	// does not count them.
	Cached int64
	// Cost is in US dollars, as the CLI printed it.
	Cost string
	// Session is the CLI's session id, for resuming it.
	Session string
	// Final is the agent's final message (Claude Code's result, codex's
	// last agent message), at most MaxResult bytes: where the result
	// travels when no result file was written.
	Final string
	// Failure is the CLI's own account of why the run failed, "" when it
	// reported none.
	Failure *Failure
}

// trailers renders u as the return commit's tokens:, cached: and cost:
// trailers.
// Spend is what u reports spending, as a return commit's tokens: and
// cost: trailers would (ledger.ReturnSpend): for a run that returns no
// commit to carry them, such as a learn task's none.
func (u Usage) Spend() specs.Amount {
	return ledger.ReturnSpend(strings.Join(u.trailers(), "\n"))
}

func (u Usage) trailers() []string {
	var out []string
	if u.Tokens > 0 {
		out = append(out, fmt.Sprintf("tokens: %d", u.Tokens))
	}
	if u.Cached > 0 {
		out = append(out, fmt.Sprintf("cached: %d", u.Cached))
	}
	if u.Cost != "" {
		out = append(out, "cost: "+u.Cost)
	}
	return out
}

var (
	costRE = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,6})?$`)
	// aider prints, after each reply, `Tokens: 2.1k sent, 1.5k cache
	// write, 10k cache hit, 300 received.` (the cache parts only when the
	// provider reports them) and `Cost: $0.01 message, $0.02 session.`,
	// on the next line when both cache parts are there and on the same
	// line otherwise (aider/coders/base_coder.py,
	// calculate_and_show_tokens_and_cost). A count is exact below 1,000,
	// "4.2k" below 10,000 and "12k" above.
	aiderTokensRE = regexp.MustCompile(`Tokens: ([0-9.]{1,12})(k?) sent,(?: ([0-9.]{1,12})(k?) cache write,)?(?: ([0-9.]{1,12})(k?) cache hit,)? ([0-9.]{1,12})(k?) received\.`)
	aiderCostRE   = regexp.MustCompile(`Cost: \$([0-9.]{1,16}) message, \$([0-9.]{1,16}) session\.`)
)

// parseUsage reads a CLI's standard output for its usage, final message
// and failure. It never fails: output it cannot read yields zero usage.
func parseUsage(kind string, out []byte) Usage {
	var u Usage
	switch kind {
	case specs.ExecutorClaudeCode:
		u = parseClaude(out)
	case specs.ExecutorCodex:
		u = parseCodex(out)
	case specs.ExecutorAider:
		for _, m := range aiderTokensRE.FindAllStringSubmatch(string(out), -1) {
			// aider adds the cache writes into "sent" itself; they are
			// counted once, under cached, as Claude's and codex's are.
			sent, write := aiderCount(m[1], m[2]), aiderCount(m[3], m[4])
			u.Tokens += max(sent-write, 0) + aiderCount(m[7], m[8])
			u.Cached += write + aiderCount(m[5], m[6])
		}
		for _, m := range aiderCostRE.FindAllStringSubmatch(string(out), -1) {
			if costRE.MatchString(m[2]) {
				u.Cost = m[2]
			}
		}
		u.Failure = aiderFailure(out)
	}
	u.Tokens, u.Cached = max(u.Tokens, 0), max(u.Cached, 0)
	return u
}

// claudeResult is the result object `claude -p --output-format json`
// prints last.
type claudeResult struct {
	Type           string   `json:"type"`
	Subtype        string   `json:"subtype"`
	IsError        bool     `json:"is_error"`
	Result         string   `json:"result"`
	APIErrorStatus *int     `json:"api_error_status"`
	SessionID      string   `json:"session_id"`
	Cost           *float64 `json:"total_cost_usd"`
	Usage          struct {
		Input       int64 `json:"input_tokens"`
		Output      int64 `json:"output_tokens"`
		CacheCreate int64 `json:"cache_creation_input_tokens"`
		CacheRead   int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// parseClaude reads Claude Code's JSON result: the last JSON object on
// the output.
func parseClaude(out []byte) Usage {
	var u Usage
	var res claudeResult
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var next claudeResult
		if err := dec.Decode(&next); err != nil {
			break
		}
		res = next
	}
	u.Session = bounded(res.SessionID, 200)
	u.Tokens = res.Usage.Input + res.Usage.Output
	u.Cached = res.Usage.CacheCreate + res.Usage.CacheRead
	if res.Cost != nil && *res.Cost >= 0 && *res.Cost < 1e9 {
		u.Cost = strconv.FormatFloat(*res.Cost, 'f', 4, 64)
	}
	if res.IsError || strings.HasPrefix(res.Subtype, "error") {
		status := 0
		if res.APIErrorStatus != nil {
			status = *res.APIErrorStatus
		}
		cause := res.Result
		if cause == "" {
			cause = res.Subtype
		}
		u.Failure = classify(status, cause)
	} else {
		u.Final = bounded(res.Result, MaxResult)
	}
	return u
}

// parseCodex reads codex exec's JSON Lines events: thread.started carries
// the session, item.completed the agent's messages, turn.completed the
// usage, turn.failed and error the failure.
func parseCodex(out []byte) Usage {
	var u Usage
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Message  string `json:"message"`
			Error    struct {
				Message string `json:"message"`
			} `json:"error"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
			Usage struct {
				Input  int64 `json:"input_tokens"`
				Cached int64 `json:"cached_input_tokens"`
				Write  int64 `json:"cache_write_input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			u.Session = bounded(ev.ThreadID, 200)
		case "item.completed":
			if ev.Item.Type == "agent_message" {
				u.Final = bounded(ev.Item.Text, MaxResult)
			}
		case "turn.completed":
			// codex's input_tokens includes the cached ones (OpenAI's
			// usage), which are counted apart.
			cached := min(max(ev.Usage.Cached, 0), max(ev.Usage.Input, 0))
			u.Tokens += ev.Usage.Input - cached + ev.Usage.Output
			u.Cached += cached + max(ev.Usage.Write, 0)
		case "turn.failed":
			u.Failure = classify(0, ev.Error.Message)
		case "error":
			if u.Failure == nil {
				u.Failure = classify(0, ev.Message)
			}
		}
	}
	return u
}

// aiderFailure reads aider's transcript for the litellm error it prints
// when the model cannot be reached.
func aiderFailure(out []byte) *Failure {
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "litellm.") && strings.Contains(line, "Error") {
			return classify(0, line)
		}
	}
	return nil
}

// bounded cuts s to at most n bytes, on a rune boundary.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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

// ResultName is the result file's name in the root of the checkout: the
// agent can always write there, inside its sandbox; the checkout's
// .git/info/exclude names it so that it never shows as a change, and
// gallivant removes it before it commits.
const ResultName = ".gallivant-result"

// resultPath is the result file of the checkout dir.
func resultPath(dir string) string { return filepath.Join(dir, ResultName) }

// cliOwnFiles are the files a CLI writes into the root of the checkout
// for itself, by kind: aider keeps its chat and input histories
// (.aider.chat.history.md, .aider.input.history) and its repository-map
// cache (.aider.tags.cache.v4/) at the repository root, and unless they
// are ignored it offers to add `.aider*` to the repository's .gitignore,
// which --yes-always accepts (aider/main.py, check_gitignore, asks git
// whether `.aider` is ignored, so the exclude below also answers it).
// They are the CLI's bookkeeping, not the agent's work.
var cliOwnFiles = map[string][]string{
	specs.ExecutorAider: {"/.aider*"},
}

// prepareResult creates the empty result file the agent writes, owned by
// the agent's user, in a fresh checkout (the agent has not run yet), and
// excludes it, and the files the kind's CLI writes for itself, from the
// checkout's status.
func prepareResult(path, kind string, cred *syscall.Credential) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755); err != nil {
		return err
	}
	ex, err := os.OpenFile(filepath.Join(dir, ".git", "info", "exclude"), os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(ex, "\n/%s\n", ResultName)
	for _, pattern := range cliOwnFiles[kind] {
		if err == nil {
			_, err = fmt.Fprintln(ex, pattern)
		}
	}
	if cerr := ex.Close(); err == nil {
		err = cerr
	}
	if err != nil {
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

// readResult reads the result file without following a symlink and
// without blocking on a FIFO, bounded; anything but a regular file is
// refused.
func readResult(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ResultName)
	}
	return io.ReadAll(io.LimitReader(f, MaxResult+1))
}

// presetEnv is what a preset adds to the agent's environment. Claude Code
// refuses bypassPermissions as root unless IS_SANDBOX=1 says the machine
// is a sandbox: gallivant's checkout is (a fresh clone, no token), and
// containers and Actions `container:` jobs run as root.
func presetEnv(kind string, cred *syscall.Credential) []string {
	if kind == specs.ExecutorClaudeCode && cred == nil && os.Geteuid() == 0 {
		return []string{"IS_SANDBOX=1"}
	}
	return nil
}

// complete turns what a preset's agent left into the one return commit:
// when the agent left work uncommitted, or its commits are not exactly one
// admissible return, and it wrote a result file, its changes are committed
// (squashing its own commits) with the message built from the file. An
// empty result file leaves the checkout as the agent left it, for
// admission to judge. git runs in the checkout as the agent, with the
// agent's environment and hooks off, as the status in collect does.
func (e CommandExecutor) complete(ctx context.Context, ag execGit, dir, resultPath string, t Task, before string, u Usage, out *Outcome) (bool, error) {
	data, source, err := takeResult(resultPath, u)
	if err != nil {
		return false, err
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
	if agentReturned(run, t, status, n) {
		return false, nil
	}
	var msg string
	var ok bool
	if t.Learn {
		msg, ok, out.Decision, err = learnReturn(t, data, source, u, learnChanged(status, n))
	} else {
		msg, ok, err = returnMessage(t, data, source, u)
	}
	if err != nil || !ok {
		return false, err
	}
	if err := commitReturn(run, ag.cred, msg, n, before); err != nil {
		return false, err
	}
	return true, nil
}

// takeResult reads and removes the result file (the result file is
// gallivant's, not the agent's work: it never enters the commit). When the
// file is empty or absent the agent's final message stands in for it;
// source names which of the two data is.
func takeResult(resultPath string, u Usage) (data []byte, source string, err error) {
	data, err = readResult(resultPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("read the result file: %w", err)
	}
	if err := os.Remove(resultPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("remove the result file: %w", err)
	}
	source = "the result file " + ResultName
	if len(bytes.TrimSpace(data)) == 0 && u.Final != "" {
		data, source = ExtractResult(u.Final), "the agent's final message"
	}
	return data, source, nil
}

// agentReturned reports whether the agent's own commits (n of them since
// the run began, with the checkout's status) already are the return: one
// admissible return for a first run, at most one commit and a clean
// checkout for a review round or a learn task.
func agentReturned(run func(args ...string) (string, error), t Task, status string, n int) bool {
	if t.Learn {
		// A learn return's message is not admission's to read: one commit
		// and a clean checkout are the agent's own return.
		return status == "" && n == 1
	}
	if status == "" && n == 1 && t.Round == 0 {
		subject, _ := run("log", "-1", "--format=%s")
		body, _ := run("log", "-1", "--format=%b")
		if t.PlanTask != "" {
			_, err := ledger.ParseTaskReturn(subject, body)
			return err == nil
		}
		if _, err := ledger.ParseReturn(subject, body); err == nil {
			return true
		}
	}
	return t.Round > 0 && status == "" && n <= 1
}

// returnMessage is the message of the return commit built from data, the
// result (read from source): a review round's answer, or the return the
// result describes. ok is false when a first run left no result.
func returnMessage(t Task, data []byte, source string, u Usage) (msg string, ok bool, err error) {
	empty := len(bytes.TrimSpace(data)) == 0
	if t.Round > 0 {
		msg = fmt.Sprintf("Answer review round %d\n", t.Round)
		if !empty {
			if r, err := ParseResult(data); err == nil {
				msg += "\n" + r.Decision + "\n"
			}
		}
		if tr := u.trailers(); len(tr) > 0 {
			msg += "\n" + strings.Join(tr, "\n") + "\n"
		}
		return msg, true, nil
	}
	if empty {
		return "", false, nil
	}
	if t.PlanTask != "" {
		r, err := ParseTaskResult(data)
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", source, err)
		}
		if msg, err = r.TaskMessage(t, u.trailers()); err != nil {
			return "", false, fmt.Errorf("%s: %w", source, err)
		}
		return msg, true, nil
	}
	r, err := ParseResult(data)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", source, err)
	}
	attempts := 0
	if m := attemptsRE.FindStringSubmatch(t.Brief); m != nil {
		attempts, _ = strconv.Atoi(m[1])
	}
	if msg, err = r.Message(t, attempts, u.trailers()); err != nil {
		return "", false, fmt.Errorf("%s: %w", source, err)
	}
	return msg, true, nil
}

// commitReturn commits everything in the checkout as one commit with
// message msg, squashing the agent's n commits since before. The message
// file is readable by the agent's user (cred) when git runs as it.
func commitReturn(run func(args ...string) (string, error), cred *syscall.Credential, msg string, n int, before string) error {
	mf, err := os.CreateTemp("", "gallivant-return-*.msg")
	if err != nil {
		return err
	}
	msgFile := mf.Name()
	defer os.Remove(msgFile)
	_, err = mf.WriteString(msg)
	if cerr := mf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chmod(msgFile, 0o644); err != nil {
			return err
		}
	}
	if n > 0 {
		if _, err := run("reset", "--quiet", "--soft", before); err != nil {
			return err
		}
	}
	if _, err := run("add", "-A"); err != nil {
		return err
	}
	ident := []string{}
	if email, _ := run("config", "user.email"); email == "" {
		ident = []string{"-c", "user.name=gallivant agent", "-c", "user.email=agent@gallivant.invalid"}
	}
	if _, err := run(append(ident, "commit", "--quiet", "--allow-empty", "--no-verify", "-F", msgFile)...); err != nil {
		return err
	}
	return nil
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
	built, err := e.complete(ctx, ag, dir, resultFile, t, before, u, out)
	switch {
	case err != nil:
		out.Err = fmt.Errorf("the agent's return could not be completed: %w", err)
		fmt.Fprintf(logf, "# gallivant: %v\n", out.Err)
	case built:
		fmt.Fprintf(logf, "# gallivant: committed the return\n")
	}
}

// usd writes millionths of a dollar as a decimal dollar amount without
// trailing zeros: 1250000 is "1.25", 2000000 is "2".
func usd(micros int64) string {
	s := strconv.FormatInt(micros/1_000_000, 10)
	if frac := micros % 1_000_000; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return s
}
