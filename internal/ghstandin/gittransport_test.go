package ghstandin

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// answer is one HTTP answer, as compared between the two backends.
type answer struct {
	Status int
	Header http.Header
	Body   string
}

func answerOf(rec *httptest.ResponseRecorder) answer {
	h := rec.Header().Clone()
	h.Del("Date")
	return answer{Status: rec.Code, Header: h, Body: demux(rec.Body.String())}
}

// demux returns a git answer as its client reads it: the pkt-lines that
// are not side-band data in order, then each side band's data whole. How
// git cuts a pack into side-band packets depends on how fast pack-objects
// writes, so two runs of the same git differ there and nowhere else. A
// body that is not pkt-lines is returned as it is.
func demux(body string) string {
	var lines []string
	var bands [4]strings.Builder
	for rest := body; rest != ""; {
		if len(rest) < 4 {
			return body
		}
		var n int
		if _, err := fmt.Sscanf(rest[:4], "%04x", &n); err != nil {
			return body
		}
		if n < 4 {
			lines, rest = append(lines, rest[:4]), rest[4:]
			continue
		}
		if n > len(rest) {
			return body
		}
		payload := rest[4:n]
		rest = rest[n:]
		if payload != "" && payload[0] >= 1 && payload[0] <= 3 {
			bands[payload[0]].WriteString(payload[1:])
			continue
		}
		lines = append(lines, fmt.Sprintf("%q", payload))
	}
	for b := 1; b <= 3; b++ {
		if bands[b].Len() > 0 {
			lines = append(lines, fmt.Sprintf("band %d: %q", b, bands[b].String()))
		}
	}
	return strings.Join(lines, "\n")
}

// twinBackend serves every git request twice, with gitBackend and with
// git http-backend (the CGI it replaces, over a copy of the repository
// for a push), records where the two answer differently and answers with
// gitBackend's answer.
type twinBackend struct {
	t     *testing.T
	s     *Server
	mu    sync.Mutex
	seen  map[string]int // request kind → times compared
	diffs []string
}

func (tb *twinBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	full, rest, push := gitRequest(r)
	name, _ := tb.s.lookupRepo(full)
	kind := r.Method + " " + r.URL.RequestURI()[len("/"+full+".git"):] + " " + r.Header.Get("Git-Protocol") + " " + r.Header.Get("Content-Encoding")
	extra := []string{"STANDIN_RULES=", "GIT_CONFIG_VALUE_0=/dev/null"}
	twin := name
	if push && r.Method == http.MethodPost {
		// The push lands in a copy for http-backend, made before either
		// backend runs it.
		twin = name + "-twin"
		dst := tb.s.RepoDir(twin)
		_ = os.RemoveAll(dst)
		if err := os.CopyFS(dst, os.DirFS(tb.s.RepoDir(name))); err != nil {
			tb.t.Error(err)
		}
	}
	req := func(path string) *http.Request {
		c := r.Clone(r.Context())
		c.URL.Path, c.URL.RawPath = path, ""
		c.Body, c.ContentLength, c.TransferEncoding = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
		return c
	}
	direct := httptest.NewRecorder()
	tb.s.git.serve(direct, req("/"+name+".git"+rest), name, rest, extra)
	viaCGI := httptest.NewRecorder()
	h := *tb.s.git.cgi
	h.Env = append(append([]string(nil), h.Env...), extra...)
	h.ServeHTTP(viaCGI, req("/"+twin+".git"+rest))
	got, want := answerOf(direct), answerOf(viaCGI)
	tb.mu.Lock()
	tb.seen[kind]++
	if d := cmp.Diff(want, got); d != "" {
		tb.diffs = append(tb.diffs, fmt.Sprintf("%s: (-http-backend +gitBackend)\n%s", kind, d))
	}
	tb.mu.Unlock()
	for k, v := range direct.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(direct.Code)
	_, _ = w.Write(direct.Body.Bytes())
}

// The stand-in's git transport answers every request real git makes —
// clone, fetch and push over protocol v0 and v2, a gzip request body, a
// wrong content type, the dumb protocol — byte for byte as git
// http-backend, which it replaces, answers it (issue 32: one process
// less per git request, git's answers kept), including the listings of
// references it answers again from its memo while the references have not
// moved, and after they moved.
func TestGitBackendAnswersAsHTTPBackend(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := New(Options{Dir: t.TempDir(), Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRepo("acme/api", "main"); err != nil {
		t.Fatal(err)
	}
	listings.Lock()
	hitsBefore := listings.hits
	listings.Unlock()
	tb := &twinBackend{t: t, s: s, seen: map[string]int{}}
	srv := httptest.NewServer(tb)
	defer srv.Close()
	url := srv.URL + "/acme/api.git"
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com",
			"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	dir := t.TempDir()
	for _, v := range []string{"2", "0"} {
		w := filepath.Join(dir, "v"+v)
		git(dir, "-c", "protocol.version="+v, "clone", "--quiet", url, w)
		git(w, "config", "protocol.version", v)
		if err := os.WriteFile(filepath.Join(w, "f"+v), []byte(strings.Repeat("line\n", 100)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(w, "add", "-A")
		git(w, "commit", "--quiet", "-m", "v"+v)
		git(w, "push", "--quiet", "origin", "HEAD:refs/heads/topic-v"+v)
		git(w, "push", "--quiet", "origin", "HEAD:main")
		git(w, "fetch", "--quiet", "origin")
		git(w, "push", "--quiet", "origin", ":refs/heads/topic-v"+v)
	}
	// What git itself sends rarely or never: a gzip body, a wrong content
	// type, an unknown service, the dumb protocol's files.
	lsRefs := "0014command=ls-refs\n00010009peel\n000bunborn\n0000"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(lsRefs))
	_ = zw.Close()
	for _, c := range []struct {
		method, path, ctype, enc, proto, body string
	}{
		{"POST", "/git-upload-pack", "application/x-git-upload-pack-request", "gzip", "version=2", gz.String()},
		{"POST", "/git-upload-pack", "application/x-git-upload-pack-request", "", "version=2", lsRefs},
		{"POST", "/git-upload-pack", "text/plain", "", "version=2", lsRefs},
		{"POST", "/git-receive-pack", "", "", "", "0000"},
		{"GET", "/info/refs?service=git-upload-pack", "", "", "version=1:version=2", ""},
		{"GET", "/info/refs?service=git-upload-pack", "", "", "version=1", ""},
		{"GET", "/info/refs?service=git-upload-archive", "", "", "", ""},
		{"GET", "/info/refs", "", "", "", ""},
		{"GET", "/HEAD", "", "", "", ""},
		{"POST", "/info/refs?service=git-upload-pack", "", "", "", ""},
	} {
		req, err := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Content-Type": c.ctype, "Content-Encoding": c.enc, "Git-Protocol": c.proto} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	listings.Lock()
	hits := listings.hits - hitsBefore
	listings.Unlock()
	if hits == 0 {
		t.Error("no answer came from the memo of reference listings (gitmemo.go), so none was compared")
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, d := range tb.diffs {
		t.Error(d)
	}
	// Every kind of exchange was compared: the v2 advertisement, ls-refs
	// and fetch, the v0 advertisements and fetch, and a push.
	for _, kind := range []string{
		"GET /info/refs?service=git-upload-pack version=2 ",
		"POST /git-upload-pack version=2 ",
		"POST /git-upload-pack version=2 gzip",
		"GET /info/refs?service=git-upload-pack  ",
		"POST /git-upload-pack  ",
		"GET /info/refs?service=git-receive-pack  ",
		"POST /git-receive-pack  ",
	} {
		if tb.seen[kind] == 0 {
			t.Errorf("no %q request was compared; compared: %v", kind, tb.seen)
		}
	}
}
