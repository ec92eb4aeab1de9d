package githubapi

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// Two reconcilers on other caches that both find a marker missing both
// post (the endurance soak met it: two ready comments with one marker);
// each then deletes every comment of its own with the marker but the
// oldest, so the pull request keeps exactly one and both agree which.
func TestEnsureCommentRacingPostsKeepOne(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := t.Context()
	// The held reconciler's client waits out the hold; the other one is
	// the tests' usual adapter.
	held, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), Timeout: time.Minute,
		Sleep: (&fakeSleep{}).sleep, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := other.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	if err != nil {
		t.Fatal(err)
	}
	marker := Marker("ready-abc")
	signal := filepath.Join(t.TempDir(), "held")
	if err := s.SetHold(ghstandin.Hold{Method: "POST", Path: `/issues/[0-9]+/comments$`, Signal: signal}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		created bool
		err     error
	}
	done := make(chan result, 1)
	go func() {
		created, err := held.EnsureComment(ctx, "acme/api", pr.Number, marker, "ready "+marker)
		done <- result{created, err}
	}()
	awaitSignal(t, signal)
	// The other reconciler found no marker either: it posts, and its post
	// is the older.
	created, err := other.EnsureComment(ctx, "acme/api", pr.Number, marker, "ready "+marker)
	if err != nil || !created {
		t.Fatalf("the other reconciler's post: created %v, %v", created, err)
	}
	first, err := other.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
	if err != nil || len(first) != 1 {
		t.Fatalf("comments after the other post: %v, %v", first, err)
	}
	if err := os.Remove(signal); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.created {
		t.Errorf("the held reconciler's post: created %v, %v; want its duplicate deleted and created false", r.created, r.err)
	}
	got, err := other.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]int64{first[0].ID}, ids); diff != "" {
		t.Errorf("comments left (-want the older +got):\n%s", diff)
	}
	// A duplicate that an earlier failed deletion left is deleted by the
	// next ensure, which posts nothing.
	body := "ready " + marker
	if _, _, err := s.Client(ghstandin.DefaultLogin).Issues.CreateComment(ctx, "acme", "api", pr.Number, &github.IssueComment{Body: &body}); err != nil {
		t.Fatal(err)
	}
	if created, err := other.EnsureComment(ctx, "acme/api", pr.Number, marker, body); err != nil || created {
		t.Errorf("ensure over a duplicate: created %v, %v; want nothing posted", created, err)
	}
	if got, _ := other.IssueComments(ctx, "acme/api", pr.Number, time.Time{}); len(got) != 1 || got[0].ID != first[0].ID {
		t.Errorf("comments after the ensure over a duplicate: %+v; want only %d", got, first[0].ID)
	}
}

// awaitSignal waits until the stand-in holds the request (its signal
// file exists).
func awaitSignal(t *testing.T, path string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("no request held after 30s")
		}
	}
}
