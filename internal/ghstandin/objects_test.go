package ghstandin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// objectsRepo builds a bare repository whose history has a line of
// descent, a merge, a criss-cross (two best merge bases), a commit older
// than its parent, equal commit dates, nested directories, a binary file
// and an annotated tag. It returns the repository and its commits by name.
func objectsRepo(t *testing.T) (gitRepo, map[string]string) {
	t.Helper()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	g, err := initBare(filepath.Join(t.TempDir(), "r.git"), "main", "octo", t0)
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]string{}
	var ok bool
	if c["root"], ok = g.resolve("main"); !ok {
		t.Fatal("no main")
	}
	commit := func(name string, parents []string, path, content string, when time.Time) {
		t.Helper()
		tree, err := g.withFile(parents[0], path, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if c[name], err = g.commitTree(tree, parents, name+"\n\nbody of "+name+"\n", "octo", when); err != nil {
			t.Fatal(err)
		}
	}
	merge := func(name, a, b string, when time.Time) {
		t.Helper()
		tree, conflict, err := g.mergeTree(c[a], c[b])
		if err != nil || conflict {
			t.Fatalf("merge %s %s: conflict %v, %v", a, b, conflict, err)
		}
		if c[name], err = g.commitTree(tree, []string{c[a], c[b]}, "Merge "+b+" into "+a, "octo", when); err != nil {
			t.Fatal(err)
		}
	}
	commit("a1", []string{c["root"]}, "docs/deep/a.md", "one\ntwo\n", t0.Add(time.Hour))
	commit("a2", []string{c["a1"]}, "docs/deep/a.md", "one\n2\nthree\n", t0.Add(time.Hour)) // same date as its parent
	commit("b1", []string{c["root"]}, "b.txt", "b\n", t0.Add(2*time.Hour))
	commit("b2", []string{c["b1"]}, "b.bin", "\x00\x01binary", t0.Add(30*time.Minute)) // older than its parent
	merge("m", "a2", "b2", t0.Add(3*time.Hour))
	commit("m1", []string{c["m"]}, "README.md", "# r\nmore\n", t0.Add(4*time.Hour))
	merge("x", "a2", "b2", t0.Add(5*time.Hour)) // the same merge again: a criss-cross with y
	merge("y", "b2", "a2", t0.Add(5*time.Hour))
	if _, err := g.run(nil, []string{"GIT_COMMITTER_NAME=octo", "GIT_COMMITTER_EMAIL=octo@example.com", "GIT_COMMITTER_DATE=" + t0.Format(time.RFC3339)},
		"tag", "-a", "-m", "release", "v1", c["m1"]); err != nil {
		t.Fatal(err)
	}
	if err := g.updateRef("main", c["m1"], c["root"]); err != nil {
		t.Fatal(err)
	}
	return g, c
}

// The in-process reader answers every query the API makes as git does:
// the same commits, counts, ancestry, merge bases, ranges, trees, blobs
// and names, for every pair of commits of a history with merges and
// skewed dates. git (a gitRepo without the reader) is the reference.
func TestObjectsAnswerAsGitDoes(t *testing.T) {
	t.Parallel()
	ref, c := objectsRepo(t)
	in := gitRepo{dir: ref.dir, objs: openObjects(ref.dir)}
	missing := strings.Repeat("0123456789", 4)
	shas := []string{missing}
	for _, s := range c {
		shas = append(shas, s)
	}
	for _, a := range shas {
		wantC, wantErr := ref.commit(a)
		gotC, gotErr := in.commit(a)
		if diff := cmp.Diff(wantC, gotC); diff != "" || (wantErr == nil) != (gotErr == nil) {
			t.Errorf("commit(%s) (-git +in process), errors %v, %v:\n%s", a, wantErr, gotErr, diff)
		}
		for _, b := range shas {
			if w, g := ref.count(a+".."+b), in.count(a+".."+b); w != g {
				t.Errorf("count(%s..%s) = %d, git says %d", a, b, g, w)
			}
			if w, g := ref.isAncestor(a, b), in.isAncestor(a, b); w != g {
				t.Errorf("isAncestor(%s, %s) = %v, git says %v", a, b, g, w)
			}
			wmb, wok := ref.mergeBase(a, b)
			gmb, gok := in.mergeBase(a, b)
			if wmb != gmb || wok != gok {
				t.Errorf("mergeBase(%s, %s) = %s %v, git says %s %v", a, b, gmb, gok, wmb, wok)
			}
			wcs, werr := ref.commitsBetween(a, b)
			gcs, gerr := in.commitsBetween(a, b)
			if diff := cmp.Diff(wcs, gcs); diff != "" || (werr == nil) != (gerr == nil) {
				t.Errorf("commitsBetween(%s, %s) (-git +in process), errors %v, %v:\n%s", a, b, werr, gerr, diff)
			}
		}
	}
	for _, name := range []string{"main", "v1", "refs/tags/v1", "refs/heads/main", c["m1"][:12], c["a2"], missing, "nosuch", "main~1", "main^{tree}"} {
		ws, wok := ref.resolve(name)
		gs, gok := in.resolve(name)
		if ws != gs || wok != gok {
			t.Errorf("resolve(%q) = %s %v, git says %s %v", name, gs, gok, ws, wok)
		}
	}
	for _, commit := range []string{c["m1"], c["a1"], missing} {
		for _, p := range []string{"", "docs", "docs/deep", "docs/deep/a.md", "b.bin", "README.md", "nosuch", "docs/nosuch", "b.txt/x", "docs/./deep"} {
			we, wok := ref.entry(commit, p)
			ge, gok := in.entry(commit, p)
			if !wok {
				// git's answer is then no entry; what it read is noise.
				we = treeEntry{}
				ge = treeEntry{}
			}
			if diff := cmp.Diff(we, ge); diff != "" || wok != gok {
				t.Errorf("entry(%s, %q) ok %v, git %v (-git +in process):\n%s", commit, p, gok, wok, diff)
			}
			wl, werr := ref.list(commit, p)
			gl, gerr := in.list(commit, p)
			if diff := cmp.Diff(wl, gl); diff != "" || (werr == nil) != (gerr == nil) {
				t.Errorf("list(%s, %q) errors %v, %v (-git +in process):\n%s", commit, p, werr, gerr, diff)
			}
			for _, name := range []string{commit + ":" + p, "main:" + p} {
				wb, werr := ref.blob(name)
				gb, gerr := in.blob(name)
				if string(wb) != string(gb) || (werr == nil) != (gerr == nil) {
					t.Errorf("blob(%q) = %q, %v; git says %q, %v", name, gb, gerr, wb, werr)
				}
			}
			if we.SHA != "" {
				wt, werr := ref.typeOf(we.SHA)
				gt, gerr := in.typeOf(we.SHA)
				if wt != gt || (werr == nil) != (gerr == nil) {
					t.Errorf("typeOf(%s) = %q, %v; git says %q, %v", we.SHA, gt, gerr, wt, werr)
				}
			}
		}
	}
	// The answers above were the reader's, not git's by way of a fallback.
	for _, a := range shas {
		for _, b := range shas {
			if _, err := in.objs.only(a, b); !answered(err) {
				t.Errorf("only(%s, %s) left to git: %v", a, b, err)
			}
		}
	}
	if bases, err := in.objs.mergeBases(c["x"], c["y"]); err != nil || len(bases) != 2 {
		t.Errorf("mergeBases(x, y) = %v, %v; want the criss-cross's two", bases, err)
	}
	if cs, ok, err := in.chainBetween(c["root"], c["a2"]); !ok || err != nil || len(cs) != 2 {
		t.Errorf("chainBetween(root, a2) = %d commits, in process %v, %v; want 2 in process", len(cs), ok, err)
	}
	if _, ok, _ := in.chainBetween(c["root"], c["m"]); ok {
		t.Error("chainBetween(root, m) answered in process; a merge inside the range is git's to order")
	}
	tag, _ := ref.out("rev-parse", "refs/tags/v1")
	if w, g := mustType(t, ref, tag), mustType(t, in, tag); w != g || g != "tag" {
		t.Errorf("typeOf(tag) = %q, git says %q", g, w)
	}
}

func mustType(t *testing.T, g gitRepo, sha string) string {
	t.Helper()
	typ, err := g.typeOf(sha)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// Objects that arrive after the reader has indexed the packs, loose or in
// a pack that replaced the one it indexed, are read: a push never leaves
// the API answering from a stale index.
func TestObjectsSeeLaterPushes(t *testing.T) {
	t.Parallel()
	g, c := objectsRepo(t)
	if _, err := g.out("repack", "-a", "-d", "-q"); err != nil {
		t.Fatal(err)
	}
	in := gitRepo{dir: g.dir, objs: openObjects(g.dir)}
	if _, err := in.commit(c["m1"]); err != nil {
		t.Fatal(err)
	}
	add := func(parent, path string) string {
		t.Helper()
		tree, err := g.withFile(parent, path, []byte(path+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		sha, err := g.commitTree(tree, []string{parent}, "add "+path, "octo", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		return sha
	}
	loose := add(c["m1"], "loose.txt")
	if got := in.count(c["m1"] + ".." + loose); got != 1 {
		t.Errorf("count to a loose commit = %d, want 1", got)
	}
	packed := add(loose, "packed.txt")
	if _, err := g.out("repack", "-a", "-d", "-q"); err != nil {
		t.Fatal(err)
	}
	if data, err := in.blob(packed + ":packed.txt"); err != nil || string(data) != "packed.txt\n" {
		t.Errorf("blob in a new pack = %q, %v", data, err)
	}
	if !in.isAncestor(c["root"], packed) {
		t.Error("isAncestor(root, commit in a new pack) = false")
	}
}

// diff reads statuses and line counts from one git process: added,
// removed and modified files, binary files counted as no lines.
func TestDiffOneProcess(t *testing.T) {
	t.Parallel()
	ref, c := objectsRepo(t)
	g := gitRepo{dir: ref.dir, objs: openObjects(ref.dir)}
	tests := []struct {
		base, head string
		want       []fileChange
	}{
		{c["root"], c["m1"], []fileChange{
			{Filename: "README.md", Status: "modified", Additions: 1},
			{Filename: "b.bin", Status: "added"},
			{Filename: "b.txt", Status: "added", Additions: 1},
			{Filename: "docs/deep/a.md", Status: "added", Additions: 3},
		}},
		{c["a1"], c["a2"], []fileChange{{Filename: "docs/deep/a.md", Status: "modified", Additions: 2, Deletions: 1}}},
		{c["m1"], c["root"], []fileChange{
			{Filename: "README.md", Status: "modified", Deletions: 1},
			{Filename: "b.bin", Status: "removed"},
			{Filename: "b.txt", Status: "removed", Deletions: 1},
			{Filename: "docs/deep/a.md", Status: "removed", Deletions: 3},
		}},
		{c["x"], c["y"], nil},
	}
	for _, tt := range tests {
		got, err := g.diff(tt.base, tt.head)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("diff(%s, %s) (-want +got):\n%s", tt.base, tt.head, diff)
		}
	}
}

// The in-process diff answers as git does (a gitRepo without the reader
// is the reference) for every pair of commits of histories that change
// text in the ways xdiff's heuristics care about: repeated lines, lines
// without a final newline, binary content, moved blocks, files added and
// removed in nested directories; and it answers the simple ones itself.
func TestDiffAnswersAsGitDoes(t *testing.T) {
	t.Parallel()
	ref, c := objectsRepo(t)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	steps := []struct{ path, content string }{
		{"notes.md", "a\nb\nc\n"},
		{"notes.md", "a\nB\nc\nd"},
		{"notes.md", "a\nB\nc\nd\n"},
		{"notes.md", strings.Repeat("\n", 12) + "x\n" + strings.Repeat("\n", 12)},
		{"notes.md", strings.Repeat("\n", 5) + "y\n" + strings.Repeat("\n", 20)},
		{"notes.md", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
		{"notes.md", "6\n7\n8\n9\n10\n1\n2\n3\n4\n5\n"},
		{"src/deep/x.go", "package x\n"},
		{"notes.md", "bin\x00ary\n"},
		{"notes.md", "text again\n"},
		{"src/deep/x.go", ""},
	}
	prev := c["m1"]
	names := []string{c["root"], c["a1"], c["a2"], c["b2"], c["m"], c["m1"], c["x"], c["y"]}
	for i, s := range steps {
		tree, err := ref.withFile(prev, s.path, []byte(s.content))
		if err != nil {
			t.Fatal(err)
		}
		if prev, err = ref.commitTree(tree, []string{prev}, fmt.Sprintf("step %d\n", i), "octo", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		names = append(names, prev)
	}
	in := gitRepo{dir: ref.dir, objs: openObjects(ref.dir)}
	inProcess := 0
	for _, a := range names {
		for _, b := range names {
			want, werr := ref.diff(a, b)
			got, gerr := in.diff(a, b)
			if diff := cmp.Diff(want, got); diff != "" || (werr == nil) != (gerr == nil) {
				t.Errorf("diff(%s, %s) errors %v, %v (-git +in process):\n%s", a, b, werr, gerr, diff)
			}
			if _, err := in.objs.diff(a, b); err == nil {
				inProcess++
			}
		}
	}
	if total := len(names) * len(names); inProcess < total/2 {
		t.Errorf("%d of %d diffs answered in process, want at least half", inProcess, total)
	}
	t.Logf("%d of %d diffs answered in process", inProcess, len(names)*len(names))
}
