package reconcile

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// fakeSleep records the adapter's waits instead of waiting.
type fakeSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	return ctx.Err()
}

// adapter is the real GitHub adapter against the stand-in, acting as
// login, with retries that do not wait.
func adapter(t testing.TB, s *ghstandin.Server, login string, log *bytes.Buffer) (*githubapi.Client, *fakeSleep) {
	t.Helper()
	fs := &fakeSleep{}
	var w io.Writer = io.Discard
	if log != nil {
		w = log
	}
	g, err := githubapi.New(githubapi.Options{APIURL: s.APIURL(), Token: s.Token(login), Sleep: fs.sleep, Timeout: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(w, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return g, fs
}
