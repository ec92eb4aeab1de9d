package daemon

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 29: a webhook signed only with the legacy SHA-1 X-Hub-Signature
// is refused, even with the right secret.
func TestWebhookRefusesSHA1OnlySignature(t *testing.T) {
	t.Parallel()
	state := &State{}
	state.SetView(ownedView())
	var kicks atomic.Int32
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Secret: []byte(secret), Kick: func() { kicks.Add(1) }}))
	defer ts.Close()
	body := `{"action":"submitted","pull_request":{"number":7},"repository":{"full_name":"acme/api"}}`
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/hooks/github", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "pull_request_review")
	req.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || kicks.Load() != 0 {
		t.Errorf("SHA-1-signed delivery: status %d, %d kicks; want 401 and none", resp.StatusCode, kicks.Load())
	}
}

// Issue 29 (DNS rebinding): bound to loopback, the daemon answers only
// loopback Host names and the configured ones.
func TestLoopbackDaemonAnswersOnlyLoopbackHosts(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(Handler(HandlerOptions{LoopbackOnly: true, Hosts: []string{"gallivant.internal"}}))
	defer ts.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(ts.URL, "http://"), ":")
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST.", http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"dash.localhost:" + port, http.StatusOK},
		{"gallivant.internal:" + port, http.StatusOK},
		{"attacker.example:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1.attacker.example", http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		for _, path := range []string{"/", "/healthz", "/metrics"} {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
			req.Host = tt.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// The dashboard answers 200 or 503 before a pass; only the
			// refusal matters here.
			got := resp.StatusCode
			if got != http.StatusMisdirectedRequest {
				got = http.StatusOK
			}
			if got != tt.want {
				t.Errorf("GET %s with Host %q: %d, want %d", path, tt.host, resp.StatusCode, tt.want)
			}
		}
	}
}

// Issue 29, finding 6 (webhook half): a comment or review delivered from
// a login that may not steer triggers no pass, and a stranger's many
// comments cost one permission request; a member's comment triggers one.
func TestWebhookFromStrangerTriggersNoPass(t *testing.T) {
	t.Parallel()
	state := &State{}
	state.SetView(ownedView())
	var kicks, asked atomic.Int32
	may := map[string]bool{"maintainer": true}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Secret: []byte(secret), Kick: func() { kicks.Add(1) },
		MaySteer: func(_ context.Context, repo, login string) (bool, error) {
			asked.Add(1)
			if repo != "acme/api" {
				t.Errorf("MaySteer asked about %s", repo)
			}
			return may[login], nil
		}}))
	defer ts.Close()
	comment := func(login string) string {
		return `{"action":"created","issue":{"number":7,"pull_request":{"url":"x"}},"repository":{"full_name":"acme/api"},"sender":{"login":"` + login + `"}}`
	}
	review := `{"action":"submitted","pull_request":{"number":7},"repository":{"full_name":"acme/api"},"sender":{"login":"mallory"}}`
	for i := 0; i < 8; i++ {
		if got := deliver(t, ts.URL, "issue_comment", "d", comment("mallory"), sign(secret, comment("mallory"))); got != http.StatusAccepted {
			t.Fatalf("status %d", got)
		}
	}
	deliver(t, ts.URL, "pull_request_review", "d", review, sign(secret, review))
	if kicks.Load() != 0 {
		t.Errorf("a stranger's comments and review kicked %d passes, want none", kicks.Load())
	}
	if asked.Load() != 1 {
		t.Errorf("%d permission requests for one stranger, want 1", asked.Load())
	}
	deliver(t, ts.URL, "issue_comment", "d", comment("maintainer"), sign(secret, comment("maintainer")))
	if kicks.Load() != 1 {
		t.Errorf("a maintainer's comment kicked %d passes, want 1", kicks.Load())
	}
	push := `{"ref":"refs/heads/gallivant/webhooks","repository":{"full_name":"acme/api"},"sender":{"login":"mallory"}}`
	deliver(t, ts.URL, "push", "d", push, sign(secret, push))
	if kicks.Load() != 2 {
		t.Errorf("a push to a work branch kicked %d passes in all, want 2 (GitHub's news is not steering)", kicks.Load())
	}
}
