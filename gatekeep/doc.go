// Package gatekeep judges a pull request: it takes a digest of what GitHub
// says about it (state, head, mergeability, checks, reviews, comments, body)
// and returns a verdict — mergeable, fixable (with findings), blocked (with
// the reason and what clears it) or waiting (with what it waits for).
//
// It holds the rules gallivant's pull-request loop runs on: CI-first
// evidence bound to the exact head, reviewer clearance and prior-review
// selection, merge state, the completion gate (the receipt must attest every
// acceptance criterion of the approved contract), new feedback since the
// cursor, and the monotonic cursors themselves. It also parses and renders
// the two regions of a pull request body gallivant owns, the identity block
// and the receipt, strictly: a PR body is untrusted data.
//
// The package is pure: no I/O, no clock.
//
// Stability: gallivant is before 1.0. What is stable is what people and
// agents write and read: the document grammars (docs/grammar.md), the
// ledger's text and the `loop:` commit subjects (docs/ledger.md), which
// existing control repositories keep reading. This package's Go API serves
// gallivant's own commands; it may change in any minor release, and each
// change is listed in CHANGELOG.md.
package gatekeep
