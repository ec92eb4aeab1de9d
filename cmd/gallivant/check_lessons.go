package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gallivant/gallivant/lessons"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// withoutLessons drops the lessons files from a snapshot of control
// documents: they have a grammar of their own (checkLessons) and are never
// specs, chains, plans or ledgers.
func withoutLessons(files []specs.File) []specs.File {
	return slices.DeleteFunc(files, func(f specs.File) bool { return lessons.IsLessonsPath(f.Path) })
}

// checkLessons checks every lessons file under root's lessons/ directory,
// one at a time: a bad file gets its own diagnostics and never stops the
// others. It returns the diagnostics and how many files it read.
func checkLessons(root string) (parse.Diagnostics, int) {
	var diags parse.Diagnostics
	base := filepath.Join(root, lessons.Dir)
	if link := symlinkIn(root, lessons.Dir); link != "" {
		symlinkDiag(&diags, lessons.Dir, link)
		return diags, 0
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return nil, 0
	}
	n := 0
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
		if !isDocument(d.Name()) {
			return nil
		}
		f, ds := readDoc(root, rel, true)
		diags = append(diags, ds...)
		if f == nil {
			return nil
		}
		n++
		_, ds = lessons.Parse(f.Path, f.Data)
		diags = append(diags, ds...)
		return nil
	})
	return diags, n
}
