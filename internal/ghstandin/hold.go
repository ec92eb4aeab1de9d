package ghstandin

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Hold keeps the first API request that matches it waiting, so that a
// test can act at a known moment of a client's work: kill the client
// while its request is held, or let the request go on. The server writes
// Signal while it holds the request (its content is the request's method
// and path) and serves the request once Signal is removed; a client that
// goes away first (killed, or its own timeout) leaves the request unserved,
// as a request that never arrived, and the server removes Signal. A hold
// is spent by the one request it keeps; later matching requests are served.
type Hold struct {
	// Method is the HTTP method to hold; "" matches any.
	Method string
	// Path is a regular expression matched against the path after
	// /api/v3, e.g. `/issues/comments/[0-9]+/reactions$`.
	Path string
	// Signal is the file written while the request is held.
	Signal string
}

// HoldSyntax is the --hold syntax ParseHold reads.
const HoldSyntax = "METHOD:PATH-REGEXP, e.g. POST:/issues/comments/[0-9]+/reactions$"

// ParseHold reads the --hold syntax, METHOD:PATH-REGEXP. Errors say what
// was expected, with an example.
func ParseHold(s string) (method, path string, err error) {
	method, path, ok := strings.Cut(s, ":")
	switch {
	case !ok || path == "":
		return "", "", fmt.Errorf("%q: expected %s", bounded(s), HoldSyntax)
	case method == "" || strings.TrimFunc(method, func(r rune) bool { return r >= 'A' && r <= 'Z' }) != "":
		return "", "", fmt.Errorf("%q: the method must be upper-case letters, e.g. POST; expected %s", bounded(method), HoldSyntax)
	}
	if _, err := regexp.Compile(path); err != nil {
		return "", "", fmt.Errorf("%q: the path is not a regular expression: %w", bounded(path), err)
	}
	return method, path, nil
}

type hold struct {
	Hold
	re *regexp.Regexp
}

// SetHold arms h, replacing a hold not yet spent.
func (s *Server) SetHold(h Hold) error {
	re, err := regexp.Compile(h.Path)
	if err != nil {
		return fmt.Errorf("hold path %q: %w", bounded(h.Path), err)
	}
	if h.Signal == "" {
		return fmt.Errorf("a hold needs a signal file")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = &hold{Hold: h, re: re}
	return nil
}

// maxHeldBody bounds the body a held request keeps in memory.
const maxHeldBody = 64 << 20

// holdPoll is how often a held request looks for its released signal.
const holdPoll = 20 * time.Millisecond

// awaitHold holds r when it is the request the armed hold waits for, and
// reports whether its client went away before the hold was released (the
// request is then not served).
func (s *Server) awaitHold(r *http.Request, path string) (gone bool) {
	s.mu.Lock()
	h := s.hold
	if h == nil || (h.Method != "" && h.Method != r.Method) || !h.re.MatchString(path) {
		s.mu.Unlock()
		return false
	}
	s.hold = nil
	s.mu.Unlock()
	// net/http notices a client that went away only once the request's
	// body has been read: read it now, bounded, and hand the handler a
	// copy.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHeldBody))
	if err != nil {
		return true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	tmp := h.Signal + ".tmp"
	if err := os.WriteFile(tmp, []byte(r.Method+" "+path+"\n"), 0o644); err != nil {
		return false
	}
	if err := os.Rename(tmp, filepath.Clean(h.Signal)); err != nil {
		return false
	}
	tick := time.NewTicker(holdPoll)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			os.Remove(h.Signal)
			return true
		case <-tick.C:
			if _, err := os.Stat(h.Signal); os.IsNotExist(err) {
				return false
			}
		}
	}
}
