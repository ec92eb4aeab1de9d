package daemon

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const secret = "It's a Secret to Everybody"

// sign is GitHub's X-Hub-Signature-256 of body under key.
func sign(key, body string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// deliver posts one webhook delivery and returns the status code.
func deliver(t *testing.T, url, event, delivery, body, signature string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/hooks/github", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// scrape reads /metrics into "name{labels}" → value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// ownedView is a view in which acme/api#7 and its branch are gallivant's.
func ownedView() *View {
	return &View{ControlBranch: "main", Commit: strings.Repeat("a", 40),
		prs:      map[string]bool{"acme/api#7": true},
		branches: map[string]bool{"acme/api gallivant/webhooks": true}}
}

func TestWebhookSignaturesAndRelevance(t *testing.T) {
	t.Parallel()
	state := &State{}
	state.SetView(ownedView())
	var kicks atomic.Int32
	var changedMu sync.Mutex
	changed := map[string]int{}
	m := NewMetrics()
	ts := httptest.NewServer(Handler(HandlerOptions{Metrics: m, State: state, Secret: []byte(secret), Kick: func() { kicks.Add(1) }, ControlRepo: "acme/control",
		Changed: func(repo string) { changedMu.Lock(); changed[repo]++; changedMu.Unlock() }}))
	defer ts.Close()

	review := `{"action":"submitted","pull_request":{"number":7},"repository":{"full_name":"acme/api"}}`
	stranger := `{"action":"submitted","pull_request":{"number":8},"repository":{"full_name":"acme/api"}}`
	tests := []struct {
		name, event, body, sig string
		wantCode               int
		wantKick               bool
	}{
		{"valid review on an owned pull request", "pull_request_review", review, sign(secret, review), http.StatusAccepted, true},
		{"valid review on someone else's pull request", "pull_request_review", stranger, sign(secret, stranger), http.StatusAccepted, false},
		{"push to the control branch", "push", `{"ref":"refs/heads/main","repository":{"full_name":"acme/control"}}`, "", http.StatusAccepted, true},
		{"push to a target's main", "push", `{"ref":"refs/heads/main","repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, false},
		{"push to a work branch", "push", `{"ref":"refs/heads/gallivant/webhooks","repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, true},
		{"comment on an owned pull request", "issue_comment", `{"action":"created","issue":{"number":7,"pull_request":{"url":"x"}},"repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, true},
		{"comment on an issue of the same number", "issue_comment", `{"action":"created","issue":{"number":7},"repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, false},
		{"check run on an owned pull request", "check_run", `{"action":"completed","check_run":{"pull_requests":[{"number":7}]},"repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, true},
		{"status on a work branch", "status", `{"sha":"x","branches":[{"name":"gallivant/webhooks"}],"repository":{"full_name":"acme/api"}}`, "", http.StatusAccepted, true},
		{"unknown event", "sponsorship", `{"action":"created"}`, "", http.StatusAccepted, false},
		{"ping", "ping", `{"zen":"Keep it logically awesome."}`, "", http.StatusAccepted, false},
		{"wrong secret", "pull_request_review", review, sign("guess", review), http.StatusUnauthorized, false},
		{"missing signature", "pull_request_review", review, "-", http.StatusUnauthorized, false},
		{"signature of another body", "pull_request_review", review, sign(secret, stranger), http.StatusUnauthorized, false},
		{"signed garbage", "pull_request_review", `{"pull_request":`, "", http.StatusBadRequest, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := tt.sig
			switch sig {
			case "":
				sig = sign(secret, tt.body)
			case "-":
				sig = ""
			}
			before := kicks.Load()
			if got := deliver(t, ts.URL, tt.event, "d-"+tt.name, tt.body, sig); got != tt.wantCode {
				t.Errorf("status %d, want %d", got, tt.wantCode)
			}
			if kicked := kicks.Load() > before; kicked != tt.wantKick {
				t.Errorf("kicked %v, want %v", kicked, tt.wantKick)
			}
		})
	}
	// Every triggering delivery names its repository first, so that the
	// pass it kicks reads that repository's idle pull requests in full.
	changedMu.Lock()
	if diff := cmp.Diff(map[string]int{"acme/api": 5, "acme/control": 1}, changed); diff != "" {
		t.Errorf("Changed calls (-want +got):\n%s", diff)
	}
	changedMu.Unlock()
	got := scrape(t, ts.URL)
	want := map[string]float64{
		`gallivant_webhook_deliveries_total{outcome="triggered"}`:    6,
		`gallivant_webhook_deliveries_total{outcome="ignored"}`:      5,
		`gallivant_webhook_deliveries_total{outcome="unauthorized"}`: 3,
		`gallivant_webhook_deliveries_total{outcome="malformed"}`:    1,
		`gallivant_webhook_deliveries_total{outcome="disabled"}`:     0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestWebhooksOffWithoutSecret(t *testing.T) {
	t.Parallel()
	var kicks atomic.Int32
	ts := httptest.NewServer(Handler(HandlerOptions{Kick: func() { kicks.Add(1) }}))
	defer ts.Close()
	body := `{"ref":"refs/heads/main"}`
	// Signed with the empty key: without a secret nothing is accepted.
	if got := deliver(t, ts.URL, "push", "d1", body, sign("", body)); got != http.StatusNotFound {
		t.Errorf("status %d, want 404", got)
	}
	if kicks.Load() != 0 {
		t.Error("a delivery triggered a pass without a secret")
	}
}

// fakeTimer is the debounce timer the test fires itself.
type fakeTimer struct {
	started chan time.Duration
	fire    chan time.Time
}

func newFakeTimer() *fakeTimer {
	return &fakeTimer{started: make(chan time.Duration, 8), fire: make(chan time.Time)}
}

func (f *fakeTimer) after(d time.Duration) <-chan time.Time {
	f.started <- d
	return f.fire
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// A replayed burst of signed deliveries makes one pass; a delivery that
// arrives during that pass makes exactly one more.
func TestWebhookBurstsCoalesce(t *testing.T) {
	t.Parallel()
	state := &State{}
	state.SetView(ownedView())
	trig := NewTrigger(3 * time.Second)
	timer := newFakeTimer()
	trig.After = timer.after
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Secret: []byte(secret), Kick: trig.Kick}))
	defer ts.Close()

	passes := make(chan int, 8)
	release := make(chan struct{})
	var n int
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		trig.Loop(ctx, func() {
			n++
			passes <- n
			<-release
		})
		close(stopped)
	}()

	body := `{"action":"synchronize","number":7,"pull_request":{"number":7},"repository":{"full_name":"acme/api"}}`
	for i := 0; i < 20; i++ {
		// GitHub's redelivery sends the same delivery id again.
		if got := deliver(t, ts.URL, "pull_request", "same-delivery", body, sign(secret, body)); got != http.StatusAccepted {
			t.Fatalf("delivery %d: status %d", i, got)
		}
	}
	if d := recv(t, timer.started, "the debounce window to open"); d != 3*time.Second {
		t.Errorf("debounce %v, want 3s", d)
	}
	timer.fire <- time.Now()
	if got := recv(t, passes, "the first pass"); got != 1 {
		t.Fatalf("pass %d, want 1", got)
	}
	// During the pass: another event for the same pull request.
	deliver(t, ts.URL, "pull_request_review", "later", `{"pull_request":{"number":7},"repository":{"full_name":"acme/api"}}`,
		sign(secret, `{"pull_request":{"number":7},"repository":{"full_name":"acme/api"}}`))
	release <- struct{}{}
	recv(t, timer.started, "a second window for the event during the pass")
	timer.fire <- time.Now()
	if got := recv(t, passes, "the second pass"); got != 2 {
		t.Fatalf("pass %d, want 2", got)
	}
	release <- struct{}{}
	cancel()
	recv(t, stopped, "the loop to end")
	if diff := cmp.Diff([]int{0, 0}, []int{len(timer.started), len(trig.kick)}); diff != "" {
		t.Errorf("windows opened or kicks left after the two passes (-want +got):\n%s", diff)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	state := &State{}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Now: func() time.Time { return now }}))
	defer ts.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return resp.StatusCode, b.String()
	}
	type probe struct {
		Code int
		Body string
	}
	check := func(name, path string, want probe) {
		t.Helper()
		code, body := get(path)
		if diff := cmp.Diff(want, probe{code, body}); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", name, path, diff)
		}
	}
	check("alive before any pass", "/healthz", probe{200, "ok"})
	check("not ready before any pass", "/readyz", probe{503, `{"ready":false,"error":"no pass has finished yet"}`})
	state.RecordPass(PassRecord{Ended: now.Add(-42 * time.Second), Result: ResultProblems})
	check("ready after a pass that ran", "/readyz", probe{200, `{"ready":true,"last_pass":"2026-11-30T11:59:18Z","age_seconds":42,"result":"problems"}`})
	state.RecordPass(PassRecord{Ended: now.Add(-5 * time.Second), Result: ResultFailed, Err: "github unreachable"})
	check("not ready after a pass that could not run", "/readyz", probe{503, `{"ready":false,"last_pass":"2026-11-30T11:59:55Z","age_seconds":5,"result":"failed","error":"github unreachable"}`})
}
