package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type checkOptions struct {
	Paths  []string
	Format string
	// Target is a checkout of the target repository that plans' paths
	// are checked against; "" skips that rule.
	Target string
}

func (a *app) newCheckCmd() *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Validate the control repository's configuration, specs, chains, plans, ledgers and lessons",
		Long: `check validates every document of a control repository and prints one
diagnostic per problem as path:line:col: severity: rule: message.

With no argument it checks the control repository in the current directory
(found by its gallivant.yaml, searching upwards). With paths it checks those
files or directories; cross-document rules still see the whole repository.

--target DIR is a checkout of the target repository: plans' Modify:,
Delete: and Test: paths are checked against it. Without it that rule is
reported as skipped (info), never as passed.

Exit status: 0 when there is no error, 1 when any error was found, 2 for
usage or I/O problems.`,
		Example: `  gallivant check
  gallivant check specs/rate-limiter.md chains/
  gallivant check --format json docs/examples/control
  gallivant check --target ../api plans/rate-limiter-plan.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return a.checkRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "", "output format: text, json or github (default text; github when GITHUB_ACTIONS=true)")
	cmd.Flags().StringVar(&opts.Target, "target", "", "a checkout of the target repository to check plans' paths against")
	return cmd
}

// outputFormat resolves --format, defaulting to github annotations inside
// GitHub Actions.
func (a *app) outputFormat(flag string) (string, error) {
	switch flag {
	case "":
		if a.env("GITHUB_ACTIONS") == "true" {
			return "github", nil
		}
		return "text", nil
	case "text", "json", "github":
		return flag, nil
	}
	return "", usageError("--format must be text, json or github, got %q", flag)
}

func writeDiagnostics(w io.Writer, format string, ds parse.Diagnostics) error {
	switch format {
	case "json":
		return ds.WriteJSON(w)
	case "github":
		return ds.WriteGitHub(w)
	default:
		return ds.WriteText(w)
	}
}

// target is one control repository to check and the parts of it asked for.
type target struct {
	root string   // directory holding gallivant.yaml (or the fallback root)
	only []string // root-relative paths (files or dirs) to report on; nil = all
}

func (a *app) checkRun(ctx context.Context, opts *checkOptions) error {
	format, err := a.outputFormat(opts.Format)
	if err != nil {
		return err
	}
	targets, err := resolveTargets(opts.Paths)
	if err != nil {
		return err
	}
	var tree fs.FS
	if opts.Target != "" {
		if st, err := os.Stat(opts.Target); err != nil || !st.IsDir() {
			return usageError("--target %s is not a directory", opts.Target)
		}
		tree = os.DirFS(opts.Target)
	}
	var all parse.Diagnostics
	docs := 0
	for _, t := range targets {
		ds, n, err := checkTarget(ctx, t, tree)
		if err != nil {
			return err
		}
		docs += n
		all = append(all, ds...)
	}
	all.Sort()
	if err := writeDiagnostics(a.io.Out, format, all); err != nil {
		return err
	}
	a.noteUncommitted(targets)
	a.narrate(slog.LevelInfo, fmt.Sprintf("checked %s: %s, %s", plural(docs, "document", "documents"),
		plural(all.Count(parse.SeverityError), "error", "errors"), plural(all.Count(parse.SeverityWarning), "warning", "warnings")),
		"check summary", "documents", docs, "errors", all.Count(parse.SeverityError), "warnings", all.Count(parse.SeverityWarning))
	if all.HasErrors() {
		return silent(exitFindings)
	}
	return nil
}

// findRoot walks up from dir to the directory holding gallivant.yaml.
func findRoot(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, specs.ConfigFile)); err == nil && st.Mode().IsRegular() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func resolveTargets(paths []string) ([]target, error) {
	if len(paths) == 0 {
		root, ok := findRoot(".")
		if !ok {
			return nil, usageError("no %s in this directory or any parent; run inside a control repository or name the files to check", specs.ConfigFile)
		}
		return []target{{root: root}}, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	byRoot := map[string]*target{}
	var order []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, usageError("%s: %v", p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, usageError("%s: %v", p, unwrapPathErr(err))
		}
		start := abs
		if !st.IsDir() {
			start = filepath.Dir(abs)
		}
		root, ok := findRoot(start)
		if !ok {
			// Without a configuration the defaults apply, relative to the
			// working directory when the path lies under it.
			root = cwd
			if rel, err := filepath.Rel(cwd, abs); err != nil || strings.HasPrefix(rel, "..") {
				root = start
			}
		}
		t, seen := byRoot[root]
		if !seen {
			t = &target{root: root}
			byRoot[root] = t
			order = append(order, root)
		}
		rel, _ := filepath.Rel(root, abs)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			t.only = append(t.only, ".")
		} else {
			t.only = append(t.only, rel)
		}
	}
	out := make([]target, 0, len(order))
	for _, r := range order {
		out = append(out, *byRoot[r])
	}
	return out, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkTarget checks one control repository and returns the diagnostics on
// the requested paths, with paths shown relative to the working directory.
func checkTarget(ctx context.Context, t target, tree fs.FS) (parse.Diagnostics, int, error) {
	cfg := specs.DefaultConfig()
	var diags parse.Diagnostics
	cfgPath := filepath.Join(t.root, specs.ConfigFile)
	if data, err := os.ReadFile(cfgPath); err == nil {
		var ds parse.Diagnostics
		cfg, ds = specs.ParseConfig(specs.ConfigFile, data)
		diags = append(diags, ds...)
	} else if !errors.Is(err, fs.ErrNotExist) {
		diags.Errorf(specs.ConfigFile, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", unwrapPathErr(err))
	}
	files, ds := readTree(t.root, cfg, t.only)
	diags = append(diags, ds...)
	files = withoutLessons(files)
	lds, nLessons := checkLessons(t.root)
	diags = append(diags, lds...)
	repo, ds := ledger.LoadWith(cfg, files, ledger.Parsers{Parsers: specs.Parsers{Source: diskSources(t.root)}})
	diags = append(diags, ds...)
	diags = append(diags, repo.CheckPlans(tree)...)
	diags = append(diags, handEdits(ctx, t.root, repo)...)
	for _, p := range repo.Others {
		diags.Add(p, parse.Pos{Line: 1, Col: 1}, parse.SeverityInfo, "check/unclassified", "not a control document: it is not under %s; not checked", strings.Join(cfg.ScanDirs(), ", "))
	}
	diags = filterTo(diags, t.only)
	prefix := displayPrefix(t.root)
	for i := range diags {
		diags[i].File = prefix + diags[i].File
	}
	return diags, len(files) + nLessons, nil
}

func displayPrefix(root string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(cwd, root)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// filterTo keeps the diagnostics on the requested paths (all when only is nil).
func filterTo(ds parse.Diagnostics, only []string) parse.Diagnostics {
	if only == nil {
		return ds
	}
	var out parse.Diagnostics
	for _, d := range ds {
		for _, o := range only {
			if o == "." || d.File == o || strings.HasPrefix(d.File, o+"/") {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// readTree reads the configuration's scan directories (and any explicitly
// requested file outside them) into a snapshot. Unreadable entries become
// diagnostics naming the file; symlinked directories are not followed.
func readTree(root string, cfg *specs.Config, only []string) ([]specs.File, parse.Diagnostics) {
	var files []specs.File
	var diags parse.Diagnostics
	seen := map[string]bool{}
	// walked: the directory walk found rel, so every directory above it
	// is a real one (the walk follows no symlink) and only rel itself
	// needs a look.
	add := func(rel string, walked bool) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		if bad := unsafeNameRune(rel); bad != "" {
			diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/name",
				"the file name holds %s; a document's path may hold only %s, since workflows put it in shell commands (for example specs/add-login.md)", bad, safeNameSet)
			return
		}
		f, ds := readDoc(root, rel, walked)
		diags = append(diags, ds...)
		if f != nil {
			files = append(files, *f)
		}
	}
	for _, dir := range cfg.ScanDirs() {
		walkDocuments(root, dir, &diags, func(rel string) { add(rel, true) })
	}
	for _, o := range only {
		if o == "." || !isDocument(filepath.Base(o)) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(o))); err == nil && !st.IsDir() {
			add(o, false)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, diags
}

// walkDocuments calls doc with the slash path (relative to root) of each
// document under root's dir, skipping hidden directories below it. A dir
// that is a symlink is a diagnostic and is not walked (symlinkIn); a
// missing one has nothing to walk; an unreadable entry is a file/read
// diagnostic at its path, and the walk goes on.
func walkDocuments(root, dir string, diags *parse.Diagnostics, doc func(rel string)) {
	base := filepath.Join(root, filepath.FromSlash(dir))
	if link := symlinkIn(root, dir); link != "" {
		symlinkDiag(diags, dir, link)
		return
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return
	}
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", unwrapPathErr(err))
			return nil
		}
		if d.IsDir() {
			if p != base && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if isDocument(d.Name()) {
			doc(rel)
		}
		return nil
	})
}

// safeNameSet describes the characters a document's path may hold.
const safeNameSet = "letters a-z and A-Z, digits, '.', '_', '-' and '/'"

// unsafeNameRune returns the first character of rel outside safeNameSet,
// quoted, or "" when there is none: a spec's path reaches the inputs of
// workflow dispatches and the shell commands of workflows that use them.
func unsafeNameRune(rel string) string {
	for _, r := range rel {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '/':
		default:
			return strconv.QuoteRune(r)
		}
	}
	return ""
}

// isDocument reports whether a file name is a markdown document gallivant
// reads. README files document a directory and are never control documents.
func isDocument(name string) bool {
	return strings.HasSuffix(name, ".md") && !strings.EqualFold(name, "README.md") && !strings.HasPrefix(name, ".")
}

// symlinkIn returns the first path component of rel under root (rel
// itself included) that is a symlink, or "" when there is none.
func symlinkIn(root, rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// symlinkDiag is reconcile's diagnostic for a symlink: a control
// repository's documents are its own files, and a symlink could lead a
// check, or fmt -w, out of the repository.
func symlinkDiag(diags *parse.Diagnostics, rel, link string) {
	if link == rel {
		diags.Add(rel, parse.Pos{Line: 1, Col: 1}, parse.SeverityInfo, "file/symlink", "symlinks are not followed")
		return
	}
	diags.Add(rel, parse.Pos{Line: 1, Col: 1}, parse.SeverityInfo, "file/symlink", "symlinks are not followed: %s is a symlink", link)
}

// readDoc reads one document, refusing symlinks (as reconcile does) and
// oversized files before reading them, and reporting read errors as
// diagnostics.
//
// parentsReal says the directories above rel are known not to be
// symlinks (a directory walk found rel), so only rel itself is looked at.
func readDoc(root, rel string, parentsReal bool) (*specs.File, parse.Diagnostics) {
	var diags parse.Diagnostics
	full := filepath.Join(root, filepath.FromSlash(rel))
	if !parentsReal {
		if link := symlinkIn(root, rel); link != "" {
			symlinkDiag(&diags, rel, link)
			return nil, diags
		}
	}
	st, err := os.Lstat(full)
	if err != nil {
		diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", unwrapPathErr(err))
		return nil, diags
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		symlinkDiag(&diags, rel, rel)
		return nil, diags
	}
	if !st.Mode().IsRegular() {
		diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/read", "not a regular file")
		return nil, diags
	}
	if st.Size() > parse.MaxSize {
		diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, parse.RuleTooLarge, "file is %d bytes; documents are limited to %d bytes", st.Size(), parse.MaxSize)
		return nil, diags
	}
	f, err := os.Open(full)
	if err != nil {
		diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", unwrapPathErr(err))
		return nil, diags
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, parse.MaxSize+1))
	if err != nil {
		diags.Errorf(rel, parse.Pos{Line: 1, Col: 1}, "file/read", "cannot read: %v", unwrapPathErr(err))
		return nil, diags
	}
	return &specs.File{Path: rel, Data: data}, diags
}
