package githubapi

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// stateAdapter is a new process's adapter over the stand-in with its
// conditional state under dir.
func stateAdapter(t *testing.T, s *ghstandin.Server, dir string, log *bytes.Buffer) *Client {
	t.Helper()
	g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), StateDir: dir, Sleep: (&fakeSleep{}).sleep,
		Logger: testLogger(log)})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A second adapter (a new process) over the same state directory asks
// GitHub conditionally from its first request: nothing read before costs
// rate limit again. A deleted or unreadable state file is a cold start,
// never an error.
func TestStateSurvivesTheProcess(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/a")
	dir := t.TempDir()
	ctx := context.Background()
	read := func(g *Client) {
		t.Helper()
		if _, ok, err := g.BranchHead(ctx, "acme/a", "main"); err != nil || !ok {
			t.Fatalf("main: %v %v", ok, err)
		}
		if _, err := g.DiscoverPullRequests(ctx, "acme/a"); err != nil {
			t.Fatal(err)
		}
	}
	first := stateAdapter(t, s, dir, nil)
	read(first)
	if err := first.SaveState(); err != nil {
		t.Fatal(err)
	}
	want := RequestStats{Requests: 2, RateLimited: 2}
	if diff := cmp.Diff(want, first.Requests(), cmpStats); diff != "" {
		t.Errorf("first process (-want +got):\n%s", diff)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "state-*.json"))
	if len(files) != 1 {
		t.Fatalf("state files %v, want one", files)
	}
	data, err := readState(files[0])
	if err != nil || !bytes.Contains(data, []byte(`"version":`)) {
		t.Fatalf("the state file does not read back: %v", err)
	}
	if bytes.Contains(data, []byte(s.Token(ghstandin.DefaultLogin))) {
		t.Errorf("the state file holds the token")
	}

	s.ResetLog()
	second := stateAdapter(t, s, dir, nil)
	read(second)
	if diff := cmp.Diff(RequestStats{Requests: 2, NotModified: 2}, second.Requests(), cmpStats); diff != "" {
		t.Errorf("second process (-want +got):\n%s", diff)
	}
	if c := s.Counts(); c.Counted != 0 || c.NotModified != 2 {
		t.Errorf("the stand-in saw %+v from the second process, want 2 answered 304 and none charged", c)
	}
	// Nothing changed: saving does not rewrite the file (a daemon saves
	// after every pass).
	before, _ := os.Stat(files[0])
	if err := second.SaveState(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(files[0]); !os.SameFile(before, after) {
		t.Errorf("an unchanged state was written again")
	}

	// Another token has a state of its own.
	other, err := New(Options{APIURL: s.APIURL(), Token: s.Token("dev"), StateDir: dir, Logger: testLogger(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if other.statePath == second.statePath {
		t.Errorf("two tokens share the state file %s", other.statePath)
	}

	for _, tt := range []struct {
		name    string
		content []byte
		warns   bool
	}{
		{"deleted", nil, false},
		{"corrupt", []byte("{not json"), true},
		{"another version", []byte(`{"version": 99}`), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(files[0])
			if tt.content != nil {
				os.WriteFile(files[0], tt.content, 0o600)
			}
			var log bytes.Buffer
			g := stateAdapter(t, s, dir, &log)
			read(g)
			if got := g.Requests(); got.NotModified != 0 || got.RateLimited != 2 {
				t.Errorf("a cold start: %+v", got)
			}
			if warned := bytes.Contains(log.Bytes(), []byte("starting cold")); warned != tt.warns {
				t.Errorf("warned %v, want %v: %s", warned, tt.warns, log.String())
			}
			if err := g.SaveState(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// cmpStats compares counts only: the budget depends on the stand-in's clock.
var cmpStats = cmp.Transformer("counts", func(s RequestStats) [3]int { return [3]int{s.Requests, s.NotModified, s.RateLimited} })

// testLogger writes to log, or nowhere when log is nil.
func testLogger(log *bytes.Buffer) *slog.Logger {
	if log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(log, nil))
}

// The state file keeps only what a pass used within stateHorizon, gzip
// compressed: an entry no pass asked for in a day is read cold the next
// time, and one a pass keeps asking for is answered 304 from the next
// process.
func TestStateKeepsOnlyRecentEntries(t *testing.T) {
	t.Parallel()
	clock := testserver.NewClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, "acme/a")
	testserver.PushBranch(t, s, "acme/a", "feature", "f.txt")
	dir := t.TempDir()
	open := func() *Client {
		g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), StateDir: dir, Sleep: (&fakeSleep{}).sleep,
			Logger: testLogger(nil), Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	ctx := t.Context()
	head := func(g *Client, branch string) {
		t.Helper()
		if _, ok, err := g.BranchHead(ctx, "acme/a", branch); err != nil || !ok {
			t.Fatalf("%s: %v %v", branch, ok, err)
		}
	}
	g := open()
	head(g, "main")
	head(g, "feature")
	if err := g.SaveState(); err != nil {
		t.Fatal(err)
	}
	// Passes every 10 minutes for a day read main only; each is a new
	// process, as in CI. A pass that only used entries again rewrites the
	// file every stateRefresh, so an unused entry leaves it within
	// stateHorizon+stateRefresh.
	for at := 10 * time.Minute; at <= stateHorizon+stateRefresh+10*time.Minute; at += 10 * time.Minute {
		clock.Advance(10 * time.Minute)
		g = open()
		before := g.Requests()
		head(g, "main")
		if got := g.Requests().Sub(before); got.NotModified != 1 || got.RateLimited != 0 {
			t.Fatalf("main after %s: %+v; want answered 304", at, got)
		}
		if err := g.SaveState(); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "state-*.json"))
	if len(files) != 1 {
		t.Fatalf("state files %v, want one", files)
	}
	raw, _ := os.ReadFile(files[0])
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Errorf("the state file is not gzip: %q", raw[:min(len(raw), 16)])
	}
	g = open()
	before := g.Requests()
	head(g, "main")
	head(g, "feature")
	if diff := cmp.Diff(RequestStats{Requests: 2, NotModified: 1, RateLimited: 1}, g.Requests().Sub(before), cmpStats); diff != "" {
		t.Errorf("main used every pass, feature unused for a day (-want +got):\n%s", diff)
	}
}

// Issue 33: which classic protections the token read with a 200 survives
// the process, so a one-shot run's rollup query asks their
// branchProtectionRule (rollup.go) from its first pass; a protection that
// then answers 404 is forgotten, in the file too.
func TestStateKeepsReadableProtection(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/a")
	dir := t.TempDir()
	ctx := context.Background()
	s.Protect("acme/a", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	first := stateAdapter(t, s, dir, nil)
	if p, err := first.ProtectionRequirements(ctx, "acme/a", "main", "k"); err != nil || len(p.Protection) != 1 {
		t.Fatalf("protection: %+v, %v", p, err)
	}
	if err := first.SaveState(); err != nil {
		t.Fatal(err)
	}
	second := stateAdapter(t, s, dir, nil)
	if !second.protectionReadable("acme/a", "main") || second.protectionReadable("acme/a", "other") {
		t.Fatalf("after a restart: main readable %v, other %v; want main only", second.protectionReadable("acme/a", "main"), second.protectionReadable("acme/a", "other"))
	}
	s.Protect("acme/a", "main", ghstandin.Protection{Ruleset: true})
	if _, err := second.ProtectionRequirements(ctx, "acme/a", "main", "k"); err != nil {
		t.Fatal(err)
	}
	if err := second.SaveState(); err != nil {
		t.Fatal(err)
	}
	if third := stateAdapter(t, s, dir, nil); third.protectionReadable("acme/a", "main") {
		t.Errorf("a protection that answered 404 is still readable after a restart")
	}
}
