package specs

import (
	"github.com/gallivant/gallivant/parse"
)

// This file keeps helpers only the tests use out of the package's API.

// Load parses every file of a snapshot and runs the cross-document rules
// that need only specs and chains. One bad document never stops the others:
// each is reported and the rest are loaded.
func Load(cfg *Config, files []File) (*Set, parse.Diagnostics) {
	return LoadWith(cfg, files, Parsers{})
}

// Stem returns the spec's file name without .md.
func (s *Spec) Stem() string { return Stem(s.Path) }
