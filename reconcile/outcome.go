package reconcile

import (
	"strings"

	"github.com/gallivant/gallivant/internal/agent"
)

// maxWhat bounds the untrusted text (paths, an executor's error) a stop
// quotes from an outcome, in characters.
const maxWhat = 400

// dirtyWhat says what a run left uncommitted and why, for the stop a person
// reads: the paths git status listed and the executor's error when it had
// one (a result file it could not use). Paths are the agent's, so they are
// quoted as data: one line, bounded, no control characters.
func dirtyWhat(out agent.Outcome) string {
	if !out.Dirty {
		return ""
	}
	var parts []string
	if len(out.DirtyPaths) > 0 {
		parts = append(parts, "uncommitted "+strings.Join(out.DirtyPaths, ", "))
	}
	if out.Err != nil {
		parts = append(parts, out.Err.Error())
	}
	if out.Log != "" {
		parts = append(parts, "log "+out.Log)
	}
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, strings.Join(parts, "; "))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxWhat {
		s = string(r[:maxWhat]) + "…"
	}
	return s
}
