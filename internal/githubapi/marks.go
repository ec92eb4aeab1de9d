package githubapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Marks are what a caller remembers about one pull request between
// processes, kept with the adapter's conditional state (the reconciler's
// quiet marks of idle pull requests, docs/reconcile.md). The adapter does
// not read them: a mark is the caller's JSON value, persisted by SaveState
// and dropped with the rest of the state file.

func markKey(repo string, number int) string { return fmt.Sprintf("%s#%d", repo, number) }

// Mark returns the mark recorded for a pull request.
func (g *Client) Mark(repo string, number int) (json.RawMessage, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.quiet[markKey(repo, number)]
	return m, ok
}

// SetMark records m as the pull request's mark, or drops the mark when m
// is nil. m must be valid JSON.
func (g *Client) SetMark(repo string, number int, m json.RawMessage) {
	k := markKey(repo, number)
	g.mu.Lock()
	defer g.mu.Unlock()
	old, had := g.quiet[k]
	switch {
	case m == nil && !had:
		return
	case m == nil:
		delete(g.quiet, k)
	case had && bytes.Equal(old, m):
		return
	default:
		if g.quiet == nil {
			g.quiet = map[string]json.RawMessage{}
		}
		g.quiet[k] = bytes.Clone(m)
	}
	g.quietChanges++
}

// ForgetMarks drops the marks of every pull request of repo.
func (g *Client) ForgetMarks(repo string) {
	prefix := strings.ToLower(repo) + "#"
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.quiet {
		if strings.HasPrefix(strings.ToLower(k), prefix) {
			delete(g.quiet, k)
			g.quietChanges++
		}
	}
}
