package ghstandin_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

func TestParseFaultRates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    map[ghstandin.RateKind]float64
		wantErr string // a substring of the error; "" for none
	}{
		{in: "5xx=0.02,timeout=0.01,429=0.01,lost=0.01", want: map[ghstandin.RateKind]float64{
			ghstandin.Rate5xx: 0.02, ghstandin.RateTimeout: 0.01, ghstandin.Rate429: 0.01, ghstandin.RateLost: 0.01}},
		{in: "403=0.5, secondary=0.25,malformed=0", want: map[ghstandin.RateKind]float64{
			ghstandin.Rate403: 0.5, ghstandin.RateSecondary: 0.25, ghstandin.RateMalformed: 0}},
		{in: "5xx=1", want: map[ghstandin.RateKind]float64{ghstandin.Rate5xx: 1}},
		{in: "", wantErr: "empty fault list"},
		{in: "5xx=0.02,5xy=0.01", wantErr: `column 10: unknown fault kind "5xy": expected one of 5xx, timeout, 403, 429, secondary, malformed, lost`},
		{in: "5xx", wantErr: `column 1: "5xx": expected KIND=RATE`},
		{in: "lost=0.1,lost=0.2", wantErr: "column 10: lost is given twice"},
		{in: "timeout=2", wantErr: `column 1: timeout="2": expected a rate from 0 to 1, e.g. timeout=0.01`},
		{in: "timeout=-0.1", wantErr: "expected a rate from 0 to 1"},
		{in: "timeout=NaN", wantErr: "expected a rate from 0 to 1"},
		{in: "timeout=lots", wantErr: "expected a rate from 0 to 1"},
		{in: "5xx=0.6,lost=0.6", wantErr: "the API kinds' rates add up to 1.2: expected at most 1"},
		{in: "git-5xx=0.02,git-timeout=0.01,git-lost=0.05,git-reset=0.01", want: map[ghstandin.RateKind]float64{
			ghstandin.RateGit5xx: 0.02, ghstandin.RateGitTimeout: 0.01, ghstandin.RateGitLost: 0.05, ghstandin.RateGitReset: 0.01}},
		// The API kinds and the git kinds fail different requests: each
		// group adds up to at most 1.
		{in: "5xx=1,git-reset=1", want: map[ghstandin.RateKind]float64{ghstandin.Rate5xx: 1, ghstandin.RateGitReset: 1}},
		{in: "5xx=0.1,git-lost=0.7,git-5xx=0.7", wantErr: "the git kinds' rates add up to 1.4: expected at most 1"},
		{in: "5xx=0.1,git-lots=0.1", wantErr: `column 9: unknown fault kind "git-lots": expected one of 5xx, timeout, 403, 429, secondary, malformed, lost, git-5xx, git-timeout, git-lost, git-reset`},
		{in: "git-lost=0.1,git-lost=0.2", wantErr: "column 14: git-lost is given twice"},
		{in: "git-timeout=", wantErr: `column 1: git-timeout="": expected a rate from 0 to 1, e.g. git-timeout=0.01`},
	}
	for _, tt := range tests {
		got, err := ghstandin.ParseFaultRates(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseFaultRates(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "e.g.") {
				t.Errorf("ParseFaultRates(%q) error %q gives no example", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFaultRates(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFaultRates(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzParseFaultRates(f *testing.F) {
	for _, s := range []string{"5xx=0.02,timeout=0.01,429=0.01,lost=0.01", "403=1", "lost=0.1,lost=0.2", "=,", "5xx=1e-3",
		"git-5xx=0.02,git-timeout=0.01,git-lost=0.05,git-reset=0.01", "5xx=1,git-reset=1", "git-=0.1", "lost=0.5,git-lost=0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rates, err := ghstandin.ParseFaultRates(s)
		if err != nil {
			return
		}
		// What parses writes back to the same rates (zeros left out).
		back := ghstandin.FormatFaultRates(rates)
		if back == "" {
			return
		}
		again, err := ghstandin.ParseFaultRates(back)
		if err != nil {
			t.Fatalf("FormatFaultRates(%q) = %q does not parse: %v", s, back, err)
		}
		for k, r := range rates {
			if again[k] != r {
				t.Fatalf("%q → %q: %s %v became %v", s, back, k, r, again[k])
			}
		}
	})
}

// get sends one request with login's token and returns the status, the
// headers and the body.
func send(t *testing.T, s *ghstandin.Server, method, path, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, strings.TrimSuffix(s.APIURL(), "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.MainToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestFaultRatesAnswerAsGitHub: each kind, at rate 1, is answered with
// GitHub's status, headers and body for that failure.
func TestFaultRatesAnswerAsGitHub(t *testing.T) {
	t.Parallel()
	message := func(body string) (string, string) {
		var m struct {
			Message          string `json:"message"`
			DocumentationURL string `json:"documentation_url"`
		}
		_ = json.Unmarshal([]byte(body), &m)
		return m.Message, m.DocumentationURL
	}
	tests := []struct {
		kind  ghstandin.RateKind
		check func(t *testing.T, status int, h http.Header, body string)
	}{
		{ghstandin.Rate5xx, func(t *testing.T, status int, h http.Header, body string) {
			if status != 500 && status != 502 && status != 503 {
				t.Errorf("status %d, want 500, 502 or 503", status)
			}
			if msg, _ := message(body); msg != http.StatusText(status) {
				t.Errorf("message %q, want %q", msg, http.StatusText(status))
			}
		}},
		{ghstandin.RateTimeout, func(t *testing.T, status int, h http.Header, body string) {
			if status != http.StatusGatewayTimeout {
				t.Errorf("status %d, want 504", status)
			}
		}},
		{ghstandin.Rate403, primaryLimit(403)},
		{ghstandin.Rate429, primaryLimit(429)},
		{ghstandin.RateSecondary, func(t *testing.T, status int, h http.Header, body string) {
			msg, doc := message(body)
			if status != 403 || h.Get("Retry-After") != "1" || !strings.Contains(msg, "secondary rate limit") || !strings.HasSuffix(doc, "#about-secondary-rate-limits") {
				t.Errorf("status %d Retry-After %q message %q doc %q, want GitHub's secondary limit", status, h.Get("Retry-After"), msg, doc)
			}
		}},
		{ghstandin.RateMalformed, func(t *testing.T, status int, h http.Header, body string) {
			var v any
			if status != 200 || json.Unmarshal([]byte(body), &v) == nil {
				t.Errorf("status %d body %q, want 200 with a truncated body", status, body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, "acme/api")
			s.SetFaultRates(ghstandin.FaultRates{Rates: map[ghstandin.RateKind]float64{tt.kind: 1}, Seed: 7, Hold: time.Millisecond})
			status, h, body := send(t, s, "GET", "/repos/acme/api", "")
			tt.check(t, status, h, body)
			if diff := cmp.Diff(map[ghstandin.RateKind]int{tt.kind: 1}, s.FaultsInjected()); diff != "" {
				t.Errorf("FaultsInjected (-want +got):\n%s", diff)
			}
			// Off again, the same request is answered.
			s.SetFaultRates(ghstandin.FaultRates{})
			if status, _, body := send(t, s, "GET", "/repos/acme/api", ""); status != 200 || !strings.Contains(body, `"full_name":"acme/api"`) {
				t.Errorf("with the faults off: %d %s", status, body)
			}
		})
	}
}

func primaryLimit(want int) func(t *testing.T, status int, h http.Header, body string) {
	return func(t *testing.T, status int, h http.Header, body string) {
		t.Helper()
		reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
		if status != want || h.Get("X-RateLimit-Remaining") != "0" || err != nil || reset <= 0 || !strings.Contains(body, "API rate limit exceeded") {
			t.Errorf("status %d remaining %q reset %q body %s, want %d with remaining 0, a reset time and GitHub's message",
				status, h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), body, want)
		}
	}
}

// TestFaultRatesLoseWritesOnly: a lost response performs the write and
// answers 502; reads are never lost.
func TestFaultRatesLoseWritesOnly(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	_, _, body := send(t, s, "GET", "/repos/acme/api/git/ref/heads/main", "")
	var main struct{ Object struct{ SHA string } }
	if err := json.Unmarshal([]byte(body), &main); err != nil || main.Object.SHA == "" {
		t.Fatalf("main: %v %s", err, body)
	}
	s.SetFaultRates(ghstandin.FaultRates{Rates: map[ghstandin.RateKind]float64{ghstandin.RateLost: 1}, Seed: 1})
	status, _, _ := send(t, s, "POST", "/repos/acme/api/git/refs", `{"ref":"refs/heads/lost","sha":"`+main.Object.SHA+`"}`)
	if status != http.StatusBadGateway {
		t.Fatalf("POST under a lost response: %d, want 502", status)
	}
	// The write landed: the branch exists, and a second create is refused.
	status, _, body = send(t, s, "GET", "/repos/acme/api/git/ref/heads/lost", "")
	if status != 200 || !strings.Contains(body, main.Object.SHA) {
		t.Errorf("the lost write did not land: %d %s", status, body)
	}
	if diff := cmp.Diff(map[ghstandin.RateKind]int{ghstandin.RateLost: 1}, s.FaultsInjected()); diff != "" {
		t.Errorf("FaultsInjected (-want +got):\n%s", diff)
	}
}

// TestFaultRatesAreSeeded: the same requests meet the same faults for a
// seed, at about the rate asked, and another seed deals others.
func TestFaultRatesAreSeeded(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []int {
		s := testserver.Start(t, "acme/api")
		s.SetFaultRates(ghstandin.FaultRates{Rates: map[ghstandin.RateKind]float64{ghstandin.Rate5xx: 0.25, ghstandin.Rate429: 0.25}, Seed: seed})
		var out []int
		for i := 0; i < 200; i++ {
			path := "/repos/acme/api"
			if i%2 == 1 {
				path = "/user"
			}
			status, _, _ := send(t, s, "GET", path, "")
			out = append(out, status)
		}
		return out
	}
	a, b, c := run(42), run(42), run(43)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("seed 42 twice dealt different faults (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Errorf("seeds 42 and 43 dealt the same faults")
	}
	failed := 0
	for _, st := range a {
		if st != 200 {
			failed++
		}
	}
	// 200 draws at p = 0.5: outside [60, 140] is beyond 5 standard deviations.
	if failed < 60 || failed > 140 {
		t.Errorf("%d of 200 requests failed at a rate of 0.5", failed)
	}
}
