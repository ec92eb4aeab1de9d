// Package layering holds the test that keeps gallivant's layers apart: the
// pure packages (every top-level package of the module) import no I/O and
// nothing above them (nor anything under internal/), no public package
// names an internal type in its exported API, and the shipped binary links
// no test code.
//
// It has no code of its own; the rules are in layering_test.go and
// surface_test.go.
package layering
