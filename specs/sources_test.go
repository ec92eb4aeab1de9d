package specs

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sourcedSpec = "---\nrepo: acme/api\nsources: [specs/notes/limits.md]\n---\n# A\n\n## Acceptance criteria\n1. It works.\n\n## Verify\n- `go test ./...`\n"

const plainSpec = "---\nrepo: acme/api\n---\n# A\n\n## Acceptance criteria\n1. It works.\n\n## Verify\n- `go test ./...`\n"

func loadSpec(t *testing.T, files ...File) *Spec {
	t.Helper()
	set, ds := Load(DefaultConfig(), files)
	if ds.HasErrors() {
		t.Fatalf("load: %v", ds)
	}
	sp := set.Specs["specs/a.md"]
	if sp == nil {
		t.Fatalf("specs/a.md not loaded: %v", ds)
	}
	return sp
}

// A `sources:` file's bytes are part of the contract: editing, adding or
// removing the file changes the fingerprint as any contract edit does,
// while a spec without sources keeps the fingerprint it always had.
func TestSourceBytesInContract(t *testing.T) {
	t.Parallel()
	spec := File{Path: "specs/a.md", Data: []byte(sourcedSpec)}
	note := func(s string) File { return File{Path: "specs/notes/limits.md", Data: []byte(s)} }
	base := loadSpec(t, spec, note("limit 100\n")).Contract()
	tests := []struct {
		name    string
		files   []File
		changed bool
		line    string // a line the contract text must hold
	}{
		{"same bytes", []File{spec, note("limit 100\n")}, false, "source: specs/notes/limits.md " + ShortHash("limit 100\n")},
		{"edited source", []File{spec, note("limit 200\n")}, true, "source: specs/notes/limits.md " + ShortHash("limit 200\n")},
		{"missing source", []File{spec}, true, "source: specs/notes/limits.md missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := loadSpec(t, tt.files...).Contract()
			if changed := got.Fingerprint() != base.Fingerprint(); changed != tt.changed {
				t.Errorf("fingerprint changed = %v, want %v\nold:\n%s\nnew:\n%s", changed, tt.changed, base.Text(), got.Text())
			}
			if !strings.Contains(got.Text(), tt.line+"\n") {
				t.Errorf("contract text lacks %q:\n%s", tt.line, got.Text())
			}
		})
	}
}

// A spec without `sources:`, or one parsed on its own, has the contract
// text of before source bytes counted, so existing ledgers of such specs
// keep their approved fingerprint.
func TestContractWithoutSourceBytesUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
	}{
		{"no sources", plainSpec},
		{"parsed on its own", sourcedSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			alone, _, ds := ParseSpecFile(File{Path: "specs/a.md", Data: []byte(tt.src)}, Defaults{Repo: "acme/api", Base: "main"})
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			c := alone.Contract()
			if diff := cmp.Diff(c.text(false), c.Text()); diff != "" {
				t.Errorf("contract text (-legacy +got):\n%s", diff)
			}
		})
	}
	loaded := loadSpec(t, File{Path: "specs/a.md", Data: []byte(plainSpec)}).Contract()
	if loaded.SourceDigests != nil {
		t.Errorf("SourceDigests = %q for a spec without sources; want nil", loaded.SourceDigests)
	}
}

// The diff names a source whose bytes changed, and the one-time change of
// an entry approved before source bytes were part of the contract.
func TestDiffSourceBytes(t *testing.T) {
	t.Parallel()
	spec := File{Path: "specs/a.md", Data: []byte(sourcedSpec)}
	note := func(s string) File { return File{Path: "specs/notes/limits.md", Data: []byte(s)} }
	v1 := loadSpec(t, spec, note("limit 100\n")).Contract()
	v2 := loadSpec(t, spec, note("limit 200\n")).Contract()
	legacy := ShortHash(v1.text(false))
	tests := []struct {
		name      string
		approved  string
		old, cur  Contract
		wantLines []string
	}{
		{"edited source", v1.Fingerprint(), v1, v2, []string{`source "specs/notes/limits.md" changed: ` + ShortHash("limit 100\n") + " -> " + ShortHash("limit 200\n")}},
		{"legacy approval, same bytes", legacy, v1, v1, []string{"the approved fingerprint " + legacy + ` predates source bytes in the contract; the bytes of ["specs/notes/limits.md"] are part of it now (approve them with a resnapshot request)`}},
		{"legacy approval, edited bytes", legacy, v1, v2, []string{
			"the approved fingerprint " + legacy + ` predates source bytes in the contract; the bytes of ["specs/notes/limits.md"] are part of it now (approve them with a resnapshot request)`,
			`source "specs/notes/limits.md" changed: ` + ShortHash("limit 100\n") + " -> " + ShortHash("limit 200\n"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := DiffApproved(tt.approved, tt.old, tt.cur)
			if !d.Changed() {
				t.Fatalf("Changed() = false; want true (%s)", d)
			}
			if diff := cmp.Diff(tt.wantLines, d.Lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// WithSources copies the spec: a spec shared by a parse cache keeps no
// bytes, and a read error is returned.
func TestWithSourcesCopies(t *testing.T) {
	t.Parallel()
	sp, _, _ := ParseSpecFile(File{Path: "specs/a.md", Data: []byte(sourcedSpec)}, Defaults{Repo: "acme/api", Base: "main"})
	got, err := sp.WithSources(func(string) ([]byte, bool, error) { return []byte("x"), true, nil })
	if err != nil {
		t.Fatal(err)
	}
	if sp.SourceFiles != nil {
		t.Errorf("the original spec got SourceFiles %v", sp.SourceFiles)
	}
	if diff := cmp.Diff([]SourceFile{{Path: "specs/notes/limits.md", Data: []byte("x")}}, got.SourceFiles); diff != "" {
		t.Errorf("SourceFiles (-want +got):\n%s", diff)
	}
	if _, err := sp.WithSources(func(string) ([]byte, bool, error) { return nil, false, errTest }); err == nil {
		t.Error("a read error was not returned")
	}
}

var errTest = errors.New("unreadable")
