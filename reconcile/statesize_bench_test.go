package reconcile

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/githubapi"
)

// stateAdapter is an adapter over the rig's stand-in that keeps its
// conditional state under dir, as `gallivant reconcile` does under
// $GALLIVANT_CACHE/github.
func (r *rig) stateAdapter(tb testing.TB, dir string) *githubapi.Client {
	tb.Helper()
	gh, err := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Timeout: 5 * time.Second, Now: r.clock.Now, StateDir: dir, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		tb.Fatal(err)
	}
	return gh
}

// stateBytes is the size of the one state file under dir.
func stateBytes(tb testing.TB, dir string) int64 {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "state-*.json"))
	if len(files) != 1 {
		tb.Fatalf("state files %v, want one", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkGitHubStateSize measures the GitHub cache's state file, which
// every one-shot run restores, parses and rewrites: after idle passes over
// pull requests in review (5 per repository), and after the pass that
// reads them all in full when their quiet marks expire. Sizes (pull
// requests) come from $GALLIVANT_BENCH_PRS (default 20); the timed part
// is a one-shot process's start: reading the state file.
func BenchmarkGitHubStateSize(b *testing.B) {
	sizes := os.Getenv("GALLIVANT_BENCH_PRS")
	if sizes == "" {
		sizes = "20"
	}
	for _, f := range strings.Split(sizes, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			b.Fatalf("GALLIVANT_BENCH_PRS: %q is not a size", f)
		}
		b.Run(fmt.Sprintf("prs=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			r, rec, _ := reviewRig(b, n, max(1, n/5), func(int) (string, bool) { return "success", false }, dir)
			idle := stateBytes(b, dir)
			// The marks expire: every pull request is read in full.
			r.clock.Advance(quietRefresh + time.Minute)
			if _, err := rec.Pass(context.Background()); err != nil {
				b.Fatal(err)
			}
			full := stateBytes(b, dir)
			b.ResetTimer()
			for b.Loop() {
				r.stateAdapter(b, dir)
			}
			b.ReportMetric(float64(idle), "idle-state-B")
			b.ReportMetric(float64(full), "state-B")
			b.ReportMetric(float64(full)/float64(n), "state-B/PR")
		})
	}
}
