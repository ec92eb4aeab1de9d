package ghstandin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

func TestParseHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, method, path, err string
	}{
		{in: "POST:/issues/comments/[0-9]+/reactions$", method: "POST", path: "/issues/comments/[0-9]+/reactions$"},
		{in: "PATCH:/repos/acme/api/issues/1$", method: "PATCH", path: "/repos/acme/api/issues/1$"},
		{in: "POST", err: `"POST": expected METHOD:PATH-REGEXP`},
		{in: "POST:", err: `"POST:": expected METHOD:PATH-REGEXP`},
		{in: ":/x", err: `"": the method must be upper-case letters`},
		{in: "post:/x", err: `"post": the method must be upper-case letters`},
		{in: "POST:/x(", err: `"/x(": the path is not a regular expression`},
	} {
		method, path, err := ghstandin.ParseHold(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseHold(%q) = %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || method != tc.method || path != tc.path {
			t.Errorf("ParseHold(%q) = %q, %q, %v; want %q, %q", tc.in, method, path, err, tc.method, tc.path)
		}
	}
}

// awaitFile waits until path exists (or, with gone, no longer does).
func awaitFile(t *testing.T, path string, gone bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		_, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) == gone {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: still %v after 30s", path, err)
		}
	}
}

// A hold keeps the first matching request waiting, with its signal file
// written, until the file is removed; then the request is served. The
// next matching request is not held.
func TestHoldReleased(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := context.Background()
	me := s.Client(ghstandin.DefaultLogin)
	n := pull(t, s)
	signal := filepath.Join(t.TempDir(), "held")
	t.Cleanup(func() { os.Remove(signal) })
	if err := s.SetHold(ghstandin.Hold{Method: "POST", Path: `/issues/[0-9]+/comments$`, Signal: signal}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := me.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("first")})
		done <- err
	}()
	awaitFile(t, signal, false)
	data, err := os.ReadFile(signal)
	if err != nil {
		t.Fatal(err)
	}
	if want := "POST /repos/acme/api/issues/" + itoa(n) + "/comments\n"; string(data) != want {
		t.Errorf("signal file holds %q, want %q", data, want)
	}
	if got := comments(t, me, n); len(got) != 0 {
		t.Errorf("a held comment was posted: %q", got)
	}
	if err := os.Remove(signal); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the released request: %v", err)
	}
	if _, _, err := me.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("second")}); err != nil {
		t.Fatalf("the hold was not spent: %v", err)
	}
	if diff := cmp.Diff([]string{"first", "second"}, comments(t, me, n)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
}

// A client that goes away while its request is held leaves it unserved:
// nothing is written, the signal file is removed, and the hold is spent.
func TestHoldClientGone(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	me := s.Client(ghstandin.DefaultLogin)
	n := pull(t, s)
	signal := filepath.Join(t.TempDir(), "held")
	t.Cleanup(func() { os.Remove(signal) })
	if err := s.SetHold(ghstandin.Hold{Method: "POST", Path: `/comments$`, Signal: signal}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := me.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("lost")})
		done <- err
	}()
	awaitFile(t, signal, false)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the abandoned request: %v, want context.Canceled", err)
	}
	awaitFile(t, signal, true)
	if _, _, err := me.Issues.CreateComment(context.Background(), "acme", "api", n, &github.IssueComment{Body: github.String("next")}); err != nil {
		t.Fatalf("the hold was not spent: %v", err)
	}
	if diff := cmp.Diff([]string{"next"}, comments(t, me, n)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	var statuses []int
	for _, r := range s.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/comments") {
			statuses = append(statuses, r.Status)
		}
	}
	if diff := cmp.Diff([]int{0, 201}, statuses); diff != "" {
		t.Errorf("logged statuses of the comment posts (-want +got):\n%s", diff)
	}
}

// pull opens a pull request on acme/api, whose conversation the tests
// comment on.
func pull(t *testing.T, s *ghstandin.Server) int {
	t.Helper()
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	return openPull(t, s, "f", nil)
}

func comments(t *testing.T, c *github.Client, n int) []string {
	t.Helper()
	cs, _, err := c.Issues.ListComments(context.Background(), "acme", "api", n, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.GetBody())
	}
	return out
}
