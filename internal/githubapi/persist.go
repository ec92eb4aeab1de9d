package githubapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The adapter's conditional state (the ETag cache, what discovery saw,
// which branch protections were unreadable, the quiet marks of idle pull
// requests) survives the process in one
// file per credential under the state directory ($GALLIVANT_CACHE/github):
// a one-shot `gallivant reconcile` in CI then starts warm, and a pass over
// nothing new costs no rate limit. The file is a cache: deleting it, or a
// file this version cannot read, only makes the next process start cold.

// stateVersion changes whenever the file's shape or the meaning of what it
// holds does; another version's file is ignored. 2: the quiet marks of
// ready pull requests, which a version-1 build would trust without
// re-reading their checks. 3: a hidden protection's key (required.go). 4:
// gzip, bodies as JSON, and when each entry was last used.
const stateVersion = 4

// stateHorizon is how long a cache entry no pass has used is still saved:
// an entry a pass did not need for a day (an old head's checks and
// comparisons, a closed pull request's details) is dropped from the state
// file rather than restored, parsed and rewritten by every run until the
// cache's size bound evicts it. Whatever runs at least daily keeps all it
// reads again.
const stateHorizon = 24 * time.Hour

// stateRefresh is how often a state whose only change is that its entries
// were used again (every read answered 304) is written: often enough that
// no entry a pass keeps using ages past stateHorizon in the file.
const stateRefresh = stateHorizon / 4

// persistedState is the file's content. It never holds the token: entries
// are keyed by a hash of the request's credentials (cacheKey), and the file
// name by a hash of the token and API URL.
type persistedState struct {
	Version   int                         `json:"version"`
	Saved     time.Time                   `json:"saved"`
	Entries   []persistedEntry            `json:"entries"` // most recently used first
	Discovery map[string]persistedDisc    `json:"discovery,omitempty"`
	Hidden    map[string]hiddenProtection `json:"protection_hidden,omitempty"`
	// Readable are the branches whose classic protection last answered
	// its REST read with a 200 (required.go protectionReadable); a file
	// without it, as every version-4 file before it, holds none, and the
	// next read of each protection through REST says again.
	Readable map[string]time.Time       `json:"protection_readable,omitempty"`
	Quiet    map[string]json.RawMessage `json:"quiet,omitempty"`
	// GraphQLRefused is a remembered refusal of GraphQL (graphqlrefused.go);
	// a file without it, as every version-4 file before it, remembers none.
	GraphQLRefused *graphQLRefusal `json:"graphql_refused,omitempty"`
}

type persistedEntry struct {
	Key    string      `json:"key"`
	ETag   string      `json:"etag"`
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	// JSON is the body when it is JSON (every REST answer), kept as it
	// is; Body, base64 in the file, any other body.
	JSON json.RawMessage `json:"json,omitempty"`
	Body []byte          `json:"body,omitempty"`
	Used time.Time       `json:"used"`
}

type persistedDisc struct {
	PRs      []PullRequest `json:"prs"`
	Newest   time.Time     `json:"newest"`
	Complete bool          `json:"complete"`
}

// keptHeaders are the response headers a cached answer replays: what
// go-github reads (pagination, rate) and what identifies the body. Nothing
// else is written to disk.
var keptHeaders = []string{"Content-Type", "ETag", "Link", "Last-Modified", "X-GitHub-Media-Type",
	"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"}

// statePath names the state file of one credential: a hash of the API URL
// and the token, never the token.
func statePath(dir, apiURL, token string) string {
	h := sha256.Sum256([]byte(strings.TrimRight(apiURL, "/") + "\x00" + token))
	return filepath.Join(dir, "state-"+hex.EncodeToString(h[:12])+".json")
}

// loadState fills the adapter from its state file, if there is a readable
// one; any problem means a cold start, said once in the log.
func (g *Client) loadState() {
	if g.statePath == "" {
		return
	}
	data, err := readState(g.statePath)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var st persistedState
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err == nil && st.Version != stateVersion {
		err = fmt.Errorf("version %d, want %d", st.Version, stateVersion)
	}
	if err != nil {
		g.log.Warn("github cache state not read; starting cold", "path", g.statePath, "error", err.Error())
		return
	}
	c := g.cache
	c.mu.Lock()
	// Oldest first, so the most recently used ends at the front.
	for i := len(st.Entries) - 1; i >= 0; i-- {
		e := st.Entries[i]
		if e.Key == "" || e.ETag == "" {
			continue
		}
		body := e.Body
		if e.JSON != nil {
			body = []byte(e.JSON)
		}
		c.storeLocked(&cacheEntry{key: e.Key, etag: e.ETag, status: e.Status, header: e.Header, body: body, used: e.Used})
	}
	g.cache.changes = 0
	c.mu.Unlock()
	g.mu.Lock()
	for repo, d := range st.Discovery {
		k := &discovery{prs: map[int]PullRequest{}, newest: d.Newest, complete: d.Complete}
		for _, pr := range d.PRs {
			k.prs[pr.Number] = pr
		}
		g.known[repo] = k
	}
	for k, h := range st.Hidden {
		g.protectionHidden[k] = h
	}
	if len(st.Readable) > 0 {
		g.protectionRead = st.Readable
	}
	if len(st.Quiet) > 0 {
		g.quiet = st.Quiet
	}
	g.graphQLRefused = st.GraphQLRefused
	// What was just read is what the file holds.
	g.saved, g.savedShape, g.savedAt = true, [3]int{len(g.known), g.hiddenChanges, g.quietChanges}, st.Saved
	g.mu.Unlock()
}

// SaveState writes the adapter's conditional state to its state file
// atomically (a temporary file renamed over it), so that a process killed
// mid-write leaves the previous file or the new one, never half of one. It
// does nothing when the adapter has no state directory.
func (g *Client) SaveState() error {
	if g.statePath == "" {
		return nil
	}
	// An idle pass (every read answered 304) changes nothing worth a
	// write; a daemon would otherwise rewrite the file every pass.
	g.cache.mu.Lock()
	changes, hits := g.cache.changes, g.cache.hits
	g.cache.mu.Unlock()
	g.mu.Lock()
	shape := [3]int{len(g.known), g.hiddenChanges, g.quietChanges}
	g.mu.Unlock()
	now := g.now()
	used := hits != g.savedHits && now.Sub(g.savedAt) >= stateRefresh
	if g.saved && changes == g.savedChanges && shape == g.savedShape && !used {
		return nil
	}
	st := persistedState{Version: stateVersion, Saved: now.UTC(), Discovery: map[string]persistedDisc{}, Hidden: map[string]hiddenProtection{}}
	c := g.cache
	oldest := now.Add(-stateHorizon)
	c.mu.Lock()
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		if e.used.Before(oldest) {
			continue
		}
		h := http.Header{}
		for _, k := range keptHeaders {
			if v := e.header.Values(k); len(v) > 0 {
				h[http.CanonicalHeaderKey(k)] = v
			}
		}
		pe := persistedEntry{Key: e.key, ETag: e.etag, Status: e.status, Header: h, Used: e.used.UTC()}
		if json.Valid(e.body) {
			pe.JSON = e.body
		} else {
			pe.Body = e.body
		}
		st.Entries = append(st.Entries, pe)
	}
	c.mu.Unlock()
	g.mu.Lock()
	for repo, d := range g.known {
		pd := persistedDisc{Newest: d.newest, Complete: d.complete}
		for _, pr := range d.prs {
			pd.PRs = append(pd.PRs, pr)
		}
		st.Discovery[repo] = pd
	}
	for k, h := range g.protectionHidden {
		st.Hidden[k] = h
	}
	if len(g.protectionRead) > 0 {
		st.Readable = make(map[string]time.Time, len(g.protectionRead))
		for k, at := range g.protectionRead {
			st.Readable[k] = at
		}
	}
	st.GraphQLRefused = g.graphQLRefused
	if len(g.quiet) > 0 {
		st.Quiet = make(map[string]json.RawMessage, len(g.quiet))
		for k, m := range g.quiet {
			st.Quiet[k] = m
		}
	}
	g.mu.Unlock()
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("save github cache state: %w", err)
	}
	if data, err = compress(data); err != nil {
		return fmt.Errorf("save github cache state: %w", err)
	}
	if err := writeAtomic(g.statePath, data); err != nil {
		return fmt.Errorf("save github cache state: %w", err)
	}
	g.saved, g.savedChanges, g.savedShape, g.savedAt, g.savedHits = true, changes, shape, now, hits
	return nil
}

// The state file is gzip-compressed JSON: GitHub's answers repeat their
// field names and URLs, so it compresses about tenfold. A file that is
// not gzip (one written by hand, or a version before 4) is read as plain
// JSON and then refused by its version.

// maxState bounds the state file's decompressed size.
const maxState = 1 << 30

// readState reads the state file, decompressing it when it is gzip.
func readState(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxState+1))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	if len(out) > maxState {
		return nil, fmt.Errorf("decompressed over %d MiB", maxState>>20)
	}
	return out, nil
}

// compress gzips data.
func compress(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic replaces path with data through a temporary file in the same
// directory, readable by the owner only.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// storeLocked is store with c.mu held.
func (c *etagCache) storeLocked(e *cacheEntry) {
	if len(e.body) > c.maxBytes/8 {
		return
	}
	if el, ok := c.entries[e.key]; ok {
		c.bytes -= len(el.Value.(*cacheEntry).body)
		c.order.Remove(el)
	}
	c.changes++
	c.entries[e.key] = c.order.PushFront(e)
	c.bytes += len(e.body)
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		old := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.entries, old.key)
		c.bytes -= len(old.body)
	}
}

// RequestStats counts what the adapter asked GitHub, every attempt
// included: Requests sent, how many GitHub answered 304 (free), and how
// many were RateLimited (charged against the primary limit: every answer
// but a 304 or a 5xx, and but a GraphQL answer, which GraphQL's own budget
// pays for). GraphQL counts the requests that were GraphQL queries or
// mutations (among Requests; never 304, paid from GraphQL's budget of
// points). Remaining and Limit are the primary budget GitHub last
// reported, with its Reset; -1 when no answer said.
type RequestStats struct {
	Requests    int       `json:"requests"`
	NotModified int       `json:"not_modified"`
	RateLimited int       `json:"rate_limited"`
	GraphQL     int       `json:"graphql"`
	Remaining   int       `json:"remaining"`
	Limit       int       `json:"limit"`
	Reset       time.Time `json:"reset,omitzero"`
}

// Sub returns the counts made since earlier; the budget is s's.
func (s RequestStats) Sub(earlier RequestStats) RequestStats {
	s.Requests -= earlier.Requests
	s.NotModified -= earlier.NotModified
	s.RateLimited -= earlier.RateLimited
	s.GraphQL -= earlier.GraphQL
	return s
}

// meter is the http.RoundTripper nearest the network: it counts every
// attempt and remembers the budget GitHub reports.
type meter struct {
	next http.RoundTripper
	mu   sync.Mutex
	s    RequestStats
}

func newMeter(next http.RoundTripper) *meter {
	return &meter{next: next, s: RequestStats{Remaining: -1, Limit: -1}}
}

func (m *meter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := m.next.RoundTrip(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.s.Requests++
	if strings.HasSuffix(r.URL.Path, "/graphql") {
		m.s.GraphQL++
	}
	if err != nil {
		return resp, err
	}
	// Only the core budget: /rate_limit, search and GraphQL have their own.
	res := resp.Header.Get("X-RateLimit-Resource")
	core := res == "" || res == "core"
	switch {
	case resp.StatusCode == http.StatusNotModified:
		m.s.NotModified++
	case resp.StatusCode < 500 && core:
		m.s.RateLimited++
	}
	if core {
		if v, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); err == nil {
			m.s.Remaining = v
		}
		if v, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Limit")); err == nil {
			m.s.Limit = v
		}
		if v, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			m.s.Reset = time.Unix(v, 0).UTC()
		}
	}
	return resp, nil
}

// Requests returns what the adapter has asked GitHub since it was made.
func (g *Client) Requests() RequestStats {
	g.meter.mu.Lock()
	defer g.meter.mu.Unlock()
	return g.meter.s
}
