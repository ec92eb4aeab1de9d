package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ErrPushRefused reports that the remote refused the control branch's
// update for good (branch protection or a ruleset), not because it moved:
// retrying does not help until the branch's rules let gallivant push.
var ErrPushRefused = errors.New("push the control branch: refused by the branch's rules")

// maxRemoteMessage bounds what the remote's messages (git's "remote:"
// lines) keep of a refused push: they are the server's text, quoted as
// data in the error.
const maxRemoteMessage = 2048

// remoteMessages collects the side-band progress channel of a push: on a
// refusal, GitHub explains there why (GH006, GH013).
type remoteMessages struct{ b bytes.Buffer }

func (m *remoteMessages) Write(p []byte) (int, error) {
	if room := maxRemoteMessage - m.b.Len(); room > 0 {
		m.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// reasons returns the remote's error lines, one line each, without git's
// "error:" prefixes and blank lines.
func (m *remoteMessages) reasons() string {
	var out []string
	for _, line := range strings.FieldsFunc(m.b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "error:"))
		if line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, " ")
}

// refusedByProtection turns the refusal of a push by branch protection or a
// repository ruleset into an error that says what GitHub said and how to let
// gallivant record: the control branch's rules must let gallivant's App
// push. It returns nil when the remote's messages are not such a refusal.
func refusedByProtection(branch string, m *remoteMessages) error {
	why := m.reasons()
	var how string
	switch {
	case strings.Contains(why, "GH013"):
		how = "add gallivant's GitHub App to the bypass list of the ruleset that protects " + branch
	case strings.Contains(why, "GH006"):
		how = "let gallivant's GitHub App push to " + branch + " (a ruleset with the App on its bypass list instead of classic protection, or the App allowed to push and bypass required pull requests)"
	default:
		return nil
	}
	return fmt.Errorf("%w: GitHub refused gallivant's push to %s: %q; gallivant commits every transition to the control branch, so %s (docs/github.md#protecting-the-control-branch)",
		ErrPushRefused, branch, why, how)
}
