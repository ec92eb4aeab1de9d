package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/reconcile"
	"golang.org/x/term"
)

// docsURL is where the documentation of the installed binary's source is
// read: a binary has no docs/ next to it.
const docsURL = "https://github.com/gallivant/gallivant/blob/main/docs/"

// isTerminal reports whether f is a terminal; pipes, files and /dev/null
// (all of CI) are not.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// plural returns "1 transition", "2 transitions": n and the noun, in the
// plural unless n is 1.
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// logFormat is the log format asked for: --log-format, else
// $GALLIVANT_LOG_FORMAT, else text.
func (a *app) logFormat() (string, error) {
	f := a.logFmt
	if f == "" {
		f = a.env("GALLIVANT_LOG_FORMAT")
	}
	switch f {
	case "", "text":
		return "text", nil
	case "json":
		return "json", nil
	}
	return "", usageError("--log-format (or GALLIVANT_LOG_FORMAT) must be text or json, got %q", f)
}

// logger returns the structured log on standard error. On a terminal the
// human output already says what happened, so logs are written only with
// -v; when standard output is a pipe or a file (CI, a service), they are
// always written, so that the record survives.
func (a *app) logger() *slog.Logger {
	if a.io.TTY && !a.verbose {
		return slog.New(slog.DiscardHandler)
	}
	level := slog.LevelInfo
	if a.env("GALLIVANT_DEBUG") != "" {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if f, _ := a.logFormat(); f == "json" {
		return slog.New(slog.NewJSONHandler(a.io.Err, opts))
	}
	return slog.New(slog.NewTextHandler(a.io.Err, opts))
}

// jsonLogs reports whether --log-format (or $GALLIVANT_LOG_FORMAT) is
// json: then every line gallivant writes on standard error is one JSON
// object.
func (a *app) jsonLogs() bool {
	f, err := a.logFormat()
	return err == nil && f == "json"
}

// narrate writes one line of narration on standard error — a wait, a
// problem, a summary — that a person reads whatever -v says: text as is,
// or under --log-format json one JSON object whose msg is constant and
// whose details are the attributes (docs/cli.md, "Output and logs").
func (a *app) narrate(level slog.Level, text, msg string, attrs ...any) {
	if !a.jsonLogs() {
		fmt.Fprintln(a.io.Err, text)
		return
	}
	if a.narrator == nil {
		a.narrator = slog.New(slog.NewJSONHandler(a.io.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	a.narrator.Log(context.Background(), level, msg, attrs...)
}

// jsonLines turns what is written to it into one JSON record per line
// (msg "agent output", the line under "line"): the agents' output that -v
// streams, under --log-format json.
type jsonLines struct {
	mu   sync.Mutex
	log  *slog.Logger
	part []byte
}

func newJSONLines(w io.Writer) *jsonLines {
	return &jsonLines{log: slog.New(slog.NewJSONHandler(w, nil))}
}

func (j *jsonLines) Write(b []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.part = append(j.part, b...)
	for {
		i := bytes.IndexByte(j.part, '\n')
		if i < 0 {
			break
		}
		j.log.Info("agent output", "line", string(bytes.TrimRight(j.part[:i], "\r")))
		j.part = j.part[i+1:]
	}
	return len(b), nil
}

// passExit decides the exit status of reconcile, diff and daemon --once
// from a pass's outcome, in one place (docs/cli.md, "Exit codes"):
//
//   - 2 when the pass could not run: GitHub rejected the credentials or was
//     unreachable, the control repository could not be read or pushed, the
//     configuration is invalid;
//   - 1 when the pass ran but some entry hit a problem it could not record
//     as a stop (a broken spec, a failed GitHub write);
//   - 0 otherwise: stops are states, not failures.
//
// tokenVar names the variable the token came from, so that a rejected
// token can be traced without printing it.
func passExit(rep *reconcile.Report, err error, tokenVar string) error {
	if err != nil {
		var ce *githubapi.CredentialsError
		switch {
		case errors.As(err, &ce):
			return &exitError{code: exitCannotRun, err: fmt.Errorf("GitHub rejected the token in $%s: %d %s (during %s); set $%s to a valid token",
				tokenVar, ce.Status, ce.Message, ce.Op, tokenVar)}
		case errors.Is(err, githubapi.ErrUnreachable):
			return &exitError{code: exitCannotRun, err: fmt.Errorf("GitHub is unreachable: %w", err)}
		}
		return &exitError{code: exitCannotRun, err: fmt.Errorf("the pass could not run: %w", err)}
	}
	if rep != nil {
		for _, n := range rep.Notes {
			if n.Problem {
				return silent(exitFindings)
			}
		}
		// A malformed request is an error `check` reports; the pass
		// names it and, like check, does not exit 0.
		for _, rf := range rep.Refusals {
			if rf.Malformed {
				return silent(exitFindings)
			}
		}
	}
	return nil
}

// summaryLine is the pass's last line on standard error. Only transitions
// that were committed and pushed are called performed; a dry run says what
// it would perform, diff what is due, and a pass that failed before its
// push that nothing was recorded.
func summaryLine(control string, n int, o outcome) string {
	ts := plural(n, "transition", "transitions")
	switch o {
	case wouldPerform:
		return fmt.Sprintf("control %s: would perform %s (dry run: nothing committed)", shortSHA(control), ts)
	case due:
		return fmt.Sprintf("control %s: %s due", shortSHA(control), ts)
	case unrecorded:
		return fmt.Sprintf("control %s: %s planned, none recorded", shortSHA(control), ts)
	}
	return fmt.Sprintf("control %s: %s performed", shortSHA(control), ts)
}
