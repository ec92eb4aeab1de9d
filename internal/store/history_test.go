package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

const historySpec = "---\nrepo: acme/api\n---\n# Greeting\n\n## Acceptance criteria\n1. It greets.\n2. It waves.\n\n## Verify\n- `go test ./...`\n"

// buildHistory commits n transitions of one ledger through the store, as
// the reconciler would, in cycles of dispatch and repair, with a person's
// rows +1 request and its raise every tenth cycle.
func buildHistory(tb testing.TB, n int) *Store {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "control")
	os.MkdirAll(filepath.Join(dir, "specs"), 0o755)
	os.WriteFile(filepath.Join(dir, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "specs/greeting.md"), []byte(historySpec), 0o644)
	testserver.Git(tb, dir, "init", "--quiet", "-b", "main")
	testserver.Git(tb, dir, "add", ".")
	testserver.Git(tb, dir, "commit", "--quiet", "-m", "Approve the greeting spec")
	st, err := Open(context.Background(), Options{Control: dir})
	if err != nil {
		tb.Fatal(err)
	}
	sp, ds := specs.ParseSpec(parse.Parse("specs/greeting.md", []byte(historySpec)), specs.Defaults{Repo: "acme/api", Base: "main"})
	if ds.HasErrors() {
		tb.Fatal(ds)
	}
	const lp = "plans/greeting-ledger.md"
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	head := strings.Repeat("b", 40)
	commit := func(l *ledger.Ledger, c ledger.Commit, person bool) {
		msg := c.Message(ledger.Trailer{Key: ledger.TrailerSpec, Value: "specs/greeting.md"})
		if person {
			msg = "Ask for one more attempt\n"
		}
		now = now.Add(time.Minute)
		if _, err := st.Commit(context.Background(), lp, ledger.Format(l), msg, now); err != nil {
			tb.Fatal(err)
		}
	}
	l, c := ledger.Seed(ledger.SeedInput{Spec: sp, SpecCommit: st.Head(), Bases: map[string]string{specs.HomeMember: head}, Allowance: 4})
	commit(l, c, false)
	for i, cycle := 1, 1; i < n; cycle++ {
		l, c = ledger.Dispatch(l, ledger.Action{Target: 1, Member: specs.HomeMember}, head, now)
		commit(l, c, false)
		var err error
		if l, c, err = ledger.Repair(l, "the return had no row line", head); err != nil {
			tb.Fatal(err)
		}
		commit(l, c, false)
		i += 2
		if cycle%10 == 0 && i+3 <= n {
			l, c = ledger.Stop(l, ledger.StopAllowance, "row 1 used its attempts", 1)
			commit(l, c, false)
			l.Requests = append(l.Requests, "rows +1")
			commit(l, ledger.Commit{}, true)
			r, _ := ledger.ParseRequest("rows +1")
			if l, c, err = ledger.ApplyRequest(l, r, now); err != nil {
				tb.Fatal(err)
			}
			commit(l, c, false)
			i += 3
		}
	}
	if err := st.Push(context.Background()); err != nil {
		tb.Fatal(err)
	}
	// A control repository gallivant reads is a clone or a fetched cache,
	// so packed; reopen it packed as such.
	testserver.Git(tb, dir, "gc", "--quiet")
	if st, err = Open(context.Background(), Options{Control: dir}); err != nil {
		tb.Fatal(err)
	}
	return st
}

func verifyStore(tb testing.TB, st *Store, since string) audit.Report {
	tb.Helper()
	v := audit.NewVerifier()
	if err := st.History(context.Background(), since, nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		tb.Fatal(err)
	}
	return v.Report()
}

// TestHistoryVerifies: a history the transition functions wrote through the
// store verifies clean, --since walks only what follows, and a revision
// off the branch cannot be used.
func TestHistoryVerifies(t *testing.T) {
	t.Parallel()
	st := buildHistory(t, 60)
	var shas []string
	st.History(context.Background(), "", nil, func(c audit.Commit) error { shas = append(shas, c.SHA); return nil })
	rep := verifyStore(t, st, "")
	if !rep.Legal() || rep.Commits != len(shas) || len(shas) < 61 {
		t.Fatalf("%s: %+v", rep.Summary(), rep.Violations)
	}
	if rep.Transitions["raise allowance"] != 2 || rep.Person != 2 {
		t.Errorf("summary %s: want 2 raises and 2 person commits", rep.Summary())
	}
	if got := verifyStore(t, st, shas[49][:10]); got.Commits != len(shas)-50 {
		t.Errorf("--since an abbreviated SHA walked %d commits, want %d", got.Commits, len(shas)-50)
	}
	if err := st.History(context.Background(), "0123456789abcdef0123456789abcdef01234567", nil, func(audit.Commit) error { return nil }); err == nil {
		t.Error("an unknown revision was accepted")
	}
}

// BenchmarkVerify10000 verifies a history of 10,000 ledger commits
// ($BENCH_COMMITS overrides the count). Measured: 4.8 CPU seconds per
// verification on the 2-core development machine (docs/verify.md).
func BenchmarkVerify10000(b *testing.B) {
	st := buildHistory(b, benchCommits)
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		rep := verifyStore(b, st, "")
		if !rep.Legal() || rep.Commits <= benchCommits {
			b.Fatalf("%s: %v", rep.Summary(), rep.Violations)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/verify")
	// CPU seconds say what a verify costs on a machine shared with other
	// work, where the wall time says more about the neighbours.
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/verify")
}

// cpuTime is the process's user plus system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchCommits = 10000

func init() {
	if s := os.Getenv("BENCH_COMMITS"); s != "" {
		fmt.Sscan(s, &benchCommits)
	}
}
