package ghstandin_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Octokit from npm drives the stand-in with the REST calls gallivant makes
// and those around a pull request (testdata/octokit/drive.mjs), and every
// response — refusals included — is validated against the description of
// GitHub in @octokit/openapi, the full one rather than the committed
// subset: the operation must be documented, its status documented for it,
// and its JSON body must match the status's schema. Both packages are
// pinned by testdata/octokit/package-lock.json and installed with npm ci
// into the user's cache, never into the repository; without node, npm or
// the registry the test skips and says why.
func TestOctokit(t *testing.T) {
	t.Parallel()
	modules := octokitModules(t)

	s, err := ghstandin.New(ghstandin.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec := &responseLog{}
	ts := httptest.NewServer(rec.wrap(s.Handler()))
	t.Cleanup(ts.Close)
	s.SetURL(ts.URL)
	if err := s.CreateRepo("acme/api", "main"); err != nil {
		t.Fatal(err)
	}
	w := clone(t, s, "acme/api")
	pushFile(t, w, "octokit", "octokit.txt", "from octokit\n")

	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "octokit", "drive.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "drive.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "drive.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OCTOKIT_BASE_URL="+strings.TrimSuffix(s.APIURL(), "/"), "OCTOKIT_TOKEN="+s.MainToken(),
		"OCTOKIT_REVIEWER_TOKEN="+s.Token("reviewer"), "OCTOKIT_HEAD=octokit")
	out, err := cmd.Output()
	var res struct {
		Calls []struct {
			Name   string
			Status int
		}
		Error string
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil || err != nil || res.Error != "" {
		t.Fatalf("drive.mjs: %v %v %s\n%s", err, jerr, res.Error, out)
	}
	for _, c := range res.Calls {
		if c.Status == 0 {
			t.Errorf("drive.mjs: %s did not get what it checks for", c.Name)
		}
	}
	if len(res.Calls) < 40 {
		t.Fatalf("drive.mjs made %d calls, want the whole walk: %+v", len(res.Calls), res.Calls)
	}

	desc := loadDescription(t, filepath.Join(modules, "@octokit", "openapi", "generated", "api.github.com.deref.json"))
	ops := make([]string, 0, len(desc))
	for op := range desc {
		ops = append(ops, op)
	}
	// The most specific template first: /commits/{ref}/status before
	// /commits/{ref}.
	sort.Slice(ops, func(i, j int) bool { return len(ops[i]) > len(ops[j]) || len(ops[i]) == len(ops[j]) && ops[i] < ops[j] })
	patterns := make([]*regexp.Regexp, len(ops))
	for i, op := range ops {
		patterns[i] = opPattern(op)
	}
	seen := map[string]bool{}
	for _, r := range rec.all() {
		op := ""
		for i, re := range patterns {
			if re.MatchString(r.method + " " + r.path) {
				op = ops[i]
				break
			}
		}
		if op == "" {
			t.Errorf("%s %s: no operation in GitHub's description", r.method, r.path)
			continue
		}
		seen[op] = true
		schema, ok := desc[op][strconv.Itoa(r.status)]
		if !ok {
			t.Errorf("%s %s answered %d, which the description does not document for %s", r.method, r.path, r.status, op)
			continue
		}
		if schema == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Errorf("%s %s %d: not JSON: %v", r.method, r.path, r.status, err)
			continue
		}
		for _, e := range schemaErrors(schema, v, "body") {
			t.Errorf("%s %s %d (%s): %s", r.method, r.path, r.status, op, e)
		}
	}
	t.Logf("validated %d responses of %d operations against GitHub's description", len(rec.all()), len(seen))
	if len(seen) < 35 {
		t.Errorf("the walk reached %d operations, want at least 35: %v", len(seen), seen)
	}
}

// octokitModules installs testdata/octokit's locked packages once per
// lockfile into the user's cache and returns their node_modules.
func octokitModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("Octokit needs %s, which is not installed", tool)
		}
	}
	src := filepath.Join("testdata", "octokit")
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory for the npm packages: %v", err)
	}
	sum := sha256.Sum256(append(pkg, lock...))
	dest := filepath.Join(cache, "gallivant", "octokit-"+hex.EncodeToString(sum[:8]))
	modules := filepath.Join(dest, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@octokit", "openapi", "generated", "api.github.com.deref.json")); err == nil {
		return modules
	}
	// Installed aside and renamed into place, so that a concurrent run
	// never sees half a tree.
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for name, data := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci of testdata/octokit failed (is the npm registry reachable?): %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dest); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(modules); serr != nil {
			t.Fatal(err)
		}
	}
	return modules
}

// loadDescription reads the description's operations: for each "METHOD
// path", the JSON schema of each documented status (nil for no body).
func loadDescription(t *testing.T, path string) map[string]map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]map[string]map[string]any{}
	for p, methods := range doc.Paths {
		for m, o := range methods {
			rs := map[string]map[string]any{}
			for status, r := range o.Responses {
				rs[status] = r.Content["application/json"].Schema
			}
			out[strings.ToUpper(m)+" "+p] = rs
		}
	}
	return out
}

// responseLog records every API response a server sends.
type responseLog struct {
	mu  sync.Mutex
	log []recorded
}

type recorded struct {
	method, path string
	status       int
	body         []byte
}

func (l *responseLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v3/") {
			h.ServeHTTP(w, r)
			return
		}
		tw := &teeWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(tw, r)
		l.mu.Lock()
		l.log = append(l.log, recorded{method: r.Method, path: "/" + strings.TrimLeft(strings.TrimPrefix(r.URL.Path, "/api/v3"), "/"), status: tw.status, body: tw.body.Bytes()})
		l.mu.Unlock()
	})
}

func (l *responseLog) all() []recorded {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]recorded(nil), l.log...)
}

// teeWriter passes a response through and keeps a copy.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

func (w *teeWriter) Write(b []byte) (int, error) { w.body.Write(b); return w.ResponseWriter.Write(b) }

// Flush lets the stand-in flush before it sends webhooks.
func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
