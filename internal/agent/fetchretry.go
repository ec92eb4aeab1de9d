package agent

import (
	"context"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/wait"
)

// fetchTries bounds the attempts of the mirror's fetch from GitHub.
const fetchTries = 3

// fetchRetrying runs the mirror's `git fetch` (args), trying a fetch that
// failed on the network or on GitHub's side (transientGit) again after a
// short wait, fetchTries times in all: a 502 or a connection reset on one
// request would otherwise end the run before its agent started.
func fetchRetrying(ctx context.Context, m execGit, args ...string) error {
	return gitRetrying(ctx, m, fetchTries, args...)
}

// gitRetrying runs git (args) up to tries times while it fails
// transiently (transientGit), waiting 250 ms, then 1 s, between tries.
func gitRetrying(ctx context.Context, m execGit, tries int, args ...string) error {
	d := 250 * time.Millisecond
	for try := 1; ; try++ {
		_, err := m.out(ctx, args...)
		if err == nil || try == tries || !transientGit(err) {
			return err
		}
		if wait.For(ctx, d) != nil {
			return err
		}
		d *= 4
	}
}

// transientGit reports whether a git error is one of the network's or
// GitHub's (a 5xx, a reset connection, an answer cut short, a timeout),
// which the same request may not meet again, rather than damage of the
// repository git reads or writes. git reports these only in its messages.
func transientGit(err error) bool {
	msg := err.Error()
	for _, s := range []string{"The requested URL returned error: 5", "RPC failed", "Connection reset", "remote end hung up",
		"early EOF", "unexpected disconnect", "expected flush after ref listing", "expected 'packfile'", "transfer closed",
		"Operation timed out", "Connection timed out"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// fetchTransient reports whether the mirror's fetch failed on the network
// or on GitHub's side, transiently (transientGit) or by not reaching it
// at all (a failed DNS lookup, a refused connection), rather than for the
// mirror's damage or a refusal (credentials, a missing repository), which
// trying later would not mend.
func fetchTransient(err error) bool {
	if transientGit(err) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"Could not resolve host", "Connection refused", "Failed to connect", "Couldn't connect to server"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
