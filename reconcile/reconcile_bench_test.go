package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-github/v66/github"
)

func manySpecs(n, repos int) (map[string]string, []string) {
	files := map[string]string{"gallivant.yaml": "defaults:\n  repo: acme/r0\nexecutor:\n  kind: none\n  timeout: 10h\n"}
	var rs []string
	for i := 0; i < repos; i++ {
		rs = append(rs, fmt.Sprintf("acme/r%d", i))
	}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("specs/s%03d.md", i)] = fmt.Sprintf("---\nrepo: acme/r%d\n---\n# Spec %d\n\n## Acceptance criteria\n1. Endpoint %d answers.\n\n## Verify\n- `go test ./...`\n", i%repos, i, i)
	}
	return files, rs
}

// BenchmarkPassUnchanged is a pass over 500 specs across 10 repositories
// whose dispatches are all outstanding and whose work branches did not move.
func BenchmarkPassUnchanged(b *testing.B) {
	files, repos := manySpecs(500, 10)
	r := newRig(b, files, repos...)
	rec := r.reconciler(func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet })
	if rep, err := rec.Pass(context.Background()); err != nil || len(rep.Transitions) != 1000 {
		b.Fatalf("first pass: %v, %d transitions", err, len(rep.Transitions))
	}
	// Warm the cache once, as a daemon's second pass would.
	if _, err := rec.Pass(context.Background()); err != nil {
		b.Fatal(err)
	}
	r.gh.ResetLog()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rep, err := rec.Pass(context.Background())
		if err != nil || len(rep.Transitions) != 0 {
			b.Fatalf("an unchanged pass: %v, %d transitions", err, len(rep.Transitions))
		}
	}
	c := r.gh.Counts()
	b.ReportMetric(float64(c.Counted)/float64(b.N), "ratelimited/pass")
	b.ReportMetric(float64(c.Total)/float64(b.N), "requests/pass")
	b.ReportMetric(float64(c.NotModified)/float64(b.N), "304/pass")
	// Issue 15's goal: one request per repository, answered 304.
	if c.Total > 10*b.N || c.NotModified != c.Total {
		b.Errorf("an idle pass over 10 repositories made %d requests, %d answered 304, over %d passes; want at most 10 per pass, all 304", c.Total, c.NotModified, b.N)
	}
}

// BenchmarkPassUnchangedScale is BenchmarkPassUnchanged at several sizes,
// one repository per 50 specs, reporting per-spec CPU time and allocation
// so that linear growth shows as flat figures. Sizes come from
// $GALLIVANT_BENCH_SPECS (default 500,2000; the first pass of a large size
// seeds every spec, which takes minutes at 10000).
func BenchmarkPassUnchangedScale(b *testing.B) {
	sizes := os.Getenv("GALLIVANT_BENCH_SPECS")
	if sizes == "" {
		sizes = "500,2000"
	}
	for _, f := range strings.Split(sizes, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			b.Fatalf("GALLIVANT_BENCH_SPECS: %q is not a size", f)
		}
		b.Run(fmt.Sprintf("specs=%d", n), func(b *testing.B) {
			files, repos := manySpecs(n, max(1, n/50))
			r := newRig(b, files, repos...)
			rec := r.reconciler(func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet })
			// A first pass over thousands of specs meets the primary rate
			// limit (5000 an hour) before it has seeded them all; the
			// seeding passes go on, each with a fresh hour's limit, until
			// one is idle.
			total := 0
			for pass := 0; ; pass++ {
				r.gh.SetRemaining(ghstandin.DefaultLogin, 5000)
				rep, err := rec.Pass(context.Background())
				if err != nil || pass == 50 {
					b.Fatalf("pass %d: %v, %d transitions so far", pass, err, total)
				}
				if len(rep.Transitions) == 0 {
					break
				}
				total += len(rep.Transitions)
			}
			if total != 2*n {
				b.Fatalf("seeding made %d transitions; want %d", total, 2*n)
			}
			var m0, m1 runtime.MemStats
			runtime.GC()
			debug.FreeOSMemory() // the seeding's garbage is not the idle pass's
			runtime.ReadMemStats(&m0)
			cpu0 := processCPU()
			b.ReportAllocs()
			b.ResetTimer()
			peak := startPeakMem()
			for b.Loop() {
				if rep, err := rec.Pass(context.Background()); err != nil || len(rep.Transitions) != 0 {
					b.Fatalf("an unchanged pass: %v, %d transitions", err, len(rep.Transitions))
				}
			}
			b.StopTimer()
			rss, heap := peak.end()
			cpu := processCPU() - cpu0
			runtime.ReadMemStats(&m1)
			// base-heap-MiB is what lives between passes (the stand-in's
			// repositories, the store's and the adapter's caches), so that
			// peak-heap-MiB minus it is the pass's own.
			b.ReportMetric(float64(m0.HeapAlloc)/(1<<20), "base-heap-MiB")
			b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
			if rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/spec")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(n), "B/spec")
		})
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPassAdmits100 is a pass that admits 100 seed returns (and
// dispatches the next row of each).
func BenchmarkPassAdmits100(b *testing.B) {
	files, repos := manySpecs(100, 10)
	r := newRig(b, files, repos...)
	none := func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet }
	if rep := r.pass(none); len(rep.Transitions) != 200 {
		b.Fatalf("first pass: %d transitions", len(rep.Transitions))
	}
	// Every agent answers its seed: one clone per repository, one commit
	// per work branch, one push.
	for ri, repo := range repos {
		dir := b.TempDir()
		run(b, dir, "git", "clone", "--quiet", r.gh.GitURLWithToken(repo, r.gh.MainToken()), "w")
		w := filepath.Join(dir, "w")
		var branches []string
		for i := ri; i < 100; i += len(repos) {
			spec := fmt.Sprintf("s%03d", i)
			l := r.ledger("plans/" + spec + "-ledger.md")
			run(b, w, "git", "checkout", "--quiet", "-B", "gallivant/"+spec, "origin/gallivant/"+spec)
			msg := fmt.Sprintf("loop: seed evidence\n\npending: %s\niteration: %d\n\n| 1 | open | 0 | test -f x%d; FAIL: missing |\n\nrow 0 done | seeded 1 rows, closed 0 on baseline | row 1\n", l.Pending, l.Iterations, i)
			os.WriteFile(filepath.Join(dir, "msg"), []byte(msg), 0o644)
			run(b, w, "git", "commit", "--quiet", "--allow-empty", "-F", filepath.Join(dir, "msg"))
			branches = append(branches, "gallivant/"+spec)
		}
		run(b, w, "git", append([]string{"push", "--quiet", "origin"}, branches...)...)
	}
	saved := run(b, r.control, "git", "rev-parse", "main")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		run(b, r.control, "git", "update-ref", "refs/heads/main", saved)
		rec := r.reconciler(none)
		b.StartTimer()
		rep, err := rec.Pass(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if admitted := countSubjects(rep, "loop: record"); admitted != 100 {
			b.Fatalf("admitted %d returns, want 100", admitted)
		}
	}
	b.ReportMetric(100, "returns/op")
	l := r.ledger("plans/s000-ledger.md")
	if l.Pending == nil || l.Pending.Target != 1 || !l.Seeded(ledger.Pending{}.Member) && l.Decisions[0].Kind != ledger.DecisionSeed {
		b.Errorf("after the pass: %+v", l.Pending)
	}
}

// BenchmarkReviewPassUnchanged is a pass over 20 pull requests in 4
// repositories, none of which changed since the pass before: in review
// with CI green, waiting for the reviewer; ready (approved, labelled,
// waiting for a person to merge); or waiting for CI (a status pending on
// every head). Every read is conditional, so the pass costs no rate
// limit; requests/pass is what the pass asks (issue 33's goal: 8, one
// pull-request list and one base head per repository, all 304).
func BenchmarkReviewPassUnchanged(b *testing.B) {
	for _, tc := range []struct {
		name  string
		state func(i int) (ci string, approve bool)
		// graphql is whether an idle pass asks one GraphQL query per
		// repository (rollup.go) besides its list: for pull requests
		// whose marks watch their checks (ready, waiting for CI).
		graphql bool
		// protected puts classic branch protection, readable with the
		// reconciler's token, on every repository's base: a pass
		// whose GraphQL query confirms marks reads it in that query
		// (the token read it through REST with a 200 before), never
		// through REST again (rollup.go rollupHolds). Marks of pull
		// requests waiting for their reviewer do not watch the base's
		// requirements, so review-protected asks no protection at all.
		protected bool
		// reviews is the protection's required approving reviews: at 2
		// an approved pull request waits for a second approval, and
		// its mark, which watches no checks, watches what the base
		// requires (quiet.go requiredHolds), read in its repository's
		// GraphQL query with the base's head.
		reviews int
	}{
		{"review", func(int) (string, bool) { return "success", false }, false, false, 0},
		{"review-protected", func(int) (string, bool) { return "success", false }, false, true, 0},
		{"ready", func(int) (string, bool) { return "success", true }, true, false, 0},
		{"ci-waiting", func(int) (string, bool) { return "pending", false }, true, false, 0},
		{"mixed", mixedState, true, false, 0},
		{"mixed-protected", mixedState, true, true, 0},
		{"approvals", func(int) (string, bool) { return "success", true }, true, true, 2},
		{"mixed-approvals", mixedState, true, true, 2},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var protect *ghstandin.Protection
			if tc.protected {
				protect = &ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: tc.reviews}
			}
			r, rec, repos := reviewRig(b, 20, 4, tc.state, "", protect)
			r.gh.ResetLog()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rep, err := rec.Pass(context.Background())
				if err != nil || len(rep.Transitions) != 0 {
					b.Fatalf("an unchanged pass: %v, %v", err, subjectsOf(rep))
				}
			}
			c := r.gh.Counts()
			charged := c.Counted - c.GraphQL // the stand-in counts GraphQL's budget too
			b.ReportMetric(float64(charged)/float64(b.N), "charged/pass")
			b.ReportMetric(float64(c.Total)/float64(b.N), "requests/pass")
			b.ReportMetric(float64(c.NotModified)/float64(b.N), "304s/pass")
			b.ReportMetric(float64(c.GraphQL)/float64(b.N), "graphql/pass")
			// Issues 15 and 33: an idle pull request is not read in
			// detail; the pass reads one pull-request list per
			// repository and either its base head (review) or one
			// GraphQL query with the checks and comments of its
			// watched pull requests and its base heads, rules and
			// (readable) classic protection.
			graphql := 0
			if tc.graphql {
				graphql = len(repos)
			}
			want := 2 * len(repos)
			if c.Total != want*b.N || c.GraphQL != graphql*b.N || c.NotModified+c.GraphQL != c.Total || charged != 0 {
				b.Errorf("an idle pass over 20 pull requests (%s) in %d repositories made %d requests, %d answered 304, %d GraphQL, %d charged, over %d passes; want %d per pass, %d of them GraphQL, the rest 304",
					tc.name, len(repos), c.Total, c.NotModified, c.GraphQL, charged, b.N, want, graphql)
			}
		})
	}
}

// mixedState puts a third of the pull requests in review (green, not
// approved), a third ready (green, approved) and a third waiting for CI
// (pending).
func mixedState(i int) (string, bool) {
	switch i % 3 {
	case 0:
		return "success", false
	case 1:
		return "success", true
	}
	return "pending", false
}

// reviewRig is n specs in nRepos repositories, each with its pull request
// open, the status of the i-th pull request's head (in the order the
// repositories list them) at state(i)'s ci, approved by alice when it
// says so, and quiet marks recorded: the next pass is idle. With
// stateDir, the adapter keeps its conditional state there
// (rig.stateAdapter). With protect, every repository's main has that
// classic protection from the start, readable with the reconciler's
// token.
func reviewRig(b testing.TB, n, nRepos int, state func(i int) (ci string, approve bool), stateDir string, protect ...*ghstandin.Protection) (*rig, *Reconciler, []string) {
	files, repos := manySpecs(n, nRepos)
	// Exit verification (L-104) would run the specs' go test in checkouts
	// of empty repositories; these pull requests are about review reads.
	for p, s := range files {
		if before, _, ok := strings.Cut(s, "\n## Verify\n"); ok {
			files[p] = before + "\n"
		}
	}
	files["gallivant.yaml"] = "defaults:\n  repo: acme/r0\nreviewer:\n  login: alice\n  rereview_minutes: 240\nexecutor:\n  kind: command\n  command: [\"unused\"]\n  timeout: 10m\nchecks:\n  wait: 100h\n"
	r := newRig(b, files, repos...)
	for _, p := range protect {
		if p != nil {
			for _, repo := range repos {
				r.gh.Protect(repo, "main", *p)
			}
		}
	}
	rec := r.reconciler(func(o *Options) {
		o.Log = quiet
		if stateDir != "" {
			o.GitHub = r.stateAdapter(b, stateDir)
		}
	})
	rep, err := rec.Pass(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if opened := countSubjects(rep, "loop: open pr"); opened != n {
		b.Fatalf("first pass opened %d pull requests, want %d", opened, n)
	}
	// A pull request whose checks are not final is read in full every
	// pass unless it waits for them.
	gh := map[string]*github.Client{"ci": r.gh.Client("ci-bot"), "alice": r.gh.Client("alice")}
	i, approved := 0, 0
	for _, repo := range repos {
		owner, name, _ := strings.Cut(repo, "/")
		prs, _, err := gh["ci"].PullRequests.List(context.Background(), owner, name, &github.PullRequestListOptions{ListOptions: github.ListOptions{PerPage: 100}})
		if err != nil {
			b.Fatal(err)
		}
		for _, pr := range prs {
			ci, approve := state(i)
			i++
			if _, _, err := gh["ci"].Repositories.CreateStatus(context.Background(), owner, name, pr.GetHead().GetSHA(), &github.RepoStatus{State: github.String(ci), Context: github.String("ci")}); err != nil {
				b.Fatal(err)
			}
			if approve {
				approved++
				if _, _, err := gh["alice"].PullRequests.CreateReview(context.Background(), owner, name, pr.GetNumber(), &github.PullRequestReviewRequest{CommitID: github.String(pr.GetHead().GetSHA()), Event: github.String("APPROVE")}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	// Passes run minutes apart: a full read of a pull request that changed
	// in the same second as the read leaves no quiet mark (quiet.go).
	for range 3 {
		r.clock.Advance(time.Minute)
		if _, err := rec.Pass(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range protect {
		if p != nil && p.RequiredReviews > 1 {
			approved = 0 // one approval is not enough: none is ready
		}
	}
	if got := countLabelled(b, r, repos); got != approved {
		b.Fatalf("%d pull requests labelled ready, want %d", got, approved)
	}
	return r, rec, repos
}

// countLabelled counts the open pull requests of repos that carry a label.
func countLabelled(b testing.TB, r *rig, repos []string) int {
	n := 0
	c := r.gh.Client("ci-bot")
	for _, repo := range repos {
		owner, name, _ := strings.Cut(repo, "/")
		prs, _, err := c.PullRequests.List(context.Background(), owner, name, &github.PullRequestListOptions{ListOptions: github.ListOptions{PerPage: 100}})
		if err != nil {
			b.Fatal(err)
		}
		for _, pr := range prs {
			if len(pr.Labels) > 0 {
				n++
			}
		}
	}
	return n
}
