package specs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
)

func spec300() []byte {
	var b strings.Builder
	b.WriteString("---\nrepo: acme/api\nharness: claude\ncontext: [docs/a.md]\n---\n# Large spec\n\n**Engine:** loop\n\n## Problem\nMany criteria.\n\n## Acceptance criteria\n")
	for i := 1; i <= 300; i++ {
		ind := strings.Repeat(" ", len(fmt.Sprint(i))+2)
		fmt.Fprintf(&b, "%d. Criterion %d: the `handler%d` answers with status 200 and a JSON body\n%slisting every item the caller may see, sorted by creation time.\n", i, i, i, ind)
		switch i % 4 {
		case 1:
			fmt.Fprintf(&b, "%s- venue: internal/h%d.go\n", ind, i)
		case 2:
			fmt.Fprintf(&b, "%s- deferred: tracked in acme/api#%d\n", ind, i)
		}
	}
	b.WriteString("\n## Verify\n- `go test ./...`\n- `go vet ./...`\n")
	return []byte(b.String())
}

func BenchmarkParseSpec300ACs(b *testing.B) {
	src := spec300()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		s, ds := ParseSpec(parse.Parse("specs/large.md", src), Defaults{Repo: "acme/api", Base: "main"})
		if len(s.ACs) != 300 || ds.HasErrors() {
			b.Fatalf("parsed %d ACs, errors %v", len(s.ACs), ds)
		}
		_ = s.Contract().Fingerprint()
	}
}

func BenchmarkLoadExampleRepository(b *testing.B) {
	root := filepath.Join("..", "docs", "examples", "control")
	cfgData, err := os.ReadFile(filepath.Join(root, ConfigFile))
	if err != nil {
		b.Fatal(err)
	}
	var files []File
	var total int64
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files = append(files, File{Path: filepath.ToSlash(rel), Data: data})
		total += int64(len(data))
		return nil
	})
	b.SetBytes(total)
	for b.Loop() {
		cfg, _ := ParseConfig(ConfigFile, cfgData)
		set, ds := Load(cfg, files)
		if ds.HasErrors() || len(set.Specs) == 0 {
			b.Fatalf("example repository: %v", ds)
		}
	}
}
