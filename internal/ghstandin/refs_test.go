package ghstandin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gitRefs lists refs the way git itself resolves them, the reference the
// stand-in's file reader must agree with.
func gitRefs(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname) %(objectname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, sha, ok := strings.Cut(line, " "); ok {
			m[name] = sha
		}
	}
	return m
}

// The stand-in reads refs from the repository's files, never forking git;
// loose, packed, packed-then-updated and deleted refs must all read as
// git for-each-ref reads them.
func TestReadRefsAgreesWithGit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r.git")
	g, err := initBare(dir, "main", "octo", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	main, _ := g.out("rev-parse", "refs/heads/main")
	tree, _ := g.out("rev-parse", main+"^{tree}")
	second, err := g.commitTree(tree, []string{main}, "second", "octo", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		args [][]string
	}{
		{"loose only", [][]string{{"update-ref", "refs/heads/gallivant/a", main}, {"update-ref", "refs/heads/gallivant/b", main}}},
		{"packed", [][]string{{"pack-refs", "--all"}}},
		{"packed then updated loose", [][]string{{"update-ref", "refs/heads/gallivant/a", second, main}}},
		{"packed then deleted", [][]string{{"update-ref", "-d", "refs/heads/gallivant/b"}}},
		{"a tag", [][]string{{"tag", "v1", second}}},
	}
	for _, st := range steps {
		for _, a := range st.args {
			if _, err := g.out(a...); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		got, err := readRefs(dir)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(gitRefs(t, dir), got); diff != "" {
			t.Errorf("%s: readRefs (-git +got):\n%s", st.name, diff)
		}
	}
	bs, err := g.branches()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"main": main, "gallivant/a": second}, bs); diff != "" {
		t.Errorf("branches (-want +got):\n%s", diff)
	}
	tests := []struct {
		ref  string
		want string
		ok   bool
	}{
		{"main", main, true},
		{"refs/heads/main", main, true},
		{"gallivant/a", second, true},
		{"gallivant/b", "", false},
		{"v1", second, true},
		{main, main, true},
		{"main~0", main, true},
		{"-main", "", false},
		{"nope", "", false},
	}
	for _, tt := range tests {
		sha, ok := g.resolve(tt.ref)
		if sha != tt.want || ok != tt.ok {
			t.Errorf("resolve(%q) = %q, %v; want %q, %v", tt.ref, sha, ok, tt.want, tt.ok)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "refs", "heads", "junk"), []byte("not a sha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if bs, _ := g.branches(); bs["junk"] != "" {
		t.Errorf("a loose file that is not a ref read as branch junk = %q", bs["junk"])
	}
}
