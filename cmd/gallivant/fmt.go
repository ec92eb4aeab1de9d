package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type fmtOptions struct {
	Paths []string
	List  bool
	Write bool
}

func (a *app) newFmtCmd() *cobra.Command {
	opts := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt [-l] [-w] [PATH...]",
		Short: "Rewrite ledgers in canonical form",
		Long: `fmt formats ledgers the way gofmt formats Go: canonical spacing, table
layout and section order, without changing what the ledger says.

With no path it formats every ledger of the control repository in the current
directory; with paths, the ledgers among those files and directories. By
default the formatted ledger is printed on standard output.

A ledger whose grammar is broken is not formatted: its diagnostics are printed
on standard error and fmt exits 1.`,
		Example: `  gallivant fmt -l          # list ledgers that are not canonical
  gallivant fmt -w plans/   # rewrite them in place`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return a.fmtRun(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.List, "list", "l", false, "list ledgers whose formatting differs from canonical")
	cmd.Flags().BoolVarP(&opts.Write, "write", "w", false, "write the canonical form back to the file")
	return cmd
}

func (a *app) fmtRun(opts *fmtOptions) error {
	targets, err := resolveTargets(opts.Paths)
	if err != nil {
		return err
	}
	var bad parse.Diagnostics
	for _, t := range targets {
		cfg := specs.DefaultConfig()
		if data, err := os.ReadFile(filepath.Join(t.root, specs.ConfigFile)); err == nil {
			cfg, _ = specs.ParseConfig(specs.ConfigFile, data)
		}
		files, ds := readTree(t.root, cfg, t.only)
		bad = append(bad, ds...)
		prefix := displayPrefix(t.root)
		for _, f := range files {
			if !inScope(f.Path, t.only) {
				continue
			}
			if specs.FirstLine(f.Data) != ledger.Discriminant {
				if explicitly(f.Path, t.only) {
					return usageError("%s%s is not a ledger: line 1 is not %q", prefix, f.Path, ledger.Discriminant)
				}
				continue
			}
			l, ds := ledger.Parse(prefix+f.Path, f.Data)
			if ledger.Fatal(ds) {
				bad = append(bad, ds...)
				continue
			}
			out := ledger.Format(l)
			same := bytes.Equal(out, f.Data)
			if opts.List && !same {
				fmt.Fprintln(a.io.Out, prefix+f.Path)
			}
			if opts.Write && !same {
				if err := writeInside(t.root, f.Path, out); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
			}
			if !opts.List && !opts.Write {
				if _, err := a.io.Out.Write(out); err != nil {
					return err
				}
			}
		}
	}
	if len(bad) > 0 {
		bad.Sort()
		_ = bad.WriteText(a.io.Err)
		if bad.HasErrors() {
			return silent(exitFindings)
		}
	}
	return nil
}

// writeInside rewrites the regular file rel of the repository at root. It
// never writes through a symlink, so that fmt -w cannot write outside the
// repository even when a file turns into a symlink after it was read.
func writeInside(root, rel string, data []byte) error {
	if link := symlinkIn(root, rel); link != "" {
		return fmt.Errorf("%s: not written: %s is a symlink", rel, link)
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Lstat(full)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not written: not a regular file", rel)
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func inScope(p string, only []string) bool {
	return filterTo(parse.Diagnostics{{File: p}}, only) != nil
}

func explicitly(p string, only []string) bool {
	for _, o := range only {
		if o == p {
			return true
		}
	}
	return false
}
