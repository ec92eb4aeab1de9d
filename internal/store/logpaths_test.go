package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// One walk for many paths lists, for each path, exactly what Log lists
// for it alone — merges that take the file from one side, a merge that
// does not touch it, a deletion and a re-creation, a path never touched —
// at every limit.
// (Log is the same walk for one path, which TestLogPrunesByPathLikeGit
// holds to git's: here the paths' simplifications must never mix.)
func TestLogsIsLogOfEveryPath(t *testing.T) {
	t.Parallel()
	ctl := prunedHistory(t)
	st, err := Open(context.Background(), Options{Control: ctl})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for j := 0; j < 7; j++ {
		paths = append(paths, fmt.Sprintf("plans/s%03d-ledger.md", j))
	}
	paths = append(paths, "gallivant.yaml", "x.txt", "plans/none.md", "plans")
	for _, limit := range []int{0, 1, 3, 30} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			want := map[string][]LogEntry{}
			for _, p := range paths {
				entries, err := st.Log(context.Background(), p, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) > 0 {
					want[p] = entries
				}
			}
			h, err := st.HistoryAt()
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if h.Commit() != st.Tip() {
				t.Errorf("reader at %s, want the tip %s", h.Commit(), st.Tip())
			}
			got, err := h.Logs(context.Background(), paths, limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Logs (-Log of each path +got):\n%s", diff)
			}
		})
	}
}

// A reader keeps reading the history at its commit while the store
// commits and flushes after it: what it lists does not move.
func TestHistoryReaderStaysAtItsCommit(t *testing.T) {
	t.Parallel()
	ctl := historyRepo(t, 20, 3)
	st, err := Open(context.Background(), Options{Control: ctl})
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.HistoryAt()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	before, err := h.Logs(context.Background(), []string{"plans/s001-ledger.md"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), "plans/s001-ledger.md", []byte("# ledger 1\n\nlater\n"), "loop: later", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := st.flush(); err != nil {
		t.Fatal(err)
	}
	after, err := h.Logs(context.Background(), []string{"plans/s001-ledger.md"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the reader's history moved with the store (-before +after):\n%s", diff)
	}
	if n := len(before["plans/s001-ledger.md"]); n != 8 {
		t.Errorf("%d commits of s001, want 8 (the first and every third)", n)
	}
	fresh, err := st.Log(context.Background(), "plans/s001-ledger.md", 0)
	if err != nil || len(fresh) != 9 {
		t.Errorf("the store's own Log lists %d commits (%v), want the new one too (9)", len(fresh), err)
	}
}

// BenchmarkLogs reads the history of 500 ledgers at 5,000 commits, as the
// daemon's dashboard does after a pass: one Logs walk against one Log
// walk per ledger (what the dashboard did before, 30 commits each). Every
// ledger is younger than 30 commits of its own, so every walk goes to the
// root. per-path-ns is 500 times the mean of 20 Log walks; x-per-path is
// it over the one walk's time.
func BenchmarkLogs(b *testing.B) {
	const ledgers, limit = 500, 30
	ctl := historyRepo(b, 5000, ledgers)
	st, err := Open(context.Background(), Options{Control: ctl})
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for j := 0; j < ledgers; j++ {
		paths = append(paths, fmt.Sprintf("plans/s%03d-ledger.md", j))
	}
	const sample = 20
	start := time.Now()
	for _, p := range paths[:sample] {
		if _, err := st.Log(context.Background(), p, limit); err != nil {
			b.Fatal(err)
		}
	}
	perPath := time.Since(start) / sample * ledgers
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h, err := st.HistoryAt()
		if err != nil {
			b.Fatal(err)
		}
		got, err := h.Logs(context.Background(), paths, limit)
		h.Close()
		if err != nil || len(got) != ledgers || len(got[paths[7]]) != 11 {
			b.Fatalf("%d paths, %d entries of one, %v", len(got), len(got[paths[7]]), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(perPath.Nanoseconds()), "per-path-ns")
	b.ReportMetric(float64(perPath.Nanoseconds())/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-per-path")
}
