package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// engines are the public packages allowed to name internal types in their
// exported API, each with why. reconcile is the command's engine: its
// Options take interfaces it declares, whose methods name the internal
// adapters' types, and its package doc says its Go API is no contract.
var engines = map[string]string{
	module + "/reconcile": "the command's engine (its package doc)",
}

// public reports whether importPath is a package other modules can import:
// the module's packages outside internal/ and the command.
func public(importPath string) bool {
	rel, ok := strings.CutPrefix(importPath, module+"/")
	if !ok {
		return false
	}
	return rel != "internal" && !strings.HasPrefix(rel, "internal/") && !strings.Contains(rel, "/internal/") &&
		!strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "test/")
}

// internal reports whether importPath is one no other module can import.
func internal(importPath string) bool {
	return strings.HasPrefix(importPath, module+"/internal/") || strings.Contains(importPath, "/internal/")
}

// TestPublicPackagesExposeNoInternalType fails when an exported name of a
// public package mentions a type of an internal package in its signature,
// its fields or its methods: a caller outside the module could not name
// that type, so the API would be unusable there. The engines above are the
// deliberate exceptions.
func TestPublicPackagesExposeNoInternalType(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range list(t, module+"/...") {
		if !public(p.ImportPath) {
			continue
		}
		n++
		var got []string
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, exposedInternals(fset, f)...)
		}
		if why, ok := engines[p.ImportPath]; ok {
			if len(got) == 0 {
				t.Errorf("%s is listed as an engine (%s) but exposes no internal type: drop it from engines", p.ImportPath, why)
			}
			continue
		}
		for _, g := range got {
			t.Errorf("%s: a public package exposes an internal type; declare an interface or a type of its own, or move the package under internal/", g)
		}
	}
	if n < 9 {
		t.Fatalf("found %d public packages, want at least audit, doctor, evidence, gatekeep, ledger, lessons, parse, specs and reconcile", n)
	}
}

// exposedInternals lists, as "file:line:col: Name mentions pkg.Type", every
// mention of an internal package's type in the exported API of f: exported
// functions and methods of exported types (parameters and results),
// exported types (their exported fields, embedded fields and interface
// methods) and exported variables and constants with a declared type.
func exposedInternals(fset *token.FileSet, f *ast.File) []string {
	imports := map[string]string{} // local name → import path, internal ones only
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil || !internal(path) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	if len(imports) == 0 {
		return nil
	}
	var out []string
	mentions := func(owner string, n ast.Node) {
		if n == nil {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if _, ok := n.(*ast.BlockStmt); ok {
				return false // a function body is no signature
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok {
				if _, ok := imports[id.Name]; ok && sel.Sel.IsExported() {
					out = append(out, fmt.Sprintf("%s: %s mentions %s.%s", fset.Position(sel.Pos()), owner, id.Name, sel.Sel.Name))
				}
			}
			return true
		})
	}
	exportedType := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
					exportedType[ts.Name.Name] = true
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			owner := d.Name.Name
			if d.Recv != nil {
				recv := receiverName(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				owner = recv + "." + owner
			}
			mentions(owner, d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					exportedParts(s.Name.Name, s.Type, mentions)
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.IsExported() {
							mentions(name.Name, s.Type)
						}
					}
				}
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// exportedParts hands mentions the parts of a type declaration a caller
// sees: for a struct its exported and embedded fields, for an interface
// its methods and embedded types, for anything else the whole type.
func exportedParts(name string, typ ast.Expr, mentions func(string, ast.Node)) {
	switch t := typ.(type) {
	case *ast.StructType:
		for _, fld := range t.Fields.List {
			if len(fld.Names) == 0 {
				mentions(name, fld.Type)
				continue
			}
			for _, n := range fld.Names {
				if n.IsExported() {
					mentions(name+"."+n.Name, fld.Type)
				}
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			owner := name
			if len(m.Names) > 0 {
				owner += "." + m.Names[0].Name
			}
			mentions(owner, m.Type)
		}
	default:
		mentions(name, typ)
	}
}

// receiverName is the type name of a method's receiver expression.
func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// TestExposedInternals checks the detector on sources with and without an
// exposed internal type, so that the test above can fail.
func TestExposedInternals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"a parameter", `package p
import "github.com/gallivant/gallivant/internal/store"
func Open(s *store.Store) error { return nil }`, []string{"x.go:3:14: Open mentions store.Store"}},
		{"a result and a method", `package p
import ga "github.com/gallivant/gallivant/internal/githubapi"
type C struct{}
func (C) Read() ga.PullRequest { var p ga.PullRequest; return p }`, []string{"x.go:4:17: C.Read mentions ga.PullRequest"}},
		{"an exported field, not an unexported one", `package p
import "github.com/gallivant/gallivant/internal/agent"
type O struct {
	Task agent.Task
	out  agent.Outcome
}`, []string{"x.go:4:7: O.Task mentions agent.Task"}},
		{"an interface method", `package p
import "github.com/gallivant/gallivant/internal/agent"
type E interface{ Run(agent.Task) error }`, []string{"x.go:3:23: E.Run mentions agent.Task"}},
		{"only in unexported names and bodies", `package p
import "github.com/gallivant/gallivant/internal/agent"
type e interface{ Run(agent.Task) error }
func run(t agent.Task) {}
func Run() { var t agent.Task; run(t) }`, nil},
		{"a public package's type", `package p
import "github.com/gallivant/gallivant/ledger"
func Read(l *ledger.Ledger) {}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := exposedInternals(fset, f); !slices.Equal(got, tc.want) {
				t.Errorf("exposedInternals(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// TestPurePackagesImportNoAdapter fails when a pure package imports a
// package under internal/: the adapters, the store and the stand-ins are
// I/O, which the pure packages take as values.
func TestPurePackagesImportNoAdapter(t *testing.T) {
	t.Parallel()
	for _, p := range list(t, module+"/...") {
		if !pure(p.ImportPath) {
			continue
		}
		for _, imp := range p.Imports {
			if internal(imp) {
				t.Errorf("%s imports the internal package %s: a pure package takes what it reads as values (the caller in reconcile or cmd uses the adapter)", p.ImportPath, imp)
			}
		}
	}
}
