package ghstandin

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RateKind is one kind of fault a FaultRates mix draws, named as on the
// `gallivant sandbox --faults` command line.
type RateKind string

// The kinds of FaultRates, each answered as GitHub answers it.
const (
	// Rate5xx answers 500, 502 or 503 with GitHub's error body.
	Rate5xx RateKind = "5xx"
	// RateTimeout holds the request for FaultRates.Hold (or until the
	// client gives up), then answers 504.
	RateTimeout RateKind = "timeout"
	// Rate403 is primary rate-limit exhaustion: 403 with
	// X-RateLimit-Remaining: 0 and the window's X-RateLimit-Reset.
	Rate403 RateKind = "403"
	// Rate429 is the same answered 429.
	Rate429 RateKind = "429"
	// RateSecondary is a secondary rate limit: 403 with Retry-After.
	RateSecondary RateKind = "secondary"
	// RateMalformed answers 200 with a truncated JSON body.
	RateMalformed RateKind = "malformed"
	// RateLost performs a write (any method but GET and HEAD) and then
	// answers 502: the write landed, the client never learns it.
	RateLost RateKind = "lost"
)

// RateKinds lists every RateKind in the order String writes them: the API
// kinds, then the git kinds (gitfaults.go).
var RateKinds = []RateKind{Rate5xx, RateTimeout, Rate403, Rate429, RateSecondary, RateMalformed, RateLost,
	RateGit5xx, RateGitTimeout, RateGitLost, RateGitReset}

func (k RateKind) fault() FaultKind {
	switch k {
	case Rate5xx, RateGit5xx:
		return FaultStatus
	case RateTimeout, RateGitTimeout:
		return FaultTimeout
	case Rate403:
		return FaultRateLimit
	case Rate429:
		return FaultRateLimit429
	case RateSecondary:
		return FaultSecondary
	case RateMalformed:
		return FaultMalformed
	case RateGitReset:
		return FaultReset
	default:
		return FaultLostResponse
	}
}

// FaultRates is a seeded random mix of faults: each API request fails with
// the probability of each API kind, each git request (smart HTTP) with
// that of each git kind. The draw for a request is a function of the
// seed, its method and path and how many requests with that method and path
// came before it, so the same sequence of requests meets the same faults
// for a seed, whatever other requests interleave.
type FaultRates struct {
	// Rates is the probability of each kind per request; their sum is at
	// most 1. RateLost applies to writes only, RateGitLost to pushes only.
	Rates map[RateKind]float64
	// Seed makes the draws.
	Seed uint64
	// Hold bounds a RateTimeout or RateGitTimeout; 10 seconds (GitHub's
	// own limit on a request) when 0.
	Hold time.Duration
	// RetryAfter is the Retry-After of RateSecondary, in seconds; 1 when 0.
	RetryAfter int
}

// ParseFaultRates reads the --faults syntax: comma-separated KIND=RATE
// pairs, e.g. "5xx=0.02,timeout=0.01,429=0.01,lost=0.01,git-lost=0.05".
// The API kinds' rates add up to at most 1, and so do the git kinds'.
// Errors name the 1-based column of the pair at fault, what was expected
// and an example.
func ParseFaultRates(s string) (map[RateKind]float64, error) {
	const example = "e.g. 5xx=0.02,timeout=0.01,429=0.01,lost=0.01,git-lost=0.05"
	out := map[RateKind]float64{}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty fault list: expected KIND=RATE pairs separated by commas, %s", example)
	}
	col := 1
	var sum [2]float64 // the API kinds', the git kinds'
	for _, pair := range strings.Split(s, ",") {
		at := col
		col += len(pair) + 1
		name, val, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, fmt.Errorf("column %d: %q: expected KIND=RATE, %s", at, bounded(pair), example)
		}
		k := RateKind(name)
		if !slices.Contains(RateKinds, k) {
			return nil, fmt.Errorf("column %d: unknown fault kind %q: expected one of %s, %s", at, bounded(name), kindList(), example)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("column %d: %s is given twice, %s", at, k, example)
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
			return nil, fmt.Errorf("column %d: %s=%q: expected a rate from 0 to 1, e.g. %s=0.01", at, k, bounded(val), k)
		}
		out[k] = r
		if k.git() {
			sum[1] += r
		} else {
			sum[0] += r
		}
	}
	for i, of := range []string{"API", "git"} {
		if sum[i] > 1+1e-9 {
			return nil, fmt.Errorf("the %s kinds' rates add up to %g: expected at most 1, %s", of, sum[i], example)
		}
	}
	return out, nil
}

// FormatFaultRates writes rates in the --faults syntax, kinds in the order
// of RateKinds, zero rates left out.
func FormatFaultRates(rates map[RateKind]float64) string {
	var parts []string
	for _, k := range RateKinds {
		if r := rates[k]; r > 0 {
			parts = append(parts, string(k)+"="+strconv.FormatFloat(r, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ",")
}

func kindList() string {
	names := make([]string, len(RateKinds))
	for i, k := range RateKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// bounded quotes at most 40 bytes of untrusted text.
func bounded(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

type faultRates struct {
	FaultRates
	seen     map[string]uint64 // requests drawn for, per method and path
	injected map[RateKind]int
}

// SetFaultRates switches a seeded random mix of faults on, replacing any
// earlier one; a nil or empty Rates switches it off. Faults switched on
// with InjectFault take precedence.
func (s *Server) SetFaultRates(fr FaultRates) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(fr.Rates) == 0 {
		s.random = nil
		return
	}
	if fr.Hold == 0 {
		fr.Hold = 10 * time.Second
	}
	if fr.RetryAfter == 0 {
		fr.RetryAfter = 1
	}
	fr.Rates = maps.Clone(fr.Rates)
	s.random = &faultRates{FaultRates: fr, seen: map[string]uint64{}, injected: map[RateKind]int{}}
}

// FaultsInjected counts the faults SetFaultRates' mix has injected, by
// kind; kinds never drawn are absent.
func (s *Server) FaultsInjected() map[RateKind]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[RateKind]int{}
	if s.random != nil {
		for k, n := range s.random.injected {
			out[k] = n
		}
	}
	return out
}

// drawFault draws the fault of an API request from the random mix; nil
// when the request is answered.
func (s *Server) drawFault(method, path string) *activeFault {
	return s.draw(method, path, false, method != http.MethodGet && method != http.MethodHead)
}

// draw draws the fault of a request from the random mix's kinds for git
// requests (git) or API requests; write says a lost kind applies.
func (s *Server) draw(method, path string, git, write bool) *activeFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	fr := s.random
	if fr == nil {
		return nil
	}
	key := method + " " + path
	n := fr.seen[key]
	fr.seen[key] = n + 1
	u := unitDraw(fr.Seed, key, n)
	acc := 0.0
	for _, k := range RateKinds {
		if k.git() != git || ((k == RateLost || k == RateGitLost) && !write) {
			continue
		}
		acc += fr.Rates[k]
		if u >= acc {
			continue
		}
		fr.injected[k]++
		f := Fault{Kind: k.fault(), Hold: fr.Hold, RetryAfter: fr.RetryAfter}
		if k == Rate5xx || k == RateGit5xx {
			f.Status = []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[int(u*1e6)%3]
		}
		return &activeFault{Fault: f}
	}
	return nil
}

// unitDraw is a uniform number in [0, 1) made from the seed, the request's
// method and path and its ordinal among those requests.
func unitDraw(seed uint64, key string, n uint64) float64 {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], n)
	h.Write(b[:])
	h.Write([]byte(key))
	// splitmix64's finalizer spreads FNV's weak low bits.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
