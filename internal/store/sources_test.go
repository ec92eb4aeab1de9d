package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// A spec's `sources:` files are read from the control repository at the
// snapshot's commit, wherever they lie (notes/plan.md is under no scanned
// directory): a load of the scanned documents with the store's
// SourceReader gives the spec the file's bytes at that commit, a path the
// commit lacks is missing, and a file over the document limit is refused
// rather than cut and a symlink is not followed (as check reads working
// files), so every reader records the same contract.
func TestSourceReaderReadsTheSnapshot(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testserver.Git(t, src, "init", "--quiet", "--initial-branch=main")
	write("specs/a.md", "---\nrepo: acme/api\nsources: [notes/plan.md, notes/gone.md, notes/big.md, notes/link.md]\n---\n# A\n\n## Acceptance criteria\n1. It works.\n")
	write("notes/plan.md", "first plan\n")
	write("notes/big.md", strings.Repeat("x", parse.MaxSize+1))
	if err := os.Symlink("plan.md", filepath.Join(src, "notes", "link.md")); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, src, "add", "-A")
	testserver.Git(t, src, "commit", "--quiet", "-m", "start")
	first := strings.TrimSpace(testserver.Git(t, src, "rev-parse", "HEAD"))
	write("notes/plan.md", "second plan\n")
	testserver.Git(t, src, "commit", "--quiet", "-am", "edit the plan")
	remote := filepath.Join(t.TempDir(), "control.git")
	testserver.Git(t, src, "clone", "--quiet", "--bare", src, remote)
	st, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}

	files, _, err := st.Files(context.Background(), specs.DefaultConfig().ScanDirs())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, "notes/") {
			t.Fatalf("Files read %s, which is under no scanned directory", f.Path)
		}
	}
	set, ds := specs.LoadWith(specs.DefaultConfig(), files, specs.Parsers{Source: st.SourceReader(context.Background(), st.Tip())})
	sp := set.Specs["specs/a.md"]
	if sp == nil {
		t.Fatalf("specs/a.md not loaded: %v", ds)
	}
	want := []specs.SourceFile{{Path: "notes/plan.md", Data: []byte("second plan\n")}, {Path: "notes/gone.md", Missing: true}, {Path: "notes/big.md", Missing: true}, {Path: "notes/link.md", Missing: true}}
	if diff := cmp.Diff(want, sp.SourceFiles); diff != "" {
		t.Errorf("SourceFiles at the tip (-want +got):\n%s", diff)
	}
	var rules []string
	for _, d := range ds {
		rules = append(rules, d.String())
	}
	wantDiags := []string{
		`specs/a.md:3:26: warning: spec/source: the source "notes/gone.md" is not in the control repository; the contract records it as missing and the brief names it unquoted (for example, commit it, or remove it from ` + "`sources:`" + `)`,
		`specs/a.md:3:41: error: spec/source: the source "notes/big.md" cannot be read: the file is over 4194304 bytes, the limit of a control document; the spec's contract holds its bytes, so the spec is not worked until it can be`,
		`specs/a.md:3:55: error: spec/source: the source "notes/link.md" cannot be read: symlinks are not followed: notes/link.md is a symlink; the spec's contract holds its bytes, so the spec is not worked until it can be`,
	}
	if diff := cmp.Diff(wantDiags, rules); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}

	// An earlier commit's reader gives that commit's bytes.
	data, ok, err := st.SourceReader(context.Background(), first)("notes/plan.md")
	if err != nil || !ok || string(data) != "first plan\n" {
		t.Errorf("SourceReader(first)(notes/plan.md) = %q, %v, %v; want %q, true, nil", data, ok, err, "first plan\n")
	}
}
