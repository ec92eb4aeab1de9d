package reconcile

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// exampleControl is a local control checkout holding docs/examples/control:
// specs, a chain, a plan and ledgers.
func exampleControl(t *testing.T) (dir string, st *store.Store, cfg *specs.Config) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("..", "docs", "examples", "control")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		writeFile(t, filepath.Join(dir, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "git", "init", "--quiet", "--initial-branch=main")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "--quiet", "-m", "Approve specs")
	st, err = store.Open(context.Background(), store.Options{Control: dir, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := st.ReadFile(context.Background(), st.Head(), specs.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, ds := specs.ParseConfig(specs.ConfigFile, data)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return dir, st, cfg
}

// freshLoad is what a pass without the cache reads.
func freshLoad(t *testing.T, st *store.Store, cfg *specs.Config) (*ledger.Repo, parse.Diagnostics) {
	t.Helper()
	files, fds, err := st.Files(context.Background(), cfg.ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	repo, ds := ledger.Load(cfg, files)
	return repo, append(fds, ds...)
}

// every field, unexported ones too: the parse positions, the documents.
var deep = cmp.Exporter(func(reflect.Type) bool { return true })

// A load through the cache gives what a fresh load gives; an unchanged
// document is reused, not parsed again; a changed blob is parsed again,
// and the entries of blobs no longer seen are forgotten.
func TestParseCacheReparsesChangedBlobs(t *testing.T) {
	t.Parallel()
	dir, st, cfg := exampleControl(t)
	c := newParseCache()
	_, first, ds, err := c.load(context.Background(), st, cfg, cfg.ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	want, wantDs := freshLoad(t, st, cfg)
	if diff := cmp.Diff(want, first, deep); diff != "" {
		t.Fatalf("first load (-fresh +cached):\n%s", diff)
	}
	if diff := cmp.Diff(wantDs, ds); diff != "" {
		t.Fatalf("first load's diagnostics (-fresh +cached):\n%s", diff)
	}
	if len(first.Specs) < 5 || len(first.Ledgers) < 3 || len(first.Chains) != 1 || len(first.Plans) != 1 {
		t.Fatalf("the example has %d specs, %d ledgers, %d chains, %d plans; the test needs each kind", len(first.Specs), len(first.Ledgers), len(first.Chains), len(first.Plans))
	}
	oldBlobs, oldParsed := len(c.blobs), len(c.parsed)

	changed, kept := "specs/webhooks.md", "specs/audit-log.md"
	p := filepath.Join(dir, changed)
	data, _ := os.ReadFile(p)
	writeFile(t, p, strings.Replace(string(data), "\n# ", "\n# Reworded: ", 1))
	run(t, dir, "git", "commit", "--quiet", "-am", "Reword a spec")
	if err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, second, ds, err := c.load(context.Background(), st, cfg, cfg.ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	want, wantDs = freshLoad(t, st, cfg)
	if diff := cmp.Diff(want, second, deep); diff != "" {
		t.Fatalf("second load (-fresh +cached):\n%s", diff)
	}
	if diff := cmp.Diff(wantDs, ds); diff != "" {
		t.Fatalf("second load's diagnostics (-fresh +cached):\n%s", diff)
	}
	if got := second.Specs[changed].Title; !strings.HasPrefix(got, "Reworded: ") {
		t.Errorf("the changed spec's title is %q: its new blob was not parsed", got)
	}
	if second.Specs[kept] != first.Specs[kept] {
		t.Errorf("the unchanged %s was parsed again", kept)
	}
	if len(c.blobs) != oldBlobs {
		t.Errorf("the cache holds %d blobs after a one-blob change, want %d: the old blob stays", len(c.blobs), oldBlobs)
	}
	if len(c.parsed) != oldParsed {
		t.Errorf("the cache holds %d parses after a one-blob change, want %d: the old parse stays", len(c.parsed), oldParsed)
	}
}

// What one pass got from the cache and changed (the pass changes its
// ledgers; loading resolves its chains) does not show in the next pass's
// documents.
func TestParseCachePassesShareNoMutableState(t *testing.T) {
	t.Parallel()
	_, st, cfg := exampleControl(t)
	c := newParseCache()
	_, first, _, err := c.load(context.Background(), st, cfg, cfg.ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	mutated := 0
	for _, l := range first.Ledgers {
		for i := range l.Rows {
			l.Rows[i].Status, l.Rows[i].Evidence = "tampered", "tampered"
		}
		if l.Pending != nil {
			l.Pending.Target = 99
		}
		if l.Delivery != nil {
			l.Delivery.Phase = ledger.Phase("tampered")
		}
		if len(l.Decisions) > 0 {
			l.Decisions[0].Line = "tampered"
		}
		if len(l.Requests) > 0 {
			l.Requests[0] = "tampered"
		}
		l.Spec, l.Iterations = "tampered", 99
		mutated++
	}
	for _, ch := range first.Chains {
		ch.Title = "tampered"
		for i := range ch.Milestones {
			ch.Milestones[i].Path = "tampered"
		}
		mutated++
	}
	if mutated < 4 {
		t.Fatalf("mutated %d documents; the test needs ledgers and a chain", mutated)
	}
	_, second, _, err := c.load(context.Background(), st, cfg, cfg.ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := freshLoad(t, st, cfg)
	if diff := cmp.Diff(want, second, deep); diff != "" {
		t.Errorf("the second pass sees the first pass's changes (-fresh +cached):\n%s", diff)
	}
}

// BenchmarkIdlePassParseCache is an idle daemon pass over 500 specs (and
// their 500 ledgers) in 10 repositories, with the daemon's parse cache and
// without it (as every pass was before it), and the pass's load step (read
// and parse the control documents) alone, also into a new cache each
// time, as a one-shot pass does. parsed/pass counts the documents
// a pass with the cache parsed (without it, every document).
func BenchmarkIdlePassParseCache(b *testing.B) {
	files, repos := manySpecs(500, 10)
	r := newRig(b, files, repos...)
	rec := r.reconciler(func(o *Options) { o.Executor = agent.NoneExecutor{}; o.Log = quiet })
	if rep, err := rec.Pass(context.Background()); err != nil || len(rep.Transitions) != 1000 {
		b.Fatalf("first pass: %v, %d transitions", err, len(rep.Transitions))
	}
	st := rec.o.Store
	data, _, err := st.ReadFile(context.Background(), st.Head(), specs.ConfigFile)
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := specs.ParseConfig(specs.ConfigFile, data)
	for _, cached := range []bool{false, true} {
		name := "cache=off"
		if cached {
			name = "cache=on"
		}
		b.Run("pass/"+name, func(b *testing.B) {
			rec.docs = nil
			if cached {
				rec.docs = newParseCache()
			}
			// Warm, as a daemon's second pass would be.
			if _, err := rec.Pass(context.Background()); err != nil {
				b.Fatal(err)
			}
			parses := 0
			if rec.docs != nil {
				parses = rec.docs.parses
			}
			b.ReportAllocs()
			for b.Loop() {
				rep, err := rec.Pass(context.Background())
				if err != nil || len(rep.Transitions) != 0 {
					b.Fatalf("an idle pass: %v, %d transitions", err, len(rep.Transitions))
				}
			}
			if rec.docs != nil {
				b.ReportMetric(float64(rec.docs.parses-parses)/float64(b.N), "parsed/pass")
			}
		})
		b.Run("load/"+name, func(b *testing.B) {
			var c *parseCache
			if cached {
				c = newParseCache()
				if _, _, _, err := c.load(context.Background(), st, cfg, cfg.ScanDirs()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				_, repo, _, err := c.load(context.Background(), st, cfg, cfg.ScanDirs())
				if err != nil || len(repo.Ledgers) != 500 {
					b.Fatalf("load: %v, %d ledgers", err, len(repo.Ledgers))
				}
			}
		})
	}
	// A one-shot pass fills a cache it never uses again: what that costs.
	b.Run("load/cache=cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, repo, _, err := newParseCache().load(context.Background(), st, cfg, cfg.ScanDirs())
			if err != nil || len(repo.Ledgers) != 500 {
				b.Fatalf("load: %v, %d ledgers", err, len(repo.Ledgers))
			}
		}
	})
	rec.docs = newParseCache()
}

// A daemon's passes (one Reconciler) deliver a chain just as passes of
// fresh reconcilers do, and after each pass every parse the cache keeps
// still equals a fresh parse of its blob: nothing a pass did changed what
// the next pass will be handed.
func TestParseCacheDaemonPassesLeaveItIntact(t *testing.T) {
	t.Parallel()
	r := chainRig(t)
	rec := r.reconciler()
	pass := func() []string {
		t.Helper()
		rep, err := rec.Pass(context.Background())
		if err != nil {
			t.Fatalf("pass: %v", err)
		}
		cacheIntact(t, rec.docs)
		return subjectsOf(rep)
	}
	if got := pass(); !has(got, "loop: ready acme/api#1") || has(got, "loop: ready acme/api#2") {
		t.Fatalf("pass 1 must deliver milestone 1 only: %v", got)
	}
	if got := pass(); len(got) != 0 {
		t.Fatalf("an idle pass: %v", got)
	}
	parses := rec.docs.parses
	if got := pass(); len(got) != 0 {
		t.Fatalf("an idle pass: %v", got)
	}
	if rec.docs.parses != parses {
		t.Errorf("an idle daemon pass parsed %d documents; want none", rec.docs.parses-parses)
	}
	alice := r.as("alice")
	alice.merge(1)
	if got := pass(); len(got) < 2 || got[0] != "loop: done acme/api#1" || got[1] != "loop: seed ledger" || !has(got, "loop: ready acme/api#2") {
		t.Fatalf("after the merge: %v", got)
	}
	alice.merge(2)
	if got := pass(); len(got) < 2 || got[0] != "loop: done acme/api#2" || !has(got, "loop: ready acme/api#3") {
		t.Fatalf("after merge 2: %v", got)
	}
}

// cacheIntact checks every blob the cache holds against its id and every
// parse against a fresh parse of the blob.
func cacheIntact(t *testing.T, c *parseCache) {
	t.Helper()
	if len(c.parsed) == 0 {
		t.Fatal("the cache is empty")
	}
	for id, b := range c.blobs {
		if got := plumbing.ComputeHash(plumbing.BlobObject, b.data); got != id {
			t.Errorf("blob %s now hashes to %s: its bytes were changed", id, got)
		}
	}
	for k, d := range c.parsed {
		f := specs.File{Path: k.path, Data: c.blobs[k.id].data, ID: k.id.String()}
		for def, got := range d.spec {
			sp, doc, ds := specs.ParseSpecFile(f, def)
			if diff := cmp.Diff(parsedSpec{sp, doc, ds}, *got, deep); diff != "" {
				t.Errorf("cached spec %s changed (-fresh +cached):\n%s", k.path, diff)
			}
		}
		if d.chain != nil {
			ch, ds := specs.ParseChainFile(f)
			if diff := cmp.Diff(parsedChain{ch, ds}, *d.chain, deep); diff != "" {
				t.Errorf("cached chain %s changed (-fresh +cached):\n%s", k.path, diff)
			}
		}
		if d.plan != nil {
			p, ds := specs.ParsePlanFile(f)
			if diff := cmp.Diff(parsedPlan{p, ds}, *d.plan, deep); diff != "" {
				t.Errorf("cached plan %s changed (-fresh +cached):\n%s", k.path, diff)
			}
		}
		if d.ledger != nil {
			l, ds := ledger.Parse(f.Path, f.Data)
			if diff := cmp.Diff(parsedLedger{l, ds}, *d.ledger, deep); diff != "" {
				t.Errorf("cached ledger %s changed (-fresh +cached):\n%s", k.path, diff)
			}
		}
	}
}

// A document whose blob is missing from the control repository fails the
// load, with or without the cache, rather than reading as a document that
// is not there (a missing ledger would be seeded again).
func TestLoadFailsOnAMissingBlob(t *testing.T) {
	t.Parallel()
	dir, st, cfg := exampleControl(t)
	id := run(t, dir, "git", "rev-parse", "HEAD:plans/webhooks-ledger.md")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", id[:2], id[2:])); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*parseCache{nil, newParseCache()} {
		if _, _, _, err := c.load(context.Background(), st, cfg, cfg.ScanDirs()); err == nil || !strings.Contains(err.Error(), "plans/webhooks-ledger.md") {
			t.Errorf("load (cache %v) = %v, want an error naming the ledger", c != nil, err)
		}
	}
}
