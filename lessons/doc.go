// Package lessons parses the lessons files of a control repository:
// `lessons/<owner>/<name>.md`, human-owned markdown that says what reviewers
// of one target repository keep asking for. Each lesson is a `## Title`
// section with an optional `scope:` line (paths or globs in the target
// repository), a `sources:` line (the pull requests and comments it came
// from) and its text. Briefs for that repository quote the lessons whose
// scope matches the files in play (docs/learning.md).
//
// The package is pure: Parse turns bytes into a File and positioned
// diagnostics and never panics; Match decides which lessons apply to a set
// of paths.
//
// Stability: gallivant is before 1.0. What is stable is what people
// write: the lessons file's path and grammar and its diagnostics' rule ids
// (docs/learning.md), which existing control repositories keep reading.
// This package's Go API serves gallivant's own commands; it may change in
// any minor release, and each change is listed in CHANGELOG.md.
package lessons
