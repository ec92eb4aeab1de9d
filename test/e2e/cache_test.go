package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cacheWorld is a sandbox with a control repository whose specs reached a
// quiet state, and one GALLIVANT_CACHE that every pass shares, as a CI job
// that keeps its cache between runs.
type cacheWorld struct {
	t       *testing.T
	sandbox map[string]string // what `gallivant sandbox` printed
	control string            // the control repository's git URL
	env     []string          // for every reconciler process
	cache   string            // $GALLIVANT_CACHE
	passes  int
	// performed lists every transition of every pass, "spec subject".
	performed []string
}

// cachePass is what one `gallivant reconcile --format json` process did,
// from its report, and what the sandbox charged for it.
type cachePass struct {
	Transitions []struct{ Spec, Subject string }
	Notes       []struct{ Spec, Message string }
	Requests    *struct {
		Requests    int `json:"requests"`
		NotModified int `json:"not_modified"`
		RateLimited int `json:"rate_limited"`
		GraphQL     int `json:"graphql"`
		Remaining   int `json:"remaining"`
		Limit       int `json:"limit"`
	}
	charged int    // the sandbox's own count of rate-limited requests
	stderr  string // the pass's logs
}

// The control repository's configuration: the command executor runs the
// crash suite's agent at once; acme/api runs no CI, so its pull requests
// are labelled ready, while acme/web's wait for CI to report.
const cacheConfig = `defaults:
  repo: acme/api
executor:
  kind: command
  command: ["sh", "-c", "exec sh \"$AGENT\""]
  timeout: 30s
  env: [PATH, HOME, AGENT, RUNLOG, AGENT_SLEEP, GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL]
checks:
  none: [acme/api]
`

func newCacheWorld(t *testing.T) *cacheWorld {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	// GitHub's own limit: every process is charged as on GitHub.
	sb := startSandbox(t, filepath.Join(dir, "sandbox"), 5000, "acme/api", "acme/web", "acme/control")
	w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), "cache-test")
	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	files := map[string]string{
		"gallivant.yaml": cacheConfig,
		// Labelled ready, then merged by a person: done.
		"specs/merged.md": "# Merged\n\n## Acceptance criteria\n1. Merged one.\n2. Merged two.\n",
		// Labelled ready; waits for a person to merge it.
		"specs/ready.md": "# Ready\n\n## Acceptance criteria\n1. Ready one.\n",
		// Waits for CI on acme/web, which never reports.
		"specs/web.md": "---\nrepo: acme/web\n---\n# Web\n\n## Acceptance criteria\n1. Web one.\n",
	}
	for path, s := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, path)), 0o755)
		if err := os.WriteFile(filepath.Join(src, path), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "Approve specs")
	gitIn(t, src, "push", "--quiet", "origin", "HEAD:main")
	return w
}

// pass runs one `gallivant reconcile` process and reads its JSON report;
// the sandbox's rate-limit count before and after says what it charged.
func (w *cacheWorld) pass() cachePass {
	w.t.Helper()
	w.passes++
	before := rateOf(w.t, w.sandbox)
	cmd := exec.Command(bin, "reconcile", "--control", w.control, "--format", "json")
	cmd.Env = w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("pass %d: %v\n%s\n%s", w.passes, err, stdout.String(), stderr.String())
	}
	after := rateOf(w.t, w.sandbox)
	if after.Reset != before.Reset {
		// The sandbox's hour began at its first request, seconds ago.
		w.t.Fatalf("pass %d: the sandbox's rate-limit window reset during the pass", w.passes)
	}
	var p cachePass
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		w.t.Fatalf("pass %d printed no JSON report: %v\n%s", w.passes, err, stdout.String())
	}
	if p.Requests == nil {
		w.t.Fatalf("pass %d: the report has no requests figures:\n%s", w.passes, stdout.String())
	}
	p.charged, p.stderr = after.Used-before.Used, stderr.String()
	for _, tr := range p.Transitions {
		w.performed = append(w.performed, tr.Spec+" "+tr.Subject)
	}
	w.noToken()
	// The report's count is the sandbox's: the meter misses nothing and
	// counts nothing GitHub would not charge.
	if p.Requests.RateLimited != p.charged {
		w.t.Errorf("pass %d reports %d rate-limited requests; the sandbox charged %d", w.passes, p.Requests.RateLimited, p.charged)
	}
	w.t.Logf("pass %d: %d transitions; github: %d requests, %d answered 304, %d rate-limited (sandbox: %d)",
		w.passes, len(p.Transitions), p.Requests.Requests, p.Requests.NotModified, p.Requests.RateLimited, p.charged)
	return p
}

// settle runs passes until one has nothing to do.
func (w *cacheWorld) settle() cachePass {
	w.t.Helper()
	for i := 0; i < 20; i++ {
		if p := w.pass(); len(p.Transitions) == 0 {
			return p
		}
	}
	w.t.Fatal("the specs did not settle in 20 passes")
	return cachePass{}
}

// api sends one request to the sandbox as the main token's user.
func (w *cacheWorld) api(method, path string, out any) {
	w.t.Helper()
	req, err := http.NewRequest(method, w.sandbox["GITHUB_API_URL"]+path, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.sandbox["GITHUB_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		w.t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
}

// stateFile is the one GitHub cache file the passes keep.
func (w *cacheWorld) stateFile() string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.cache, "github", "state-*.json"))
	if len(files) != 1 {
		w.t.Fatalf("want one state file under %s/github, got %v", w.cache, files)
	}
	return files[0]
}

// noToken fails the test when any file under the cache directory holds
// the token, verbatim or base64-encoded.
func (w *cacheWorld) noToken() {
	w.t.Helper()
	tok := w.sandbox["GITHUB_TOKEN"]
	needles := [][]byte{[]byte(tok), []byte(base64.StdEncoding.EncodeToString([]byte(tok))),
		[]byte(base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok)))}
	files := 0
	err := filepath.WalkDir(w.cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		// The GitHub cache's state file is gzip: look inside it.
		if zr, zerr := gzip.NewReader(bytes.NewReader(data)); zerr == nil {
			if data, err = io.ReadAll(zr); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		files++
		for _, n := range needles {
			if bytes.Contains(data, n) {
				w.t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	if files == 0 {
		w.t.Fatalf("no files under %s", w.cache)
	}
}

// allNotModified fails the test unless the pass did nothing and asked
// GitHub only conditional REST questions that were all answered 304, and
// GraphQL queries (issue 33: one per repository whose pull requests are
// ready or wait for CI), which are never 304 and which GraphQL's own
// budget pays for, not the REST one the sandbox charged.
func allNotModified(t *testing.T, name string, p cachePass) {
	t.Helper()
	if len(p.Transitions) != 0 {
		t.Errorf("%s performed transitions: %v", name, p.Transitions)
	}
	r := p.Requests
	if r.Requests == 0 {
		t.Errorf("%s asked GitHub nothing; the quiet state has pull requests to observe", name)
	}
	if r.RateLimited != 0 || p.charged != 0 || r.NotModified+r.GraphQL != r.Requests || r.GraphQL > 2 {
		t.Errorf("%s: %d requests, %d answered 304, %d GraphQL, %d rate-limited, %d charged by the sandbox; want every REST request answered 304, at most one GraphQL query per repository and 0 charged",
			name, r.Requests, r.NotModified, r.GraphQL, r.RateLimited, p.charged)
	}
}

// TestSecondProcessSpendsNoRateLimit is issue 15's goal "the second
// one-shot `gallivant reconcile` in a new process spends 0 rate-limited
// requests when nothing changed", against `gallivant sandbox` with the
// built binary: a quiet control repository (one pull request merged, one
// ready for a person, one waiting for CI) reconciled by processes that
// share $GALLIVANT_CACHE.
func TestSecondProcessSpendsNoRateLimit(t *testing.T) {
	t.Parallel()
	w := newCacheWorld(t)
	w.settle()
	// A person merges specs/merged.md's pull request; the passes record
	// it done and settle again.
	var prs []struct{ Number int }
	w.api("GET", "repos/acme/api/pulls?head=acme:gallivant/merged", &prs)
	if len(prs) != 1 {
		t.Fatalf("want one open pull request from gallivant/merged, got %v", prs)
	}
	var merged struct{ Merged bool }
	w.api("PUT", "repos/acme/api/pulls/"+strconv.Itoa(prs[0].Number)+"/merge", &merged)
	if !merged.Merged {
		t.Fatal("the sandbox did not merge the pull request")
	}
	quiet := w.settle()
	done := "specs/merged.md loop: done acme/api#" + strconv.Itoa(prs[0].Number)
	if !slices.Contains(w.performed, done) {
		t.Errorf("no %q among the transitions: %v", done, w.performed)
	}
	waits := map[string]string{}
	for _, n := range quiet.Notes {
		waits[n.Spec] = n.Message
	}
	for spec, want := range map[string]string{"specs/ready.md": "waits for a person to merge", "specs/web.md": "check run or status"} {
		if !strings.Contains(waits[spec], want) {
			t.Errorf("%s: want a wait that mentions %q, got %q (notes %v)", spec, want, waits[spec], quiet.Notes)
		}
	}
	state := w.stateFile()

	t.Run("second process", func(t *testing.T) {
		allNotModified(t, "the first process after the quiet pass", w.pass())
		allNotModified(t, "the second process after the quiet pass", w.pass())
	})

	t.Run("cache deleted", func(t *testing.T) {
		// The counter is real: without the cache the same quiet pass pays.
		if err := os.RemoveAll(filepath.Join(w.cache, "github")); err != nil {
			t.Fatal(err)
		}
		cold := w.pass()
		if len(cold.Transitions) != 0 {
			t.Errorf("the cold pass performed transitions: %v", cold.Transitions)
		}
		if cold.Requests.RateLimited == 0 || cold.charged == 0 {
			t.Errorf("the pass without a cache spent %d rate-limited requests (sandbox: %d); want > 0", cold.Requests.RateLimited, cold.charged)
		}
		allNotModified(t, "the process after the cold one", w.pass())
	})

	t.Run("cache truncated", func(t *testing.T) {
		data, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(state, data[:len(data)/2], 0o600); err != nil {
			t.Fatal(err)
		}
		p := w.pass()
		if len(p.Transitions) != 0 {
			t.Errorf("the pass over a truncated cache performed transitions: %v", p.Transitions)
		}
		if !strings.Contains(p.stderr, "github cache state not read; starting cold") {
			t.Errorf("the pass did not say it started cold:\n%s", p.stderr)
		}
		rewritten, err := os.ReadFile(w.stateFile())
		if err != nil {
			t.Fatal(err)
		}
		// The state file is gzip-compressed JSON.
		zr, err := gzip.NewReader(bytes.NewReader(rewritten))
		if err != nil {
			t.Fatalf("the rewritten state file is not gzip: %v", err)
		}
		var st struct{ Version int }
		if err := json.NewDecoder(zr).Decode(&st); err != nil || st.Version != 4 {
			t.Errorf("the pass did not rewrite the truncated state file: version %d, %v", st.Version, err)
		}
		allNotModified(t, "the process after the rewrite", w.pass())
	})

	t.Run("owner only", func(t *testing.T) {
		info, err := os.Stat(w.stateFile())
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("the state file's mode is %v; want 0600 (it says what the token may read)", perm)
		}
	})
}

// worldEnv is the environment of gallivant and its agent in a world on the
// sandbox sb: the stand-in's API and token, the cache, the agent script and
// its run log, and a git that reads no configuration of the machine's.
func worldEnv(sb map[string]string, cache, agent, runlog, author string) []string {
	return append(os.Environ(), "GITHUB_API_URL="+sb["GITHUB_API_URL"], "GITHUB_TOKEN="+sb["GITHUB_TOKEN"], "GH_TOKEN=",
		"GALLIVANT_CACHE="+cache, "AGENT="+agent, "RUNLOG="+runlog, "AGENT_SLEEP=0",
		"GALLIVANT_MERGE_POLL=50ms", "GITHUB_ACTIONS=", "GALLIVANT_AUTHOR_NAME="+author,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
}

// withToken is a git URL of the sandbox with token in it: the sandbox, as
// GitHub, refuses a push without one.
func withToken(url, token string) string {
	return strings.Replace(url, "://", "://x-access-token:"+token+"@", 1)
}
