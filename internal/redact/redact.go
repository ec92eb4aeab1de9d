// Package redact keeps credentials out of text that gallivant shows, logs
// or writes to a ledger: the user information of every URL in a message
// (a git error quoting its remote with a token, say) is removed.
//
// It is internal: the control store, the agent executor and the
// reconciler share it, and it is no library contract.
package redact

import (
	"regexp"
	"strings"
)

// URLs removes the credentials (user and token before the host) of
// every URL in u, so that a message that quotes one, such as a git error,
// can be shown, logged or written to a ledger.
func URLs(u string) string {
	if !strings.Contains(u, "://") {
		return u
	}
	return userinfo.ReplaceAllString(u, "$1")
}

// userinfo matches a URL's scheme and its user information: anything up to
// the last @ before the path or the end of the word.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@`)

// Error is err with its text's URLs redacted (URLs) and err itself still
// reachable through errors.Is and errors.As, for callers that classify
// it; nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &redacted{msg: URLs(err.Error()), err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
