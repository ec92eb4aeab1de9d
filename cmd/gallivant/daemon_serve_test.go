package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// metricsOf reads a /metrics page into "name{labels}" → value.
func metricsOf(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
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
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// eventually polls cond against real time: the daemon is another process,
// and how soon it answers is what this black-box test is about. The bound
// guards against a hang; it is not a measurement.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The built daemon with --listen: its first pass makes it ready and moves
// the pass, transition, entry and GitHub counters; a signed push to the
// control branch runs a second pass long before the hourly schedule would;
// a forged delivery is refused and counted; the dashboard and the probes
// answer; the stop the first pass records is notified once.
func TestDaemonServes(t *testing.T) {
	t.Parallel()
	bin := gallivantBinary(t)
	gh := testserver.Start(t, "acme/api")
	work := t.TempDir()
	src := filepath.Join(work, "ctl")
	var hookMu sync.Mutex
	var hooks []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hookMu.Lock()
		hooks = append(hooks, r.Header.Get("X-Gallivant-Event")+" "+string(b))
		hookMu.Unlock()
	}))
	defer receiver.Close()
	writeFiles(t, src, map[string]string{
		"gallivant.yaml": "defaults:\n  repo: acme/api\nexecutor:\n  kind: none\nschedule: \"@every 1h\"\n" +
			"notify:\n  - name: ops\n    url_env: OPS_HOOK\n    format: slack\n    on: [stops]\n",
		"specs/a.md": "# A\n\n## Acceptance criteria\n1. Works.\n",
		// A ledger whose spec is gone: the first pass stops it, which owes
		// ops a notification.
		"plans/gone-ledger.md": "# Ledger - loop engine\n**Spec:** `specs/gone.md`\nbase: 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n" +
			"verification: go test ./...\nchecks: commands\niterations: 0\nallowance: 5\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n" +
			"| 1 | open | 0 | |\n\n## Decisions\n\n## Delivery\nspec-commit: 0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5\ncontract: 5e1f0a9b3c2d\n" +
			"branch: gallivant/gone\nphase: implement\n",
	})
	gitCmd(t, src, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, src, "add", "-A")
	gitCmd(t, src, "commit", "--quiet", "-m", "Approve")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	base := "http://127.0.0.1:" + port
	const secret = "hook-secret"
	cmd := exec.Command(bin, "daemon", "--control", src, "--listen", port, "--webhook-debounce", "10ms", "--log-format", "json")
	cmd.Env = append(os.Environ(), "GALLIVANT_CACHE="+filepath.Join(work, "cache"), "GITHUB_API_URL="+gh.APIURL(), "GITHUB_TOKEN="+gh.MainToken(),
		"GALLIVANT_WEBHOOK_SECRET="+secret, "OPS_HOOK="+receiver.URL)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("daemon exit: %v\n%s", err, stderr.String())
		}
		if strings.Contains(stderr.String(), secret) || strings.Contains(stderr.String(), gh.MainToken()) {
			t.Error("the log holds the webhook secret or the token")
		}
	}()
	ready := func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	eventually(t, "/readyz to turn ready after the first pass", ready)
	m := metricsOf(t, base)
	for _, name := range []string{
		`gallivant_passes_total{result="ok"}`,
		`gallivant_transitions_total{kind="seed"}`,
		`gallivant_transitions_total{kind="dispatch"}`,
		`gallivant_github_requests_total{outcome="2xx"}`,
		`gallivant_entries{phase="implement"}`,
		`gallivant_pass_duration_seconds_count`,
	} {
		if m[name] < 1 {
			t.Errorf("after the first pass %s = %v, want at least 1", name, m[name])
		}
	}
	if got := m[`gallivant_notifications_total{outcome="delivered"}`]; got != 1 {
		t.Errorf("notifications delivered %v, want 1 (the spec-gone stop)", got)
	}
	hookMu.Lock()
	if len(hooks) != 1 || !strings.HasPrefix(hooks[0], `stop {"text":"specs/gone.md stopped: spec-gone`) {
		t.Errorf("notifications received: %q; want the spec-gone stop once", hooks)
	}
	hookMu.Unlock()
	if log := gitCmd(t, src, "log", "--format=%s"); !strings.Contains(log, "loop: stop spec-gone") || !strings.Contains(log, "loop: notify") {
		t.Errorf("the control history lacks the stop or its notification record:\n%s", log)
	}
	if m[`gallivant_github_rate_remaining`] <= 0 {
		t.Errorf("gallivant_github_rate_remaining = %v, want the stand-in's budget", m[`gallivant_github_rate_remaining`])
	}

	post := func(body, signature string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/hooks/github", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "push")
		req.Header.Set("X-GitHub-Delivery", "d-1")
		req.Header.Set("X-Hub-Signature-256", signature)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	push := `{"ref":"refs/heads/main","repository":{"full_name":"local/ctl"}}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(push))
	if code := post(push, "sha256="+hex.EncodeToString(mac.Sum(nil))); code != http.StatusAccepted {
		t.Fatalf("signed push: status %d, want 202", code)
	}
	if code := post(push, "sha256="+strings.Repeat("0", 64)); code != http.StatusUnauthorized {
		t.Errorf("forged push: status %d, want 401", code)
	}
	eventually(t, "the webhook's pass", func() bool {
		return metricsOf(t, base)[`gallivant_pass_duration_seconds_count`] >= 2
	})
	m = metricsOf(t, base)
	if m[`gallivant_webhook_deliveries_total{outcome="triggered"}`] != 1 || m[`gallivant_webhook_deliveries_total{outcome="unauthorized"}`] != 1 {
		t.Errorf("webhook deliveries: triggered %v, unauthorized %v; want 1 and 1",
			m[`gallivant_webhook_deliveries_total{outcome="triggered"}`], m[`gallivant_webhook_deliveries_total{outcome="unauthorized"}`])
	}
	if !strings.Contains(stderr.String(), `"trigger":"webhook"`) {
		t.Errorf("no pass logged as triggered by the webhook:\n%s", stderr.String())
	}

	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("dashboard CSP %q", csp)
	}
	if !strings.Contains(string(page), "specs/a.md") {
		t.Errorf("the dashboard does not list specs/a.md:\n%s", page)
	}
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %v %v", resp, err)
	}
}
