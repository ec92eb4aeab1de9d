package ghstandin

import (
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// FaultKind is a failure the server can produce instead of an answer.
type FaultKind int

// Faults GitHub really produces.
const (
	// FaultStatus answers with Fault.Status (a 5xx by default).
	FaultStatus FaultKind = iota + 1
	// FaultTimeout holds the request until the client gives up.
	FaultTimeout
	// FaultRateLimit is primary rate-limit exhaustion: 403 with
	// X-RateLimit-Remaining: 0 and a reset time.
	FaultRateLimit
	// FaultRateLimit429 is the same with status 429, which go-github v66
	// does not classify.
	FaultRateLimit429
	// FaultSecondary is a secondary rate limit: 403 with Retry-After and the
	// secondary-rate-limits documentation URL.
	FaultSecondary
	// FaultSecondary429 is a secondary rate limit answered 429.
	FaultSecondary429
	// FaultMalformed answers 200 with a truncated JSON body.
	FaultMalformed
	// FaultLostResponse performs the request, then answers 502 as if it had
	// failed: the write landed but the client never learns it.
	FaultLostResponse
	// FaultReset serves the request (a push lands) and resets the
	// connection in the middle of its answer. Git requests only
	// (Fault.Git).
	FaultReset
)

// Fault describes requests to fail and how.
type Fault struct {
	// Method restricts the fault to one HTTP method; "" matches any.
	Method string
	// Path is a regular expression matched against the path after /api/v3
	// (after the host for Git faults, /owner/name.git/info/refs,
	// /owner/name.git/git-receive-pack, …); "" matches any.
	Path string
	// Git makes the fault one of git's smart HTTP instead of the API.
	Git  bool
	Kind FaultKind
	// Status is the status of FaultStatus; 502 when 0.
	Status int
	// Count is how many matching requests fail; 0 means until removed.
	Count int
	// RetryAfter is the Retry-After of secondary limits, in seconds.
	RetryAfter int
	// Hold bounds FaultTimeout; 30 seconds when 0.
	Hold time.Duration
}

type activeFault struct {
	Fault
	re   *regexp.Regexp
	left int
}

// InjectFault switches a fault on and returns a function that switches it off.
func (s *Server) InjectFault(f Fault) (remove func()) {
	af := &activeFault{Fault: f, left: f.Count}
	if f.Path != "" {
		af.re = regexp.MustCompile(f.Path)
	}
	s.mu.Lock()
	s.faults = append(s.faults, af)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range s.faults {
			if x == af {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// Faults returns the faults InjectFault switched on that are still on,
// each with Count set to the requests it has left to fail (0 for a fault
// on until removed).
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, len(s.faults))
	for i, f := range s.faults {
		out[i] = f.Fault
		if f.Count > 0 {
			out[i].Count = f.left
		}
	}
	return out
}

func (s *Server) matchFault(method, path string, git bool) *activeFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Git != git || (f.Method != "" && f.Method != method) {
			continue
		}
		if f.re != nil && !f.re.MatchString(path) {
			continue
		}
		if f.Count > 0 {
			f.left--
			if f.left <= 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}

func (s *Server) applyFault(f *activeFault, w http.ResponseWriter, r *http.Request, rl *rate) int {
	const secondaryDoc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	switch f.Kind {
	case FaultTimeout:
		hold := f.Hold
		if hold == 0 {
			hold = 30 * time.Second
		}
		select {
		case <-r.Context().Done():
		case <-time.After(hold):
		}
		writeError(w, http.StatusGatewayTimeout, "Gateway Timeout")
		return http.StatusGatewayTimeout
	case FaultRateLimit, FaultRateLimit429:
		status := http.StatusForbidden
		if f.Kind == FaultRateLimit429 {
			status = http.StatusTooManyRequests
		}
		s.mu.Lock()
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(rl.reset.Unix(), 10))
		s.mu.Unlock()
		writeJSON(w, status, map[string]string{
			"message":           "API rate limit exceeded.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
		})
		return status
	case FaultSecondary, FaultSecondary429:
		status := http.StatusForbidden
		if f.Kind == FaultSecondary429 {
			status = http.StatusTooManyRequests
		}
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
		writeJSON(w, status, map[string]string{
			"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"documentation_url": secondaryDoc,
		})
		return status
	case FaultMalformed:
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id": 1, "number": `))
		return http.StatusOK
	default:
		status := f.Status
		if status == 0 {
			status = http.StatusBadGateway
		}
		writeError(w, status, http.StatusText(status))
		return status
	}
}
