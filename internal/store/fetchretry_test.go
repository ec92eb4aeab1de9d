package store

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// faultyGit serves the repositories under root over smart HTTP through
// git http-backend, failing the requests that fault picks.
type faultyGit struct {
	mu    sync.Mutex
	fault func(n int, r *http.Request) string // "" serves the request
	n     int
	seen  []string
}

func (g *faultyGit) handler(t *testing.T, root string) http.Handler {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("no git: %v", err)
	}
	backend := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.n++
		f := g.fault(g.n, r)
		g.seen = append(g.seen, f)
		g.mu.Unlock()
		switch f {
		case "":
			backend.ServeHTTP(w, r)
		case "503":
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		case "reset":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case "truncate":
			// Serve the pack, but cut the connection after 64 bytes.
			backend.ServeHTTP(&cutWriter{ResponseWriter: w, left: 64}, r)
			panic(http.ErrAbortHandler)
		default:
			t.Errorf("unknown fault %q", f)
		}
	})
}

// cutWriter passes on the first left bytes of a body and drops the rest.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.left <= 0 {
		return len(p), nil
	}
	n := min(len(p), c.left)
	c.left -= n
	c.ResponseWriter.Write(p[:n])
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return len(p), nil
}

// httpControl makes a bare control repository served by g; it returns its
// URL and a function that adds a commit to it.
func httpControl(t *testing.T, g *faultyGit) (string, func(msg string)) {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(t.TempDir(), "work")
	os.MkdirAll(filepath.Join(work, "specs"), 0o755)
	os.WriteFile(filepath.Join(work, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\n"), 0o644)
	os.WriteFile(filepath.Join(work, "specs/greeting.md"), []byte(historySpec), 0o644)
	testserver.Git(t, work, "init", "--quiet", "-b", "main")
	testserver.Git(t, work, "add", ".")
	testserver.Git(t, work, "commit", "--quiet", "-m", "Approve the greeting spec")
	testserver.Git(t, root, "clone", "--quiet", "--bare", work, filepath.Join(root, "control.git"))
	srv := httptest.NewServer(g.handler(t, root))
	t.Cleanup(srv.Close)
	commit := func(msg string) {
		os.WriteFile(filepath.Join(work, "specs/greeting.md"), []byte(historySpec+"\n"+msg+"\n"), 0o644)
		testserver.Git(t, work, "commit", "--quiet", "-am", msg)
		testserver.Git(t, work, "push", "--quiet", filepath.Join(root, "control.git"), "main")
	}
	return srv.URL + "/control.git", commit
}

// Issue 33: one connection reset failed the pass, a 5xx was taken for cache
// damage (the clone deleted and fetched again from scratch), and a pack
// cut short was not retried. Each is now retried with backoff and never
// re-clones; what persists past the retries is reported.
func TestControlFetchRetriesTransientFailures(t *testing.T) {
	tests := []struct {
		name      string
		fault     string
		failures  int // consecutive fetches that fail
		wantWaits []time.Duration
		wantErr   string
	}{
		{"503 twice", "503", 2, []time.Duration{500 * time.Millisecond, 2 * time.Second}, ""},
		{"connection reset once", "reset", 1, []time.Duration{500 * time.Millisecond}, ""},
		{"pack cut short once", "truncate", 1, []time.Duration{500 * time.Millisecond}, ""},
		{"503 for good", "503", 100, []time.Duration{500 * time.Millisecond, 2 * time.Second, 5 * time.Second}, "after 4 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var failing struct {
				sync.Mutex
				left int
			}
			g := &faultyGit{fault: func(n int, r *http.Request) string {
				failing.Lock()
				defer failing.Unlock()
				// A fetch is a GET of info/refs and a POST of
				// git-upload-pack. The reset and the cut hit the POST,
				// which net/http does not retry by itself as it may a
				// GET on a reused connection.
				hit := r.Method == http.MethodGet
				if tt.fault != "503" {
					hit = r.Method == http.MethodPost
				}
				if hit && failing.left > 0 {
					failing.left--
					return tt.fault
				}
				return ""
			}}
			url, commit := httpControl(t, g)
			var log bytes.Buffer
			var waits []time.Duration
			opts := Options{Control: url, CacheDir: t.TempDir(), Log: slog.New(slog.NewTextHandler(&log, nil)),
				Wait: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			st, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatalf("first open: %v", err)
			}
			marker := filepath.Join(st.Dir(), "kept")
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			commit("A second commit")
			failing.Lock()
			failing.left = tt.failures
			failing.Unlock()
			err = st.Sync(context.Background())
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Sync error %v; want one containing %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantWaits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if strings.Contains(log.String(), "damaged") {
				t.Errorf("a transient failure was taken for damage:\n%s", log.String())
			}
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("the clone was re-created: %v", err)
			}
			if tt.wantErr == "" {
				msg, _, err := st.ReadFile(context.Background(), st.Head(), "specs/greeting.md")
				if err != nil || !bytes.Contains(msg, []byte("A second commit")) {
					t.Errorf("after the retry the head is not the new commit: %q, %v", msg, err)
				}
			}
		})
	}
}
