package gatekeep

import (
	"fmt"
	"strings"
)

// ignoredListed bounds how many ignored items a note names: a stranger
// who posts a hundred comments gets one short line, not a hundred.
const ignoredListed = 5

// IgnoredNote is the pass report's line for feedback from people who may
// not steer the loop (not the configured reviewer, no write access to the
// target): the ids and authors of at most ignoredListed items, never their
// text, and how many more there were. Such feedback makes no control
// commit (docs/delivery.md, "Who steers"): "" when fs is empty.
func IgnoredNote(pr PR, fs []Finding) string {
	if len(fs) == 0 {
		return ""
	}
	var who []string
	for i, f := range fs {
		if i == ignoredListed {
			who = append(who, fmt.Sprintf("and %d more", len(fs)-ignoredListed))
			break
		}
		who = append(who, fmt.Sprintf("%s %d by @%s", f.Source, f.ID, f.Author))
	}
	return fmt.Sprintf("ignored on %s (not the reviewer, no write access to %s): %s", pr, pr.Repo, strings.Join(who, ", "))
}
