package githubapi

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// etagCache is an http.RoundTripper that makes GET requests conditional.
// A response with an ETag is remembered; the next request for the same URL
// and credentials carries If-None-Match, and a 304 is answered from memory
// as the remembered 200 with X-From-Cache set, which go-github recognizes.
// GitHub does not charge rate limit for a 304, so unchanged reads are free.
type etagCache struct {
	next     http.RoundTripper
	mu       sync.Mutex
	entries  map[string]*list.Element
	order    *list.List // front = most recently used
	maxBytes int
	bytes    int
	hits     int
	changes  int // entries stored, so that an unchanged cache is not saved again
	now      func() time.Time
}

type cacheEntry struct {
	key    string
	etag   string
	status int
	header http.Header
	body   []byte
	// used is when the entry was last stored or answered from: SaveState
	// keeps only what was used within stateHorizon.
	used time.Time
}

func newETagCache(next http.RoundTripper, maxBytes int, now func() time.Time) *etagCache {
	return &etagCache{next: next, entries: map[string]*list.Element{}, order: list.New(), maxBytes: maxBytes, now: now}
}

// cacheKey never holds the token itself: credentials are hashed so that two
// tokens never share an entry and a dump of the cache reveals nothing.
func cacheKey(r *http.Request) string {
	h := sha256.Sum256([]byte(r.Header.Get("Authorization") + "\x00" + r.Header.Get("Accept")))
	return r.URL.String() + "\x00" + hex.EncodeToString(h[:8])
}

func (c *etagCache) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		return c.next.RoundTrip(r)
	}
	key := cacheKey(r)
	c.mu.Lock()
	var cached *cacheEntry
	if el, ok := c.entries[key]; ok {
		cached = el.Value.(*cacheEntry)
		c.order.MoveToFront(el)
		cached.used = c.now()
	}
	c.mu.Unlock()
	if cached != nil {
		r = r.Clone(r.Context())
		r.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
		h := cached.header.Clone()
		h.Set("X-From-Cache", "1")
		// Rate headers from the 304 are current; keep them.
		for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"} {
			if v := resp.Header.Get(k); v != "" {
				h.Set(k, v)
			}
		}
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(cached.body)), ContentLength: int64(len(cached.body)), Request: r}, nil
	}
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.store(&cacheEntry{key: key, etag: etag, status: resp.StatusCode, header: resp.Header.Clone(), body: body, used: c.now()})
	return resp, nil
}

func (c *etagCache) store(e *cacheEntry) {
	if len(e.body) > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.storeLocked(e)
}

// retrying is an http.RoundTripper that retries GET requests on 5xx
// answers, network errors and timeouts with exponential backoff and jitter,
// and waits out a short secondary rate limit. Writes are never retried here:
// the reconciler retries them on its next pass, after checking that they did
// not land, so nothing is posted twice.
type retrying struct {
	next     http.RoundTripper
	attempts int           // total attempts per request
	base     time.Duration // first backoff
	maxWait  time.Duration // longest Retry-After worth waiting for within a pass
	timeout  time.Duration // per-attempt timeout
	sleep    func(context.Context, time.Duration) error
	log      *slog.Logger
}

func (t *retrying) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		// Not retried, but read whole like a read's answer: a body left
		// unread (a 201's, which go-github decodes without reaching its
		// end) makes net/http drop the connection instead of reusing it.
		resp, err := t.attempt(r)
		if err != nil {
			return nil, err
		}
		return readBody(resp)
	}
	var (
		resp *http.Response
		err  error
	)
	for i := 0; i < t.attempts; i++ {
		if i > 0 {
			wait := t.backoff(i)
			if ra := retryAfter(resp); ra > 0 {
				wait = ra
			}
			if resp != nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			t.log.Info("github request retried", "method", r.Method, "path", r.URL.Path, "attempt", i+1, "wait", wait.String(), "status", statusOf(resp), "error", errString(err))
			if serr := t.sleep(r.Context(), wait); serr != nil {
				return nil, serr
			}
		}
		resp, err = t.attempt(r)
		if err == nil {
			// A body cut short in transfer fails only when it is read,
			// after RoundTrip; read it here, where it can be retried.
			resp, err = readBody(resp)
		}
		if !t.retryable(resp, err, r.Context()) {
			return resp, err
		}
	}
	return resp, err
}

// maxBody bounds an answer's body: more than any answer gallivant reads
// (a page of 100 pull requests' files, a compare) should ever be.
const maxBody = 64 << 20

// readBody reads resp's body into memory (the ETag cache and go-github
// read it whole anyway), to its end so that the connection is reused, and
// closes it; a failed read, or a body over maxBody, is the response's
// error.
func readBody(resp *http.Response) (*http.Response, error) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the response body: %w", err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("read the response body: over %d MiB", maxBody>>20)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func (t *retrying) attempt(r *http.Request) (*http.Response, error) {
	if t.timeout <= 0 {
		return t.next.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), t.timeout)
	resp, err := t.next.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error { err := b.ReadCloser.Close(); b.cancel(); return err }

func (t *retrying) retryable(resp *http.Response, err error, ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		var ne net.Error
		return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	switch {
	case resp.StatusCode >= 500:
		return true
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		// A secondary limit with a short Retry-After is waited out; a
		// primary limit (remaining 0) never is within a pass.
		ra := retryAfter(resp)
		return resp.Header.Get("X-RateLimit-Remaining") != "0" && ra > 0 && ra <= t.maxWait
	}
	return false
}

func (t *retrying) backoff(attempt int) time.Duration {
	d := t.base << (attempt - 1)
	// Full jitter: a uniformly random wait in [d/2, d).
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

func statusOf(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
