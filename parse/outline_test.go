package parse

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ParseOutline is ParseBlocks with only the top-level headings and tables
// kept; everything else about the document is the same.
func TestParseOutlineIsParseBlocksFiltered(t *testing.T) {
	t.Parallel()
	inputs := map[string]string{
		"headings and a table":              "# T\n\npara\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## S\n",
		"setext heading":                    "Title\n=====\n\ntext\n",
		"nested heading and table stay out": "- item\n\n  ## inner\n\n  | a |\n  |---|\n  | 1 |\n\n> ## quoted\n> | a |\n> |---|\n",
		"table after a paragraph":           "header: x\nmore: y\n| row | status |\n|---|---|\n| 1 | done |\n",
		"heading inside a fence":            "```\n## not a heading\n```\n## heading\n",
		"heading inside html":               "<div>\n## not a heading\n</div>\n\n## heading\n",
		"frontmatter":                       "---\na: 1\n---\n# T\n",
		"bad bytes":                         "# T\n\x00\n",
		"empty":                             "",
	}
	for _, glob := range []string{"testdata/*.md", "../ledger/testdata/*/*.md", "../specs/testdata/*/*.md"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs[f] = string(src)
		}
	}
	if len(inputs) < 30 {
		t.Fatalf("want at least 30 inputs, have %d", len(inputs))
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			if diff := outlineDiff([]byte(src)); diff != "" {
				t.Errorf("ParseOutline differs from filtered ParseBlocks (-want +got):\n%s", diff)
			}
		})
	}
}

// outlineDiff compares ParseOutline with ParseBlocks keeping only the
// top-level headings and tables.
func outlineDiff(src []byte) string {
	want := ParseBlocks("x.md", src)
	var kept []Block
	for _, b := range want.Blocks {
		switch b.(type) {
		case *Heading, *Table:
			kept = append(kept, b)
		}
	}
	want.Blocks = kept
	return cmp.Diff(dump(want), dump(ParseOutline("x.md", src)))
}

// ParseOutline drops lines from goldmark's tree before its inline pass;
// the block structure must be exactly ParseBlocks', whatever the input.
func FuzzParseOutline(f *testing.F) {
	for _, glob := range []string{"testdata/*.md", "../ledger/testdata/roundtrip/*.md", "../ledger/testdata/invalid/*.md"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			src, _ := os.ReadFile(p)
			f.Add(src)
		}
	}
	for _, s := range []string{
		"a\n\nb\n---\n",
		"[a]: /u\n===\n",
		"[a]: /u\nb\n| x |\n|---|\n| 1 |\n",
		"| a |\n|---|\nb\n---\n",
		"- a\n\n  b\n- c\n",
		"> a\nb\n===\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if diff := outlineDiff(src); diff != "" {
			t.Fatalf("ParseOutline differs from filtered ParseBlocks on %q (-want +got):\n%s", src, diff)
		}
	})
}

// ParseOutline shares one goldmark parser between callers, as the daemon's
// concurrent passes do; its transformers keep their state in the per-parse
// context. Run under -race.
func TestParseOutlineConcurrent(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../ledger/testdata/roundtrip/*.md")
	if len(files) == 0 {
		t.Fatal("no ledgers")
	}
	var srcs [][]byte
	var want []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
		want = append(want, dump(ParseOutline("x.md", src)))
	}
	errs := make(chan string, 4*len(srcs))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, src := range srcs {
				if got := dump(ParseOutline("x.md", src)); got != want[i] {
					errs <- cmp.Diff(want[i], got)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent ParseOutline differs (-want +got):\n%s", e)
	}
}
