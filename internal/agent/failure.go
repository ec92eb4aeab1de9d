package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/gallivant/gallivant/specs"
)

// FailureKind is what a failed agent run was about (a closed vocabulary).
type FailureKind string

// The failure kinds. Auth, quota, network and missing are about the
// agent's environment, not the entry: every entry would fail the same way
// until a person fixes the machine, and the failure clears by itself when
// the agent works again (Failure.Environment).
const (
	FailureAuth    FailureKind = "auth"    // the CLI could not authenticate (401, 403, no key)
	FailureQuota   FailureKind = "quota"   // rate limits, exhausted credit (429, insufficient_quota)
	FailureNetwork FailureKind = "network" // the model's API could not be reached
	FailureMissing FailureKind = "missing" // the CLI is not installed, or not on the agent's PATH
	// FailureFetch: gallivant's fetch of the work repository from GitHub,
	// before the agent started, kept failing on the network or on
	// GitHub's side (a 5xx, a reset connection, a timeout) after its
	// retries (fetchretry.go). Not the entry's failure, and no agent ran.
	FailureFetch FailureKind = "fetch"
	FailureAgent FailureKind = "agent" // anything else the CLI reported about its run
)

// Failure is the CLI's own account of a failed run, from its failure
// fields (Claude Code's is_error, result and api_error_status; codex's
// turn.failed and error events; aider's litellm errors), so that a stop or
// a problem names the cause rather than "exit status 1".
type Failure struct {
	Kind FailureKind
	// Status is the HTTP status the CLI reported, 0 when none.
	Status int
	// Cause is the CLI's message, one line, control characters removed,
	// at most 300 characters: untrusted text, quoted as data.
	Cause string
}

// Error says what went wrong in the words a person acts on.
func (f *Failure) Error() string {
	cause := strconv.Quote(f.Cause)
	if f.Status != 0 && !strings.Contains(f.Cause, strconv.Itoa(f.Status)) {
		cause = strconv.Itoa(f.Status) + " " + cause
	}
	switch f.Kind {
	case FailureAuth:
		return "the agent could not authenticate: " + cause
	case FailureQuota:
		return "the agent's API refused for quota or rate limits: " + cause
	case FailureNetwork:
		return "the agent could not reach its API: " + cause
	case FailureMissing:
		return "the agent's CLI is not available: " + cause
	case FailureFetch:
		return "gallivant could not fetch the work repository from GitHub before the agent started: " + cause
	}
	return "the agent reported a failure: " + cause
}

// Environment reports whether the failure is about the agent's
// environment (authentication, quota, network, a missing CLI): one
// problem for the pass, not a stop for each entry.
func (f *Failure) Environment() bool { return f.Kind != FailureAgent }

// IsEnvironment reports whether err is, or wraps, a Failure about the
// agent's environment.
func IsEnvironment(err error) bool {
	var f *Failure
	return errors.As(err, &f) && f.Environment()
}

var (
	statusInTextRE = regexp.MustCompile(`\b(401|403|429|5[0-9][0-9])\b`)
	authWords      = []string{"invalid x-api-key", "invalid api key", "authentication", "unauthorized", "not logged in", "please run /login", "api key", "invalid_api_key", "permission_error"}
	quotaWords     = []string{"rate limit", "rate_limit", "quota", "credit balance", "insufficient_quota", "usage limit", "overloaded"}
	networkWords   = []string{"connection refused", "connection error", "econnrefused", "enotfound", "etimedout", "could not resolve", "network", "stream disconnected", "error sending request", "timed out"}
)

// classify makes a Failure of a CLI's status and message: an HTTP status
// decides where there is one, else the words of the message do.
func classify(status int, msg string) *Failure {
	cause := oneLine(msg, 300)
	if status == 0 {
		if m := statusInTextRE.FindString(cause); m != "" {
			status, _ = strconv.Atoi(m)
		}
	}
	f := &Failure{Kind: FailureAgent, Status: status, Cause: cause}
	low := strings.ToLower(cause)
	switch {
	case status == 401 || status == 403:
		f.Kind = FailureAuth
	case status == 429:
		f.Kind = FailureQuota
	case containsAny(low, authWords):
		f.Kind = FailureAuth
	case containsAny(low, quotaWords):
		f.Kind = FailureQuota
	case containsAny(low, networkWords):
		f.Kind = FailureNetwork
	}
	if cause == "" {
		f.Cause = "no message"
	}
	return f
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// oneLine makes untrusted text one bounded line: white space runs become
// one space, other control characters go.
func oneLine(s string, n int) string {
	s = bounded(s, 4*n)
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
		case unicode.IsControl(r) || r == utf8RuneError:
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	if r := []rune(b.String()); len(r) > n {
		return string(r[:n]) + "…"
	}
	return b.String()
}

const utf8RuneError = '\uFFFD'

// explain puts the CLI's own failure in place of a bare exit status: a
// run that exited non-zero (or reported an error with status 0) and whose
// output carries a failure fails with that Failure; a CLI that could not
// be started is FailureMissing; a failed run whose output says nothing is
// explained by the preflight when that finds the cause (not logged in, a
// CLI that no longer starts), run as the agent's user with its
// environment.
func explain(ctx context.Context, kind string, env []string, cred *syscall.Credential, stdout []byte, runErr error) error {
	if !isPreset(kind) {
		return runErr
	}
	if runErr != nil && errors.Is(runErr, exec.ErrNotFound) {
		return &Failure{Kind: FailureMissing, Cause: oneLine(runErr.Error(), 300)}
	}
	if f := parseUsage(kind, stdout).Failure; f != nil && (runErr != nil || kind == specs.ExecutorClaudeCode) {
		return f
	}
	if runErr != nil && ctx.Err() == nil {
		if _, perr := Preflight(ctx, kind, env, cred); perr != nil {
			return fmt.Errorf("%w (the run: %v)", perr, runErr)
		}
	}
	return runErr
}

// presetBinary is the executable each preset runs.
var presetBinary = map[string]string{
	specs.ExecutorClaudeCode: "claude",
	specs.ExecutorCodex:      "codex",
	specs.ExecutorAider:      "aider",
}

// Preflight is the cheap check of a preset's CLI: it is on the agent's
// PATH and prints its version, and where the CLI can say so without a
// request to the model (`claude auth status`), it has credentials. It runs
// with the agent's environment env, as cred's user when cred is set (the
// CLI may write its state under the agent's HOME). It returns the version
// line, or a Failure about the environment. codex has `codex login
// status`, but it knows only its own login, not a model provider's
// env_key, so it is not asked.
func Preflight(ctx context.Context, kind string, env []string, cred *syscall.Credential) (string, error) {
	bin, ok := presetBinary[kind]
	if !ok {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	path, err := lookPath(bin, env)
	if err != nil {
		return "", &Failure{Kind: FailureMissing, Cause: fmt.Sprintf("%s is not on the agent's PATH (executor.env passes PATH; install it as docs/agents.md says)", bin)}
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Env = env
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		var out boundedBuffer
		out.max = 64 << 10
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.Bytes(), err
	}
	out, err := run("--version")
	version := oneLine(string(firstLine(out)), 120)
	if err != nil {
		return "", &Failure{Kind: FailureMissing, Cause: fmt.Sprintf("%s --version: %v: %s", bin, err, version)}
	}
	if kind == specs.ExecutorClaudeCode {
		out, err := run("auth", "status")
		if err != nil {
			return version, &Failure{Kind: FailureAuth, Cause: "claude auth status: not logged in (set ANTHROPIC_API_KEY in the agent's environment, or run claude auth login as the agent's user): " + oneLine(string(out), 200)}
		}
	}
	return version, nil
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// lookPath finds bin on the PATH of env (the agent's environment, not
// gallivant's).
func lookPath(bin string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range strings.Split(path, ":") {
		if !filepath.IsAbs(d) {
			// An empty or relative entry names the current directory,
			// which for an agent is its checkout: what the agent wrote
			// there is never run as the CLI (exec.ErrDot's reason).
			continue
		}
		p := d + "/" + bin
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
