package layering

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path every package of this repository starts with.
const module = "github.com/gallivant/gallivant"

// shells are the directories whose packages may touch the network, the
// disk, processes and the clock: the reconciler and its adapters, the
// command and the internal helpers. Every other package of the module is
// pure: its rules take plain values and an explicit now.
var shells = []string{"cmd/", "reconcile", "internal/", "test/"}

// forbidden are the standard-library packages a pure package may not
// import: they reach the file system, the network, processes or the
// operating system.
var forbidden = []string{
	"os", "os/exec", "os/signal", "os/user", "io/ioutil", "path/filepath",
	"net", "net/http", "net/rpc", "net/smtp", "syscall", "log", "log/slog",
	"runtime", "unsafe", "plugin", "crypto/rand", "math/rand", "math/rand/v2",
	"testing",
}

// clock are the functions of package time that read the wall clock or
// wait on it; a pure package is handed its now instead.
var clock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer"}

type pkg struct {
	ImportPath   string
	Dir          string
	Imports      []string
	GoFiles      []string
	Deps         []string
	TestGoFiles  []string
	XTestGoFiles []string
}

func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func pure(importPath string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
	if rel == "" || !strings.HasPrefix(importPath, module) {
		return false
	}
	return !slices.ContainsFunc(shells, func(s string) bool { return strings.HasPrefix(rel, s) })
}

// TestPurePackagesImportNoIO fails when a pure package imports an I/O
// package of the standard library or a shell package of the module.
func TestPurePackagesImportNoIO(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range list(t, module+"/...") {
		if !pure(p.ImportPath) {
			continue
		}
		n++
		for _, imp := range p.Imports {
			if slices.Contains(forbidden, imp) {
				t.Errorf("%s imports %s: a pure package takes its inputs as values (move the I/O to reconcile or cmd)", p.ImportPath, imp)
			}
			if strings.HasPrefix(imp, module) && !pure(imp) {
				t.Errorf("%s imports %s, a package above it", p.ImportPath, imp)
			}
		}
	}
	if n < 5 {
		t.Fatalf("found %d pure packages, want at least parse, specs, ledger, gatekeep and audit", n)
	}
}

// TestPurePackagesReadNoClock fails when production code of a pure package
// reads the wall clock or waits on it.
func TestPurePackagesReadNoClock(t *testing.T) {
	t.Parallel()
	for _, p := range list(t, module+"/...") {
		if !pure(p.ImportPath) {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			timeName := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == `"time"` {
					timeName = "time"
					if imp.Name != nil {
						timeName = imp.Name.Name
					}
				}
			}
			if timeName == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName && slices.Contains(clock, sel.Sel.Name) {
					t.Errorf("%s: time.%s in a pure package: take now (or a deadline) as a parameter", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// TestBinaryLinksNoTestCode fails when the shipped command links the
// testing package or a test-only helper.
func TestBinaryLinksNoTestCode(t *testing.T) {
	t.Parallel()
	ps := list(t, "-deps", module+"/cmd/gallivant")
	for _, p := range ps {
		switch {
		case p.ImportPath == "testing" || strings.HasPrefix(p.ImportPath, "testing/"):
			t.Errorf("the binary links %s", p.ImportPath)
		case p.ImportPath == module+"/internal/leakcheck", p.ImportPath == module+"/internal/testgit":
			t.Errorf("the binary links %s, a test helper", p.ImportPath)
		case strings.HasPrefix(p.ImportPath, "github.com/google/go-cmp"), strings.HasPrefix(p.ImportPath, "github.com/rogpeppe/go-internal/testscript"):
			t.Errorf("the binary links %s, a test library", p.ImportPath)
		}
	}
	if len(ps) < 20 {
		t.Fatalf("go list -deps found %d packages; the check saw nothing", len(ps))
	}
}
