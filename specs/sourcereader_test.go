package specs

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/parse"
)

// A `sources:` file outside the scanned directories (notes/plan.md at the
// top of the control repository, a YAML file) reaches the spec through the
// snapshot's SourceReader, so its bytes are in the contract and the brief
// like those of a source under specs/. A path the snapshot does not hold
// is a positioned warning; one the reader refuses is a positioned error
// that makes the spec invalid.
func TestLoadReadsSourcesOutsideScanDirs(t *testing.T) {
	t.Parallel()
	const spec = "---\nrepo: acme/api\nsources:\n  - specs/notes/limits.md\n  - notes/plan.md\n---\n# A\n\n## Acceptance criteria\n1. It works.\n"
	under := File{Path: "specs/notes/limits.md", Data: []byte("limit 100\n")}
	errRead := errors.New("object 3f9c2e7 is missing")
	snapshot := func(files map[string]string, fail string) SourceReader {
		return func(p string) ([]byte, bool, error) {
			if p == fail {
				return nil, false, errRead
			}
			d, ok := files[p]
			if !ok {
				return nil, false, nil
			}
			return []byte(d), true, nil
		}
	}
	type diag struct {
		Pos      parse.Pos
		Severity parse.Severity
		Rule     string
	}
	tests := []struct {
		name    string
		read    SourceReader
		want    []SourceFile
		diags   []diag
		invalid bool
	}{
		{
			name: "read from the snapshot",
			read: snapshot(map[string]string{"notes/plan.md": "# Plan\n"}, ""),
			want: []SourceFile{{Path: "specs/notes/limits.md", Data: []byte("limit 100\n")}, {Path: "notes/plan.md", Data: []byte("# Plan\n")}},
		},
		{
			name:  "missing from the snapshot",
			read:  snapshot(nil, ""),
			want:  []SourceFile{{Path: "specs/notes/limits.md", Data: []byte("limit 100\n")}, {Path: "notes/plan.md", Missing: true}},
			diags: []diag{{parse.Pos{Line: 5, Col: 5}, parse.SeverityWarning, RuleSpecSource}},
		},
		{
			name:    "unreadable",
			read:    snapshot(nil, "notes/plan.md"),
			want:    []SourceFile{{Path: "specs/notes/limits.md", Data: []byte("limit 100\n")}, {Path: "notes/plan.md", Missing: true}},
			diags:   []diag{{parse.Pos{Line: 5, Col: 5}, parse.SeverityError, RuleSpecSource}},
			invalid: true,
		},
		{
			// A caller that loads only part of a snapshot cannot tell.
			name: "no reader",
			want: []SourceFile{{Path: "specs/notes/limits.md", Data: []byte("limit 100\n")}, {Path: "notes/plan.md", Missing: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, ds := LoadWith(DefaultConfig(), []File{{Path: "specs/a.md", Data: []byte(spec)}, under}, Parsers{Source: tt.read})
			sp := set.Specs["specs/a.md"]
			if sp == nil {
				t.Fatalf("specs/a.md not loaded: %v", ds)
			}
			if diff := cmp.Diff(tt.want, sp.SourceFiles); diff != "" {
				t.Errorf("SourceFiles (-want +got):\n%s", diff)
			}
			var got []diag
			for _, d := range ds {
				if d.File != "specs/a.md" {
					t.Errorf("diagnostic on %s: %v", d.File, d)
				}
				got = append(got, diag{d.Pos(), d.Severity, d.Rule})
			}
			if diff := cmp.Diff(tt.diags, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, ds)
			}
			if set.Invalid["specs/a.md"] != tt.invalid {
				t.Errorf("Invalid = %v, want %v", set.Invalid["specs/a.md"], tt.invalid)
			}
		})
	}
	// The bytes read from the snapshot are the contract's.
	set, _ := LoadWith(DefaultConfig(), []File{{Path: "specs/a.md", Data: []byte(spec)}, under}, Parsers{Source: snapshot(map[string]string{"notes/plan.md": "# Plan\n"}, "")})
	if got, want := set.Specs["specs/a.md"].Contract().SourceDigests, []string{ShortHash("limit 100\n"), ShortHash("# Plan\n")}; !cmp.Equal(got, want) {
		t.Errorf("SourceDigests = %q, want %q", got, want)
	}
}
