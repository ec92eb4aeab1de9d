package parse

import (
	"bytes"
	"testing"

	"github.com/adrg/frontmatter"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// yamlRoot is what yaml.v3 makes of src: the root content node, or nil.
func yamlRoot(src []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// Issue 33: the fast path for common frontmatter accepts what it can and
// returns exactly yaml.v3's node for it.
func TestSimpleMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want bool
	}{
		{"repo: acme/api\nharness: claude\n", true},
		{"repo:   acme/api\nstatus: active\n", true},
		{"title: Add the login page\nowner: alice@example.com\nmodel: gpt-5.1-codex\n", true},
		{"repo: acme/api\nrepo: acme/web\n", true}, // a duplicate is the spec parser's to report
		{"allowance: 6\n", false},
		{"verify: false\n", false},
		{"value: yes\n", false},
		{"value: null\n", false},
		{"repo: 'acme/api'\n", false},
		{"repo: acme/api # the api\n", false},
		{"repo: acme/api \n", false},
		{"repo: acme  api\n", false},
		{"repo: acme/api\r\n", false},
		{"repo: acme/api", false},
		{"\nrepo: acme/api\n", false},
		{"context: [a, b]\n", false},
		{"Repo: acme/api\n", false},
		{"repo:acme/api\n", false},
		{"repo: -x\n", false},
		{"legs:\n  api: acme/api\n", false},
		{"repo: ac\u00e9me\n", false},
	}
	for _, tc := range tests {
		got, ok := simpleMapping([]byte(tc.src))
		if ok != tc.want {
			t.Errorf("simpleMapping(%q) ok = %v; want %v", tc.src, ok, tc.want)
			continue
		}
		if ok {
			if diff := cmp.Diff(yamlRoot([]byte(tc.src)), got); diff != "" {
				t.Errorf("simpleMapping(%q) differs from yaml.v3 (-yaml +fast):\n%s", tc.src, diff)
			}
		}
	}
}

func FuzzSimpleMapping(f *testing.F) {
	for _, s := range []string{"repo: acme/api\nharness: claude\n", "a: b\n", "title: Add the login page\n", "k: v-1.2_x@y+z\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, ok := simpleMapping(src)
		if !ok {
			return
		}
		if diff := cmp.Diff(yamlRoot(src), got); diff != "" {
			t.Errorf("simpleMapping(%q) differs from yaml.v3 (-yaml +fast):\n%s", src, diff)
		}
	})
}

// adrgSplit is what github.com/adrg/frontmatter makes of src, as
// parseFrontmatter used it.
func adrgSplit(src []byte) (raw []byte, bodyOff int, ok bool) {
	capture := func(data []byte, v any) error {
		*(v.(*[]byte)) = bytes.Clone(data)
		return nil
	}
	rest, err := frontmatter.Parse(bytes.NewReader(src), &raw,
		frontmatter.NewFormat("---", "---", capture), frontmatter.NewFormat("---yaml", "---", capture))
	if err != nil || raw == nil {
		return nil, 0, false
	}
	return raw, len(src) - len(rest), true
}

type split struct {
	Raw     string
	BodyOff int
	OK      bool
}

func TestSplitFrontmatter(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"---\nrepo: a/b\n---\n# T\n", "---\n---\n", "---\n---", "---", "---\n", "\n\n---\nx: y\n---\nbody",
		"---yaml\nx: y\n ---  \nbody", "# T\n---\n", "---\nx: y\n", "--- \r\nx: y\r\n---\r\n# T\r\n", "\u00a0---\nx\n---\n",
		"", "\n", "---\n--\n---\n", "x\n---\n---\n",
	} {
		raw, off, ok := splitFrontmatter([]byte(src))
		wraw, woff, wok := adrgSplit([]byte(src))
		if diff := cmp.Diff(split{string(wraw), woff, wok}, split{string(raw), off, ok}); diff != "" {
			t.Errorf("splitFrontmatter(%q) (-adrg +fast):\n%s", src, diff)
		}
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{"---\nrepo: a/b\n---\n# T\n", "\n---yaml\n---", "--- \r\n---\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		raw, off, ok := splitFrontmatter(src)
		wraw, woff, wok := adrgSplit(src)
		if diff := cmp.Diff(split{string(wraw), woff, wok}, split{string(raw), off, ok}); diff != "" {
			t.Errorf("splitFrontmatter(%q) (-adrg +fast):\n%s", src, diff)
		}
	})
}
