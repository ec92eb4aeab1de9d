package main

import (
	"slices"

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
	n := 0
	walkDocuments(root, lessons.Dir, &diags, func(rel string) {
		f, ds := readDoc(root, rel, true)
		diags = append(diags, ds...)
		if f == nil {
			return
		}
		n++
		_, ds = lessons.Parse(f.Path, f.Data)
		diags = append(diags, ds...)
	})
	return diags, n
}
