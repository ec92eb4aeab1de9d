package agent

import (
	"fmt"
	"strings"
)

// redact removes credentials from a URL before it is shown.
func redact(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if at := strings.LastIndex(u[i+3:], "@"); at >= 0 && !strings.Contains(u[i+3:i+3+at], "/") {
			return u[:i+3] + u[i+3+at+1:]
		}
	}
	return u
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
