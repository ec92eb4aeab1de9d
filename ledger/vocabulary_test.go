package ledger_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	goparser "go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vocabularyHome are the files that spell the vocabulary itself.
var vocabularyHome = []string{"ledger/subject.go", "ledger/stop.go"}

// vocabularyAllowance are files allowed to spell a subject or a stop
// reason as a literal. None is: every producer builds its subject with
// Subject and names its reason by a StopReason constant.
var vocabularyAllowance = []string{}

// TestVocabularyIsTyped type-checks every production package of the module
// and fails on a string literal outside the vocabulary that spells a
// `loop:` subject (it must be built by Subject.String and read by
// ParseSubject) or a stop reason (it must be a StopReason constant).
func TestVocabularyIsTyped(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the module's packages")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, exports := listPackages(t, root)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(f)
	})
	checked := 0
	for _, p := range pkgs {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := goparser.ParseFile(fset, filepath.Join(p.Dir, name), nil, goparser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(root, fset.Position(f.Pos()).Filename)
			rel = filepath.ToSlash(rel)
			if slices.Contains(vocabularyHome, rel) || slices.Contains(vocabularyAllowance, rel) {
				continue
			}
			checked++
			for _, msg := range untypedVocabulary(f, info) {
				pos := fset.Position(msg.pos)
				t.Errorf("%s:%d:%d: %s", rel, pos.Line, pos.Column, msg.text)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d files; want the module's production files (at least 50)", checked)
	}
}

type finding struct {
	pos  token.Pos
	text string
}

// untypedVocabulary finds the literals of f that spell the vocabulary.
func untypedVocabulary(f *ast.File, info *types.Info) []finding {
	var out []finding
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if strings.HasPrefix(v, "loop:") || strings.HasPrefix(v, "^loop:") {
			out = append(out, finding{lit.Pos(), "the subject literal " + strconv.Quote(v) + " is not built by ledger.Subject"})
		}
		if named, ok := info.Types[lit].Type.(*types.Named); ok && v != "" {
			if o := named.Obj(); o.Pkg() != nil && o.Pkg().Path() == ledgerPath && o.Name() == "StopReason" {
				out = append(out, finding{lit.Pos(), "the stop reason " + strconv.Quote(v) + " is an untyped literal; use its ledger.Stop… constant"})
			}
		}
		return true
	})
	return out
}

const ledgerPath = "github.com/gallivant/gallivant/ledger"

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
}

// listPackages lists the module's packages with the export data of every
// dependency, by `go list -export -deps`.
func listPackages(t *testing.T, root string) (own []listed, exports map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	exports = map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
		if !p.Standard && strings.HasPrefix(p.ImportPath, "github.com/gallivant/gallivant") && len(p.GoFiles) > 0 {
			own = append(own, p)
		}
	}
	return own, exports
}
